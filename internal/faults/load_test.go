package faults_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// request is one request of a load, with the key that identifies a write
// (the body text of a post or comment, "member:post" of a reaction,
// "follower->followee" of a follow).
type request struct {
	method, path, body string
	token              string
	kind, key          string // kind: read, post, comment, react, follow
}

// mix picks worker w's n-th request.
type mix func(w, n int) request

// load runs workers against a server and checks every response: a 2xx, or a
// 503 problem with Retry-After and code unavailable, within the request
// budget plus slack. It remembers which writes were acknowledged (2xx) and
// which are ambiguous (503 or no answer: they may or may not have happened).
type load struct {
	t       testing.TB
	base    string
	budget  time.Duration // the server's REQUEST_TIMEOUT
	slack   time.Duration
	client  *http.Client
	mix     mix
	workers int
	// down, when set, tolerates transport errors (the server is being killed).
	down bool
	// pace, when set, hands out one token per request (a fixed arrival rate).
	pace <-chan time.Time
	// prefix starts the text of every post and comment the load writes.
	prefix string
	// gap is each worker's pause between requests (keeps a failing server
	// from turning the load into a busy loop).
	gap time.Duration

	mu         sync.Mutex
	phase      string
	counts     map[string]map[string]int // phase → "kind status" → count (status 0: transport error)
	violations []string
	acked      map[string]map[string]bool // kind → key
	ambiguous  map[string]map[string]bool
	slowest    time.Duration
	durations  []time.Duration

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newLoad(t testing.TB, base string, budget time.Duration, workers int, m mix) *load {
	return &load{
		t: t, base: base, budget: budget, slack: time.Second, mix: m, workers: workers, gap: 2 * time.Millisecond,
		client: &http.Client{
			Timeout:   budget + 3*time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: workers, DisableCompression: true},
		},
		phase:     "start",
		counts:    map[string]map[string]int{},
		acked:     map[string]map[string]bool{},
		ambiguous: map[string]map[string]bool{},
	}
}

// start launches the workers; setPhase labels the responses that follow.
func (l *load) start() {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	for w := range l.workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				if l.pace != nil {
					select {
					case <-l.pace:
					case <-ctx.Done():
						return
					}
				}
				l.do(ctx, l.mix(w, n))
				time.Sleep(l.gap)
			}
		}()
	}
}

// stop stops the workers and closes idle client connections.
func (l *load) stop() {
	l.cancel()
	l.wg.Wait()
	l.client.CloseIdleConnections()
}

// setBase points the workers at another server (a restarted one).
func (l *load) setBase(base string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.base = base
}

func (l *load) setPhase(p string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phase = p
}

func (l *load) do(ctx context.Context, r request) {
	if r.method == "" {
		time.Sleep(5 * time.Millisecond)
		return
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	// The request is not tied to ctx: stopping the load lets in-flight
	// requests finish, so none is cut off by the test itself.
	l.mu.Lock()
	base := l.base
	l.mu.Unlock()
	req, _ := http.NewRequest(r.method, base+r.path, body)
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	start := time.Now()
	resp, err := l.client.Do(req)
	dur := time.Since(start)
	var b []byte
	if err == nil {
		b, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts[l.phase] == nil {
		l.counts[l.phase] = map[string]int{}
	}
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	l.counts[l.phase][fmt.Sprintf("%s %d", r.kind, status)]++
	if dur > l.slowest {
		l.slowest = dur
	}
	l.durations = append(l.durations, dur)
	bad := func(format string, args ...any) {
		if len(l.violations) < 50 {
			l.violations = append(l.violations, fmt.Sprintf("[%s] %s %s: ", l.phase, r.method, r.path)+fmt.Sprintf(format, args...))
		}
	}
	mark := func(m map[string]map[string]bool) {
		if r.kind == "read" {
			return
		}
		if m[r.kind] == nil {
			m[r.kind] = map[string]bool{}
		}
		m[r.kind][r.key] = true
	}
	if err != nil {
		mark(l.ambiguous)
		if l.down {
			defer time.Sleep(20 * time.Millisecond) // the server is down: don't spin
		}
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			bad("no answer within %s (hang)", l.client.Timeout)
		} else if !l.down {
			bad("transport error: %v", err)
		}
		return
	}
	if dur > l.budget+l.slack {
		bad("answered %d after %s, budget %s", resp.StatusCode, dur.Round(time.Millisecond), l.budget)
	}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		mark(l.acked)
	case resp.StatusCode == http.StatusServiceUnavailable:
		mark(l.ambiguous)
		var p struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(b, &p)
		if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/problem+json" || p.Code != "unavailable" {
			bad("503 without Retry-After/problem+json/code unavailable: %v %s", resp.Header, b)
		}
	default:
		mark(l.ambiguous)
		bad("status %d: %.300s", resp.StatusCode, b)
	}
}

