package faults_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// rig is one fault test's world: a cluster, the test's own (direct)
// connection to it, the seeded fixture and the server under test.
type rig struct {
	t      *testing.T
	c      *cluster
	db     *sqlx.DB
	f      fixture
	s      *server
	budget time.Duration
	prefix string
	g0     float64 // goroutines of the quiet, warmed-up server
	conns  int     // DB_MAX_CONNS
}

// newRig starts a cluster, seeds it and starts the server (through p when
// not nil) with env overrides; it warms the server up and records its
// goroutine baseline.
func newRig(t *testing.T, overrides map[string]string, via func(c *cluster) string) *rig {
	t.Helper()
	c, db, f := seededCluster(t, 4)
	r := &rig{t: t, c: c, db: db, f: f, budget: 2 * time.Second, prefix: "load " + t.Name(), conns: 4}
	url := c.URL("social", appName)
	if via != nil {
		url = via(c)
	}
	env := serverEnv(url)
	env["REQUEST_TIMEOUT"] = r.budget.String()
	env["DB_MAX_CONNS"] = fmt.Sprint(r.conns)
	for k, v := range overrides {
		env[k] = v
	}
	r.s = startServer(t, env)
	r.s.waitStatus("/readyz", 200, 10*time.Second)
	warm := newLoad(t, r.s.base, r.budget, 4, readWriteMix(r.f, "warm "+t.Name()))
	warm.start()
	time.Sleep(500 * time.Millisecond)
	warm.stop()
	warm.check()
	time.Sleep(300 * time.Millisecond)
	r.g0 = r.s.metric("go_goroutines")
	return r
}

// load starts the standard read/write load (4 workers).
func (r *rig) load() *load {
	l := newLoad(r.t, r.s.base, r.budget, 4, readWriteMix(r.f, r.prefix))
	l.prefix = r.prefix
	l.setPhase("1-before")
	l.start()
	time.Sleep(time.Second)
	return l
}

// recover waits for /readyz, lets the load run a second more, then requires
// a steady phase without a single 503, stops the load and checks everything:
// responses, writes, and that goroutines and connections are back to
// baseline.
func (r *rig) recover(l *load) {
	r.t.Helper()
	l.setPhase("3-recovery")
	took := r.s.waitStatus("/readyz", 200, 10*time.Second)
	r.t.Logf("ready again %s after the fault ended", took.Round(time.Millisecond))
	time.Sleep(time.Second)
	l.setPhase("4-steady")
	time.Sleep(1500 * time.Millisecond)
	l.stop()
	l.check()
	if n := l.count("4-steady", "", 503); n > 0 {
		r.t.Errorf("%d × 503 after recovery, want none", n)
	}
	if n := l.count("4-steady", "", -2); n == 0 {
		r.t.Errorf("no 2xx after recovery")
	}
	fresh := r.c.open("social")
	defer fresh.Close()
	l.verifyWrites(fresh, l.prefix)
	r.settle(fresh)
}

// settle waits until the server's goroutines are back to the baseline and
// its database sessions are within the pool and idle.
func (r *rig) settle(db *sqlx.DB) {
	r.t.Helper()
	var g, open float64
	var total, active int
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(200 * time.Millisecond) {
		g, open = r.s.metric("go_goroutines"), r.s.metric("go_sql_open_connections")
		total, active = sessions(r.t, db)
		// Sessions: the pool's, and the event stream's listener (one per instance).
		if g <= r.g0+3 && active == 0 && total <= r.conns+1 && open <= float64(r.conns) {
			r.t.Logf("settled: goroutines %.0f (baseline %.0f), pool open %.0f, sessions %d (active %d)", g, r.g0, open, total, active)
			return
		}
	}
	r.t.Errorf("not back to baseline after 10 s: goroutines %.0f (baseline %.0f), pool open %.0f, sessions %d (active %d), max %d",
		g, r.g0, open, total, active, r.conns+1)
}

// checkHealthz: liveness does not depend on the database and stays fast.
func (r *rig) checkHealthz() {
	r.t.Helper()
	start := time.Now()
	st, err := r.s.status("/healthz")
	if err != nil || st != 200 || time.Since(start) > 500*time.Millisecond {
		r.t.Errorf("/healthz during the fault: %d %v after %s, want 200 at once", st, err, time.Since(start))
	}
}

// FAULT-01: pg_ctl restart -m fast under load.
func TestFaultRestartUnderLoad(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, nil)
	l := r.load()
	l.setPhase("2-fault")
	r.c.Restart()
	r.recover(l)
}

