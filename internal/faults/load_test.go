package faults_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
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

// stage is one part of an arrival-rate profile: the rate goes linearly from
// from to to requests per second over d.
type stage struct {
	d        time.Duration
	from, to float64
}

// due is how many arrivals the profile has had after elapsed, and whether
// it is over.
func due(stages []stage, elapsed time.Duration) (int, bool) {
	n, e := 0.0, elapsed.Seconds()
	for _, s := range stages {
		d := s.d.Seconds()
		if e < d {
			return int(n + e*(s.from+(s.to-s.from)*e/d/2)), false
		}
		n += d * (s.from + s.to) / 2
		e -= d
	}
	return int(n), true
}

// open sends the load's requests on the schedule of stages, each in its own
// goroutine (an open model: the schedule never waits for answers, so a slow
// server shows as latency, not as a lower rate), and returns the number
// sent once every one is answered. It replaces start and stop.
func (l *load) open(stages []stage) int {
	var wg sync.WaitGroup
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	start, sent := time.Now(), 0
	for over := false; !over; {
		now := <-tick.C
		var n int
		n, over = due(stages, now.Sub(start))
		for ; sent < n; sent++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				l.do(context.Background(), l.mix(i%l.workers, i/l.workers))
			}(sent)
		}
	}
	wg.Wait()
	l.client.CloseIdleConnections()
	return sent
}

// percentile of the recorded response times (p in 0..1).
func (l *load) percentile(p float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.durations) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), l.durations...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// LOAD-01, the CI smoke load: an open-model ramp from 20 to 200 requests per
// second over 5 s, 10 s at 200, down to 20 over 3 s (2,880 requests), of single
// posts and feeds spread over 8 members. It fails on 1 % errors or more (any
// answer but 200, or none within 5 s) and on a collapse: p95 over 1.5 s or p99
// over 3 s (the request budget plus the slack the fault tests allow one
// request). The thresholds are that generous because a shared 2-core CI machine
// runs the load generator (with -race), the server, PostgreSQL and another
// package's tests at once, and what runs beside it moves its latencies by
// orders of magnitude (docs/performance-journal.md, "CI smoke load beside other
// work"). Speed regressions are make bench's job; the catalogue's 50→500 rps
// profile needs the machine to itself (same entry). Not parallel: it runs alone
// in this package, before the fault tests, whose budgets its 200 rps would eat.
func TestLoadSmoke(t *testing.T) {
	c := newCluster(t)
	db := c.open("social")
	f := seed(t, db, 8)
	db.Close()
	s := startServer(t, serverEnv(c.URL("social", appName)))
	s.waitStatus("/readyz", 200, 10*time.Second)
	reads := func(w, n int) request {
		tok := f.tokens[w]
		switch n % 3 {
		case 0:
			return request{method: "GET", path: fmt.Sprintf("/api/v1/posts/%d", f.posts[n%len(f.posts)]), token: tok, kind: "read"}
		case 1:
			return request{method: "GET", path: "/api/v1/feed?per_page=20", token: tok, kind: "read"}
		default:
			return request{method: "GET", path: "/api/v1/feed?tab=discover&per_page=20", token: tok, kind: "read"}
		}
	}
	l := newLoad(t, s.base, 2*time.Second, len(f.tokens), reads)
	l.client.Transport.(*http.Transport).MaxIdleConnsPerHost = 256 // keep the connections a burst opened
	l.setPhase("ramp")
	start := time.Now()
	n := l.open([]stage{{5 * time.Second, 20, 200}, {10 * time.Second, 200, 200}, {3 * time.Second, 200, 20}})
	took := time.Since(start)
	ok := l.count("ramp", "read", 200)
	errs := n - ok
	p50, p95, p99 := l.percentile(0.50), l.percentile(0.95), l.percentile(0.99)
	t.Logf("LOAD-01: %d requests in %s, %d × 200, %d errors; p50 %s p95 %s p99 %s", n, took.Round(time.Millisecond),
		ok, errs, p50.Round(100*time.Microsecond), p95.Round(100*time.Microsecond), p99.Round(100*time.Microsecond))
	if want := (20+200)*5/2 + 200*10 + (200+20)*3/2; n != want {
		t.Errorf("%d requests sent, the profile has %d", n, want)
	}
	if errs*100 >= n {
		t.Errorf("%d errors in %d requests: 1 %% or more", errs, n)
	}
	if p95 > 1500*time.Millisecond || p99 > 3*time.Second {
		t.Errorf("latency p95 %s, p99 %s; want under 1.5 s and 3 s", p95, p99)
	}
	// Slow answers count in the percentiles, not one by one (l.check).
	t.Logf("statuses %v, slowest %s", l.counts["ramp"], l.slowest.Round(time.Millisecond))
}