// count returns how many responses to requests of kind ("" for any) had
// status in phase (status 0: transport error; -2: any 2xx).
func (l *load) count(phase, kind string, status int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k, c := range l.counts[phase] {
		var kk string
		var st int
		fmt.Sscanf(k, "%s %d", &kk, &st)
		if (kind == "" || kind == kk) && (st == status || status == -2 && st >= 200 && st < 300) {
			n += c
		}
	}
	return n
}

// check fails the test on any recorded violation and logs the statuses.
func (l *load) check() {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	phases := make([]string, 0, len(l.counts))
	for p := range l.counts {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	for _, p := range phases {
		l.t.Logf("phase %-10s statuses %v", p, l.counts[p])
	}
	l.t.Logf("slowest response %s (budget %s)", l.slowest.Round(time.Millisecond), l.budget)
	for _, v := range l.violations {
		l.t.Error(v)
	}
}

// verifyWrites compares the acknowledged writes with the database: every
// acknowledged write is there exactly once, and every write that is there
// was acknowledged or ambiguous (nothing appears from nowhere).
func (l *load) verifyWrites(db *sqlx.DB, prefix string) {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	stored := map[string]map[string]int{}
	queries := map[string]string{
		"post":    `SELECT body AS key, count(*) AS n FROM posts WHERE body LIKE $1 || '%' GROUP BY body`,
		"comment": `SELECT body AS key, count(*) AS n FROM comments WHERE body LIKE $1 || '%' GROUP BY body`,
		"react": `SELECT m.handle || ':' || r.post_id AS key, count(*) AS n FROM reactions r JOIN members m ON m.id = r.member_id
		           WHERE $1 <> '' GROUP BY 1`,
		"follow": `SELECT a.handle || '->' || b.handle AS key, count(*) AS n FROM follows f
		             JOIN members a ON a.id = f.follower_id JOIN members b ON b.id = f.followee_id WHERE $1 <> '' GROUP BY 1`,
	}
	total := 0
	for kind, q := range queries {
		var rows []struct {
			Key string `db:"key"`
			N   int    `db:"n"`
		}
		if err := db.Select(&rows, q, prefix); err != nil {
			l.t.Fatalf("read back %s: %v", kind, err)
		}
		stored[kind] = map[string]int{}
		for _, r := range rows {
			stored[kind][r.Key] = r.N
			if r.N > 1 {
				l.t.Errorf("%s %q stored %d times", kind, r.Key, r.N)
			}
			if !l.acked[kind][r.Key] && !l.ambiguous[kind][r.Key] {
				l.t.Errorf("%s %q stored but never acknowledged nor attempted ambiguously", kind, r.Key)
			}
		}
		for k := range l.acked[kind] {
			total++
			if stored[kind][k] == 0 {
				l.t.Errorf("acknowledged %s %q is missing", kind, k)
			}
		}
	}
	l.t.Logf("writes: %d acknowledged, all present; ambiguous: post %d, comment %d, react %d, follow %d",
		total, len(l.ambiguous["post"]), len(l.ambiguous["comment"]), len(l.ambiguous["react"]), len(l.ambiguous["follow"]))
}

// readWriteMix: reads of the discover feed and of single posts, and new
// posts whose body is unique (prefix, worker, n).
func readWriteMix(f fixture, prefix string) mix {
	return func(w, n int) request {
		tok := f.tokens[w%len(f.tokens)]
		switch n % 5 {
		case 0, 1:
			return request{method: "GET", path: "/api/v1/feed?tab=discover&per_page=10", token: tok, kind: "read"}
		case 2:
			return request{method: "GET", path: fmt.Sprintf("/api/v1/posts/%d", f.posts[n%len(f.posts)]), token: tok, kind: "read"}
		default:
			key := fmt.Sprintf("%s w%d n%d", prefix, w, n)
			return request{method: "POST", path: "/api/v1/posts", body: `{"body":"` + key + `"}`, token: tok, kind: "post", key: key}
		}
	}
}
