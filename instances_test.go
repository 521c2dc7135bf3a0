package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/redistest"
)

// buildBinary compiles the server once for tests that run it as a process.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "socialapi")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs `socialapi serve` with env and waits until it is ready.
func startServer(t *testing.T, bin string, env map[string]string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "ADDR="+addr, "LOG_LEVEL=warn")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	base := "http://" + addr
	for range 200 {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("server on %s never became ready", addr)
	return ""
}

// TestTwoInstancesShareOneBudget runs two server processes against one
// PostgreSQL and one Redis: a member gets 120 reads a minute in total, not 240.
func TestTwoInstancesShareOneBudget(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	// A one-hour window: no refill while the test counts, however slow the machine.
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t), "REDIS_URL": redis.URL(), "RATE_LIMIT_WINDOW": "1h"}
	if _, _, err := cli(t, env, "member", "create", "--handle", "alice", "--name", "Alice"); err != nil {
		t.Fatal(err)
	}
	out, _, err := cli(t, env, "token", "create", "--handle", "alice", "--scope", "read")
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(out)
	bin := buildBinary(t)
	a, b := startServer(t, bin, env), startServer(t, bin, env)

	counts := map[int]int{}
	for i := range 130 {
		base := a
		if i%2 == 1 {
			base = b
		}
		req, _ := http.NewRequestWithContext(context.Background(), "GET", base+"/api/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		counts[resp.StatusCode]++
	}
	if counts[200] != 120 || counts[429] != 10 {
		t.Errorf("statuses over two instances = %v, want 120 × 200 and the rest 429", counts)
	}

	// Redis goes away: both instances keep serving (limited in process) and
	// say so in /readyz; they recover when it returns.
	redis.Stop()
	for _, base := range []string{a, b} {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		req, _ := http.NewRequest("GET", base+"/api/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		r2, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r2.Body.Close()
		if r2.StatusCode != 200 {
			t.Errorf("%s with Redis down: status %d, want 200 (fail open)", base, r2.StatusCode)
		}
		body := readyBody(t, base)
		if !strings.Contains(body, "unreachable") || !strings.Contains(body, `"ready":true`) {
			t.Errorf("%s /readyz with Redis down = %s", base, body)
		}
	}
	redis.Restart()
	time.Sleep(1100 * time.Millisecond) // the limiter retries the store after a second
	req, _ := http.NewRequest("GET", a+"/api/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	if r, err := http.DefaultClient.Do(req); err == nil {
		r.Body.Close()
	}
	if body := readyBody(t, a); !strings.Contains(body, "redis: ok") {
		t.Errorf("/readyz after Redis returned = %s", body)
	}
}

func readyBody(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServerLimits exercises the limits that live in the HTTP server itself.
func TestServerLimits(t *testing.T) {
	t.Parallel()
	env := map[string]string{"DATABASE_URL": pgtest.NewURL(t)}
	base := startServer(t, buildBinary(t), env)

	req, _ := http.NewRequest("GET", base+"/api/v1/me", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 64<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB header: status %d, want 431", resp.StatusCode)
	}

	// A body announced larger than the limit is refused before it is read.
	req, _ = http.NewRequest("POST", base+"/api/v1/posts", strings.NewReader(strings.Repeat("a", 11<<20)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer snw_notavalidtoken")
	resp, err = http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != 401 && resp.StatusCode != 413 {
			t.Errorf("10 MiB body: status %d, want 401 or 413", resp.StatusCode)
		}
	}
}