// LOAD-03 (RL-12): the limiter under a steady load. The catalogue's run is
// 5 requests per second for 60 s from one member against 120 reads a
// minute: a burst of 120, then a refill of 2 a second, so 120 + 2 × 59.8 s
// ≈ 240 × 200 and 60 × 429. This is the same arithmetic scaled to 20 s: a
// quota of 40 per 20 s (the same 2 a second) and 100 requests at 5 a second
// (an open model: one goroutine per request, on schedule) give exactly
// 40 + ⌊19.8 s × 2⌋ = 79 × 200 (±1 for a refill landing between two
// requests) and the rest 429, the first one when the burst is spent.
func TestLoadRateLimiter(t *testing.T) {
	t.Parallel()
	const (
		burst  = 40
		window = 20 * time.Second
		rate   = 5 // requests per second
		n      = 100
	)
	c := newCluster(t)
	db := c.open("social")
	f := seed(t, db, 1)
	db.Close()
	env := serverEnv(c.URL("social", appName))
	env["RATE_LIMIT_READ"] = fmt.Sprint(burst)
	env["RATE_LIMIT_WINDOW"] = window.String()
	s := startServer(t, env)
	s.waitStatus("/readyz", 200, 10*time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	type answer struct {
		status     int
		retryAfter string
		rateLimit  string
		code       string
		err        error
	}
	answers := make([]answer, n)
	sent := make([]time.Duration, n) // when each request left, from the first
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	start := time.Now()
	for i := range n {
		if i > 0 {
			<-tick.C
		}
		sent[i] = time.Since(start)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/v1/posts/%d", s.base, f.posts[0]), nil)
			req.Header.Set("Authorization", "Bearer "+f.tokens[0])
			resp, err := client.Do(req)
			if err != nil {
				answers[i] = answer{err: err}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var p struct {
				Code string `json:"code"`
			}
			_ = json.Unmarshal(b, &p)
			answers[i] = answer{resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("RateLimit"), p.Code, nil}
		}()
	}
	span := time.Since(start)
	wg.Wait()
	// GCRA as a bucket of burst tokens refilled at refill/s, replayed over
	// the times the requests really left (a loaded machine sends them later
	// than the ticker's schedule, and the bucket refills meanwhile).
	refill := float64(burst) / window.Seconds()
	want, wantFirst := 0, -1
	tokens, last := float64(burst), time.Duration(0)
	for i, at := range sent {
		tokens = math.Min(burst, tokens+(at-last).Seconds()*refill)
		last = at
		if tokens >= 1 {
			tokens--
			want++
		} else if wantFirst < 0 {
			wantFirst = i
		}
	}
	ok, limited, first429 := 0, 0, -1
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("request %d: %v", i, a.err)
		case a.status == 200:
			ok++
			if a.rateLimit == "" {
				t.Errorf("request %d: 200 without a RateLimit header", i)
			}
		case a.status == 429:
			limited++
			if first429 < 0 {
				first429 = i
			}
			if sec, err := strconv.Atoi(a.retryAfter); err != nil || sec < 1 || a.code != "rate_limited" {
				t.Errorf("request %d: 429 with Retry-After %q, code %q", i, a.retryAfter, a.code)
			}
		default:
			t.Errorf("request %d: status %d", i, a.status)
		}
	}
	t.Logf("LOAD-03: %d requests over %s: %d × 200 (want %d ± 1), %d × 429; first 429 at request %d (t = %.1f s, want about %d)",
		n, span.Round(time.Millisecond), ok, want, limited, first429, float64(first429)/rate, wantFirst)
	if ok < want-1 || ok > want+1 || ok+limited != n {
		t.Errorf("%d × 200 and %d × 429; want %d ± 1 × 200 and the rest 429", ok, limited, want)
	}
	if first429 < wantFirst-2 || first429 > wantFirst+2 {
		t.Errorf("first 429 at request %d, want about %d", first429, wantFirst)
	}
}