// FAULT-02: PostgreSQL stopped for a while (FAULT_DB_DOWN, default 5 s to
// keep CI short; FAULT_DB_DOWN=30s for the full 30 s).
func TestFaultDatabaseDown(t *testing.T) {
	t.Parallel()
	down := 5 * time.Second
	if v := os.Getenv("FAULT_DB_DOWN"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("FAULT_DB_DOWN: %v", err)
		}
		down = d
	}
	r := newRig(t, nil, nil)
	l := r.load()
	l.setPhase("2-fault")
	r.c.Stop()
	r.s.waitStatus("/readyz", 503, 3*time.Second)
	l.setPhase("2-down")
	time.Sleep(down)
	r.checkHealthz()
	if n := l.count("2-down", "", 503); n == 0 {
		t.Errorf("no 503 while the database was down")
	}
	if n := l.count("2-down", "", -2); n > 0 {
		t.Errorf("%d × 2xx while the database was down", n)
	}
	r.c.Start()
	r.recover(l)
	// The outage is logged once (then summarised every 10 s), not once per 503.
	errs := strings.Count(r.s.logs.String(), `"level":"ERROR","msg":"request failed"`)
	if n := l.count("2-down", "", 503); errs > 2 || errs == 0 {
		t.Errorf("%d × 503 during the outage logged %d ERROR lines, want 1 (or 2)", n, errs)
	} else {
		t.Logf("%d × 503 during the outage: %d ERROR line(s), %d WARN summaries", n, errs,
			strings.Count(r.s.logs.String(), `"msg":"requests still failing: service unavailable"`))
	}
}

