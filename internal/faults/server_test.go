package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/members"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	// The fault tests mostly wait (fixed phases of a few seconds): run them
	// four at a time, not GOMAXPROCS, unless -parallel says otherwise.
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "4")
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// serverBinary builds the socialapi binary once per test run.
func serverBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "faults-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "socialapi")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// appName is the application_name of the server's database sessions.
const appName = "socialapi_under_test"

// server is one `socialapi serve` process.
type server struct {
	t       testing.TB
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	metrics string // http://127.0.0.1:port/metrics
	logs    *lockedBuffer
	done    chan struct{}
}

// serverEnv is the environment every test server gets unless overridden:
// generous rate limits (the load must not be throttled) and a short request
// budget.
func serverEnv(dbURL string) map[string]string {
	return map[string]string{
		"DATABASE_URL":     dbURL,
		"RATE_LIMIT_READ":  "1000000",
		"RATE_LIMIT_WRITE": "1000000",
		"REQUEST_TIMEOUT":  "2s",
		"SHUTDOWN_TIMEOUT": "5s",
		"LOG_LEVEL":        "warn",
	}
}

// startServer runs the server with env and waits until it answers /healthz
// (not /readyz: some tests start it before the database).
func startServer(t testing.TB, env map[string]string) *server {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := &server{t: t, base: "http://" + addr, metrics: "http://" + maddr + "/metrics", logs: &lockedBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(serverBinary(t), "serve")
	s.cmd.Env = append(os.Environ(), "ADDR="+addr, "METRICS_ADDR="+maddr)
	for k, v := range env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(s.logs.String(), 8))
		}
		if strings.Contains(s.logs.String(), "panic") {
			t.Errorf("server log mentions a panic:\n%s", tail(s.logs.String(), 40))
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			t.Fatalf("server exited during start: %s\n%s", s.cmd.ProcessState, s.logs.String())
		default:
		}
		if st, _ := s.status("/healthz"); st == 200 {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server on %s never answered /healthz", addr)
	return nil
}

// stop sends SIGTERM and waits (SIGKILL after 10 s).
func (s *server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// kill is kill -9.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

var probeClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// status GETs path and returns the status code.
func (s *server) status(path string) (int, error) {
	resp, err := probeClient.Get(s.base + path)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// waitStatus polls path until it answers want, or fails the test after d.
func (s *server) waitStatus(path string, want int, d time.Duration) time.Duration {
	s.t.Helper()
	start := time.Now()
	for time.Since(start) < d {
		if st, _ := s.status(path); st == want {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("%s did not answer %d within %s", path, want, d)
	return 0
}

// metric scrapes one unlabelled (or first-labelled) sample of the
// Prometheus text exposition.
func (s *server) metric(name string) float64 {
	s.t.Helper()
	resp, err := probeClient.Get(s.metrics)
	if err != nil {
		s.t.Fatalf("scrape metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				s.t.Fatalf("metric %s: %v", line, err)
			}
			return v
		}
	}
	s.t.Fatalf("metric %s not exposed", name)
	return 0
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// fixture is the data a load needs: members with write tokens and a few
// public posts to read.
type fixture struct {
	handles []string
	tokens  []string
	posts   []int64
}

// seed creates n members (m0, m1, ...) with a write token each, and one public
// post per member.
func seed(t testing.TB, db *sqlx.DB, n int) fixture {
	t.Helper()
	ctx := context.Background()
	var f fixture
	for i := range n {
		h := fmt.Sprintf("m%d", i)
		if _, err := members.NewStore(db).Create(ctx, members.New{Handle: h, Name: "Member " + h}); err != nil {
			t.Fatalf("create member: %v", err)
		}
		_, tok, err := auth.NewStore(db, nil).Create(ctx, auth.NewToken{Handle: h, Scope: auth.ScopeWrite})
		if err != nil {
			t.Fatalf("create token: %v", err)
		}
		var id int64
		if err := db.Get(&id, `INSERT INTO posts (author_id, body, visibility) SELECT id, 'seed post of ' || handle, 'public' FROM members WHERE handle = $1 RETURNING id`, h); err != nil {
			t.Fatalf("create post: %v", err)
		}
		f.handles, f.tokens, f.posts = append(f.handles, h), append(f.tokens, tok), append(f.posts, id)
	}
	return f
}

// seededCluster starts a cluster, opens the test's own connection to its
// database (closed at cleanup) and seeds n members (seed).
func seededCluster(t *testing.T, n int) (*cluster, *sqlx.DB, fixture) {
	t.Helper()
	c := newCluster(t)
	db := c.open("social")
	t.Cleanup(func() { db.Close() })
	return c, db, seed(t, db, n)
}

// sessions counts the server's sessions in pg_stat_activity, and of those
// the ones running a statement.
func sessions(t testing.TB, db *sqlx.DB) (total, active int) {
	t.Helper()
	var r struct {
		Total  int `db:"total"`
		Active int `db:"active"`
	}
	if err := db.Get(&r, `SELECT count(*) AS total, count(*) FILTER (WHERE state = 'active') AS active
	                        FROM pg_stat_activity WHERE application_name = $1`, appName); err != nil {
		t.Fatalf("pg_stat_activity: %v", err)
	}
	return r.Total, r.Active
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