// FAULT-03: the server starts while PostgreSQL is down: it serves, not
// ready, answers 503, and becomes ready when the database comes up.
func TestFaultStartedBeforeDatabase(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	db := c.open("social")
	f := seed(t, db, 1)
	db.Close()
	c.Stop()
	env := serverEnv(c.URL("social", appName))
	env["REQUEST_TIMEOUT"] = "1s"
	s := startServer(t, env)
	if st, err := s.status("/readyz"); st != 503 {
		t.Errorf("/readyz before the database: %d %v, want 503", st, err)
	}
	get := func() (*http.Response, []byte, time.Duration) {
		req, _ := http.NewRequest("GET", s.base+"/api/v1/me", nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens[0])
		start := time.Now()
		resp, err := probeClient.Do(req)
		if err != nil {
			t.Fatalf("GET /me: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b, time.Since(start)
	}
	resp, b, took := get()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || took > 2*time.Second {
		t.Errorf("GET /me before the database: %d Retry-After %q after %s: %s", resp.StatusCode, resp.Header.Get("Retry-After"), took, b)
	}
	c.Start()
	s.waitStatus("/readyz", 200, 5*time.Second)
	if resp, b, _ := get(); resp.StatusCode != 200 {
		t.Errorf("GET /me once the database is up: %d %s", resp.StatusCode, b)
	}
}

// FAULT-04: every round trip to PostgreSQL takes longer than the request
// budget (Toxiproxy latency, 2.5 s each way, budget 2 s).
func TestFaultSlowDatabase(t *testing.T) {
	t.Parallel()
	proxyFault(t, "slow", "latency", map[string]any{"latency": 2500}, "slow")
}

// FAULT-05: PostgreSQL's traffic is black-holed for 3 s (Toxiproxy timeout
// toxic with timeout 0: connections stay open, nothing gets through).
func TestFaultBlackHole(t *testing.T) {
	t.Parallel()
	proxyFault(t, "hole", "timeout", map[string]any{"timeout": 0}, "unreachable")
}

// proxyFault runs the standard load through Toxiproxy, adds toxic (of typ,
// with attrs) for 4 s in phase "2-"+toxic, during which some requests must
// answer 503 (the database being state) and /healthz stays up, then removes
// it and requires a full recovery.
func proxyFault(t *testing.T, toxic, typ string, attrs map[string]any, state string) {
	t.Helper()
	var p *proxy
	r := newRig(t, nil, func(c *cluster) string { p = newProxy(t, c.port); return p.URL(c, "social", appName) })
	l := r.load()
	p.add(toxic, typ, attrs)
	phase := "2-" + toxic
	l.setPhase(phase)
	time.Sleep(4 * time.Second)
	r.checkHealthz()
	if n := l.count(phase, "", 503); n == 0 {
		t.Errorf("no 503 while the database was %s", state)
	}
	p.remove(toxic)
	r.recover(l)
}

// FAULT-10: the database turns read-only, in two ways, without a server
// restart. (1) ALTER DATABASE … SET default_transaction_read_only = on and
// reconnect: statements outside transactions are refused (the view counter,
// the token's last use), so reads must not depend on them; lib/pq begins
// every transaction READ WRITE explicitly, which overrides that default, so
// transactional writes still succeed: that setting is not a way to make the
// API read-only. (2) The cluster restarts as a hot standby (standby.signal,
// as after a failover to a replica): writes answer 503, reads 200; then it is
// promoted and writes resume.
func TestFaultReadOnly(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil, nil)
	l := r.load()
	reconnect := func() {
		if _, err := r.db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, appName); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.db.Exec(`ALTER DATABASE social SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	reconnect()
	l.setPhase("2-switch")
	time.Sleep(time.Second)
	l.setPhase("2-rodefault")
	time.Sleep(1500 * time.Millisecond)
	if n := l.count("2-rodefault", "read", 503); n > 0 {
		t.Errorf("%d reads answered 503 with default_transaction_read_only on, want 200", n)
	}
	if _, err := r.db.Exec(`ALTER DATABASE social RESET default_transaction_read_only`); err != nil {
		t.Fatal(err)
	}
	r.db.Close()

	l.setPhase("2-failover")
	r.c.Stop()
	marker := filepath.Join(r.c.dir, "data", "standby.signal")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		if err := exec.Command("chown", "postgres:", marker).Run(); err != nil {
			t.Fatal(err)
		}
	}
	r.c.Start()
	time.Sleep(time.Second)
	l.setPhase("2-standby")
	time.Sleep(2 * time.Second)
	if n := l.count("2-standby", "read", 503); n > 0 {
		t.Errorf("%d reads answered 503 on a standby, want 200", n)
	}
	if n := l.count("2-standby", "read", 200); n == 0 {
		t.Errorf("no read answered 200 on a standby")
	}
	if n, m := l.count("2-standby", "post", 201), l.count("2-standby", "post", 503); n > 0 || m == 0 {
		t.Errorf("writes on a standby: %d × 201, %d × 503; want only 503", n, m)
	}
	l.setPhase("2-promote")
	r.c.pgCtl("promote")
	r.db = r.c.open("social")
	r.recover(l)
}

// FAULT-08: the pool (DB_MAX_CONNS=2) is exhausted by queries that wait on a
// lock: every request answers 503 within the budget, the server never opens
// more than 2 sessions, and everything recovers when the lock goes.
func TestFaultPoolExhausted(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"DB_MAX_CONNS": "2"}, nil)
	r.conns = 2
	l := newLoad(t, r.s.base, r.budget, 8, readWriteMix(r.f, "exhaust "+t.Name()))
	l.setPhase("1-before")
	l.start()
	time.Sleep(time.Second)
	tx, err := r.db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`LOCK TABLE api_tokens IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	l.setPhase("2-exhausted")
	// The pool's bound is the server's count of open connections. PostgreSQL
	// may list one more session a moment: lib/pq closes a connection whose
	// request timed out at once and cancels its query on another, and the
	// canceled backend leaves pg_stat_activity only when it sees the cancel,
	// after the pool has opened a replacement. Such tails end (settle checks
	// the sessions are back within the pool), so PostgreSQL's count is held to
	// twice the pool (plus the stream's listener), and the server's own to
	// the pool exactly.
	most, mostOpen := 0, 0.0
	for range 15 {
		total, _ := sessions(t, r.db)
		most = max(most, total)
		mostOpen = max(mostOpen, r.s.metric("go_sql_open_connections"))
		time.Sleep(200 * time.Millisecond)
	}
	r.checkHealthz()
	_ = tx.Rollback()
	if mostOpen > 2 {
		t.Errorf("the server held %.0f connections open, pool size 2", mostOpen)
	}
	if most > 2*2+1 { // the pool's, a canceled tail each, and the event stream's listener
		t.Errorf("PostgreSQL listed %d sessions of the server, pool size 2 (at most one canceled tail each) and the listener", most)
	}
	if n := l.count("2-exhausted", "", 503); n == 0 {
		t.Errorf("no 503 while the pool was exhausted")
	}
	l.stop()
	l.check()
	l.verifyWrites(r.db, "exhaust "+t.Name())
	// Recovery under the standard load (8 workers on 2 connections can
	// legitimately queue past the budget on a busy machine).
	r.recover(r.load())
}

// FAULT-06: a search PostgreSQL itself runs long (a word in every one of
// many listings: every matching listing is ranked and counted; posts are
// capped at their newest 1,000 matches, so they no longer can) is stopped by the server's
// statement_timeout (DB_STATEMENT_TIMEOUT, here 50 ms) long before the
// request budget (10 s): it answers 503 + Retry-After at once, nothing of
// it is left running in pg_stat_activity, and other requests are served.
func TestFaultStatementTimeout(t *testing.T) {
	t.Parallel()
	c, db, f := seededCluster(t, 2) // m0 searches
	const stmtTimeout = 50 * time.Millisecond
	t0 := time.Now()
	// Add matching members until the search's slowest statement takes at
	// least twice the timeout on this machine, whatever its speed. Posts,
	// listings and jobs are searched among their 1,000 newest matches
	// (internal/search); people are ranked all, by word similarity.
	const search = `WITH hit AS MATERIALIZED (
	    SELECT id, created_at, word_similarity('pathological', lower(name || ' ' || handle)) AS rank
	      FROM members
	     WHERE suspended_at IS NULL
	       AND ('pathological' <% lower(name || ' ' || handle) OR lower(name || ' ' || handle) LIKE '%pathological%'))
	    SELECT count(*) FROM (SELECT id FROM hit ORDER BY rank DESC, created_at DESC, id DESC LIMIT 21) x`
	var took time.Duration
	for rows := 0; took < 2*stmtTimeout; {
		if rows >= 800_000 {
			t.Fatalf("the search takes only %s over %d members", took, rows)
		}
		if _, err := db.Exec(`INSERT INTO members (handle, name)
		    SELECT 'path' || g, 'Pathological ' || g FROM generate_series($1::int, $1::int + 99999) g`, rows); err != nil {
			t.Fatal(err)
		}
		rows += 100_000
		if _, err := db.Exec(`ANALYZE members`); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var n int
		if err := db.Get(&n, search); err != nil {
			t.Fatal(err)
		}
		took = time.Since(start)
		t.Logf("%d matching members (%s): the search's ranking statement takes %s", rows, time.Since(t0).Round(time.Millisecond), took.Round(time.Millisecond))
	}

	env := serverEnv(c.URL("social", appName))
	env["REQUEST_TIMEOUT"] = "10s"
	env["DB_STATEMENT_TIMEOUT"] = stmtTimeout.String()
	// The four searches come from one member at once: this test is about
	// statement_timeout, so the search concurrency caps (which would answer
	// two of them 429) are off.
	env["SEARCH_MAX_PER_MEMBER"], env["SEARCH_MAX_ACTIVE"] = "0", "0"
	s := startServer(t, env)
	s.waitStatus("/readyz", 200, 10*time.Second)
	get := func(path string) (*http.Response, []byte, time.Duration) {
		req, _ := http.NewRequest("GET", s.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens[0])
		start := time.Now()
		resp, err := probeClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b, time.Since(start)
	}
	const n = 4
	type answer struct {
		status     int
		retryAfter string
		ctype      string
		code       string
		took       time.Duration
	}
	answers := make(chan answer, n)
	for range n {
		go func() {
			resp, b, took := get("/api/v1/search?q=pathological&type=people")
			var p struct {
				Code string `json:"code"`
			}
			_ = json.Unmarshal(b, &p)
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"), p.Code, took}
		}()
	}
	for range n {
		a := <-answers
		if a.status != 503 || a.retryAfter == "" || a.ctype != "application/problem+json" || a.code != "unavailable" {
			t.Errorf("pathological search: %d Retry-After %q %s code %q after %s; want 503 unavailable with Retry-After",
				a.status, a.retryAfter, a.ctype, a.code, a.took.Round(time.Millisecond))
		} else if a.took > 3*time.Second {
			t.Errorf("pathological search answered 503 after %s: stopped by the request budget, not by statement_timeout", a.took)
		} else {
			t.Logf("pathological search: 503 after %s", a.took.Round(time.Millisecond))
		}
	}
	var leftovers int
	if err := db.Get(&leftovers, `SELECT count(*) FROM pg_stat_activity
	    WHERE application_name = $1 AND state <> 'idle' AND now() - query_start > $2 * interval '1 millisecond'`,
		appName, 2*stmtTimeout.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if leftovers > 0 {
		t.Errorf("%d statements of the server still running past twice the statement_timeout", leftovers)
	}
	// Ordinary requests are still served: statements of a millisecond or
	// two, though on a busy machine one may be descheduled past 50 ms, so
	// any of ten tries will do.
	s.waitStatus("/readyz", 200, 2*time.Second)
	for try := 1; ; try++ {
		resp, b, _ := get(fmt.Sprintf("/api/v1/posts/%d", f.posts[0]))
		if resp.StatusCode == 200 {
			break
		}
		if try == 10 {
			t.Errorf("GET a post after the pathological searches: %d %s", resp.StatusCode, b)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(s.logs.String(), "57014") {
		t.Errorf("server log does not name the statement timeout (57014):\n%s", tail(s.logs.String(), 10))
	}
}
