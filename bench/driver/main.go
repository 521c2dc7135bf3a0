// Command socialbench is the load driver of `make bench` (bench/bench.sh
// starts everything it measures). For each scenario it runs vegeta twice on
// loopback: closed (64 connections, as fast as the server answers: the
// capacity) and open (a fixed arrival rate at a fraction of that capacity:
// latency without coordinated omission). Around every run it reads the
// server's and PostgreSQL's CPU and RSS from /proc and the statements the
// database executed from pg_stat_statements. In the same run it measures the
// machine's ceilings, a bare Echo handler and `pgbench -S`, and reports every
// result as a ratio to them. It writes report.md, report.json and one SVG
// latency chart per scenario.
package main

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	_ "github.com/lib/pq"
)

type options struct {
	api, hello                string
	db, adminDB               string
	pgbench                   string // pgbench binary
	pgHost, pgPort, pgbenchDB string
	pgbenchClients            int
	pgbenchTime               time.Duration
	postmasterPID, serverPID  int
	seed                      int64
	scale                     string
	vegeta                    string
	out                       string
	conns                     int
	warmup, closed, open      time.Duration
	mixWarmup                 time.Duration // the mix's warm-up (its many statements plan longer)
	openFraction              float64
	only                      string
	autovacuum                bool // let autovacuum run during the measurements
	pprofAPI, pprofDebug      string
	pprofServerPID            int
	pprofScenario             string
	wrk                       string
	failOnErrors              bool
	generated                 string // a note on how the data set was made, for the report
	pgHugePages               string // whether PostgreSQL's shared memory is on huge pages (bench.sh checks)
	pgPrewarmed               string // whether bench.sh loaded the run database into shared_buffers, and how
	deepMembers               int
	metrics                   string // the API server's /metrics (the streams scenario, the routed reads)
	// The read replica the API server routes reads to (bench.sh's
	// BENCH_REPLICA=1): its benchmark database, its postgres database
	// (pg_stat_statements) and its postmaster's pid (CPU); empty and 0
	// without one, and the report is then as without replicas.
	replicaDB, replicaAdminDB string
	replicaPostmasterPID      int
	replicaNote               string // how the replica was set up, for the report
}

type driver struct {
	opt   options
	db    *sql.DB // the benchmark database
	admin *sql.DB // the postgres database: statistics
	datid int64
	// replicaAdmin is the replica's postgres database (its
	// pg_stat_statements; a physical standby has the primary's database
	// oids, so datid holds there too), nil without a replica.
	replicaAdmin *sql.DB
	f            *fixtures
	logf         func(string, ...any)
}

func main() {
	var o options
	flag.StringVar(&o.api, "api", "http://127.0.0.1:18080", "base URL of the API server")
	flag.StringVar(&o.hello, "hello", "http://127.0.0.1:18081", "base URL of the bare Echo server")
	flag.StringVar(&o.db, "db", "", "DSN of the benchmark database")
	flag.StringVar(&o.adminDB, "admin-db", "", "DSN of the cluster's postgres database (statistics)")
	flag.StringVar(&o.pgbench, "pgbench-bin", "pgbench", "pgbench binary")
	flag.StringVar(&o.pgHost, "pg-host", "127.0.0.1", "PostgreSQL host, for pgbench")
	flag.StringVar(&o.pgPort, "pg-port", "54350", "PostgreSQL port, for pgbench")
	flag.StringVar(&o.pgbenchDB, "pgbench-db", "pgbench", "database initialised with pgbench -i")
	flag.IntVar(&o.pgbenchClients, "pgbench-clients", 16, "pgbench -c")
	flag.DurationVar(&o.pgbenchTime, "pgbench-time", 15*time.Second, "pgbench -T")
	flag.IntVar(&o.postmasterPID, "postmaster-pid", 0, "PostgreSQL's postmaster pid (CPU of the whole cluster)")
	flag.IntVar(&o.serverPID, "server-pid", 0, "the API server's pid (CPU and RSS)")
	flag.Int64Var(&o.seed, "seed", 1, "seed the data set was generated with (derives the tokens)")
	flag.StringVar(&o.scale, "scale", "default", "name of the data set's scale, for the report")
	flag.StringVar(&o.vegeta, "vegeta", "vegeta", "vegeta binary")
	flag.StringVar(&o.out, "out", "bench/out", "output directory")
	flag.IntVar(&o.conns, "conns", 64, "connections of the closed runs")
	flag.DurationVar(&o.warmup, "warmup", 3*time.Second, "closed warm-up before each scenario (not reported)")
	flag.DurationVar(&o.mixWarmup, "mix-warmup", 0, "closed warm-up before the mix (0: as -warmup)")
	flag.DurationVar(&o.closed, "closed", 10*time.Second, "duration of each closed run")
	flag.DurationVar(&o.open, "open", 10*time.Second, "duration of each open run")
	flag.Float64Var(&o.openFraction, "open-fraction", 0.5, "open-model rate as a fraction of the closed throughput")
	flag.StringVar(&o.only, "only", "", "comma-separated scenario names (default: all)")
	flag.BoolVar(&o.autovacuum, "autovacuum", false, "let autovacuum start workers while the driver runs (default: paused; settle vacuums before each measurement)")
	flag.StringVar(&o.pprofAPI, "pprof-api", "", "base URL of bench/pprofserve (empty: no profile)")
	flag.StringVar(&o.pprofDebug, "pprof-debug", "", "base URL of its pprof listener")
	flag.IntVar(&o.pprofServerPID, "pprof-server-pid", 0, "its pid")
	flag.StringVar(&o.pprofScenario, "pprof-scenario", "feed_home", "the scenario to profile")
	flag.StringVar(&o.wrk, "wrk", "", "path of wrk, for a second opinion on the ceiling and the main reads (empty: none)")
	flag.BoolVar(&o.failOnErrors, "fail-on-errors", false, "exit 1 when a scenario had unexpected statuses")
	flag.StringVar(&o.generated, "generated", "", "how the data set was made (for the report)")
	flag.StringVar(&o.pgHugePages, "pg-huge-pages", "", "yes or no: PostgreSQL's shared memory on huge pages (for the report)")
	flag.StringVar(&o.pgPrewarmed, "pg-prewarmed", "", "whether the run database was loaded into shared_buffers first (for the report)")
	flag.StringVar(&o.metrics, "metrics", "", "URL of the API server's Prometheus metrics (the streams scenario reads goroutines and stream counters)")
	flag.StringVar(&o.replicaDB, "replica-db", "", "DSN of the benchmark database on the read replica the API server routes to (empty: none)")
	flag.StringVar(&o.replicaAdminDB, "replica-admin-db", "", "DSN of the replica's postgres database (its pg_stat_statements)")
	flag.IntVar(&o.replicaPostmasterPID, "replica-postmaster-pid", 0, "the replica's postmaster pid (its CPU)")
	flag.StringVar(&o.replicaNote, "replica-note", "", "how the replica was set up (for the report)")
	flag.IntVar(&o.deepMembers, "deep-members", 300, "members whose feed is walked to page 5 for the deep-page scenario")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := &driver{opt: o, logf: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}}
	rep, err := d.run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if o.failOnErrors && rep.Failed {
		fmt.Fprintln(os.Stderr, "bench: FAILED: unexpected statuses (see the errors column)")
		os.Exit(1)
	}
}

func (d *driver) run(ctx context.Context) (*report, error) {
	o := d.opt
	var err error
	if d.db, err = sql.Open("postgres", o.db); err != nil {
		return nil, err
	}
	defer d.db.Close()
	if d.admin, err = sql.Open("postgres", o.adminDB); err != nil {
		return nil, err
	}
	defer d.admin.Close()
	if _, err := d.admin.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
		return nil, fmt.Errorf("pg_stat_statements (needs shared_preload_libraries): %w", err)
	}
	resume, err := pauseAutovacuum(ctx, d.admin, !o.autovacuum)
	if err != nil {
		return nil, fmt.Errorf("autovacuum: %w", err)
	}
	defer resume()
	if err := d.db.QueryRowContext(ctx, "SELECT oid FROM pg_database WHERE datname = current_database()").Scan(&d.datid); err != nil {
		return nil, err
	}
	if o.replicaDB != "" {
		if err := d.openReplica(ctx); err != nil {
			return nil, fmt.Errorf("replica: %w", err)
		}
		defer d.replicaAdmin.Close()
	}
	start := time.Now()
	if d.f, err = loadFixtures(ctx, d.db, o.seed); err != nil {
		return nil, err
	}
	d.f.loadDeepPages(ctx, o.api, o.deepMembers, 5)
	d.logf("fixtures: %d members (%d active), %d public posts, %d deep feed pages (%s)", d.f.n, len(d.f.active), len(d.f.public), len(d.f.deep), time.Since(start).Round(time.Millisecond))
	// Tokens in use were used lately, at times spread over the last
	// lastUsedEvery (5 minutes, internal/auth), as a server that has been up a
	// while finds them: the server then rewrites last_used_at in its
	// steady-state trickle, with api_token_uses' autovacuum and autoanalyze
	// as often as that brings them. While last_used_at was in api_tokens,
	// which every statement reads to check the token, each of those
	// invalidated every cached plan on every connection. Setting all tokens
	// to now() before each scenario put one such wave of re-planning into
	// every scenario's window (docs/performance-journal.md, "Token last use
	// in its own table").
	// Only the active members' tokens (those the requests are sent for): the
	// others stay idle, as the data set has them.
	signed := time.Now()
	if _, err := d.db.ExecContext(ctx, `INSERT INTO api_token_uses (token_id, last_used_at)
		SELECT t.id, now() - (t.id % 300) * interval '1 second' FROM api_tokens t
		 WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = t.member_id)
		ON CONFLICT (token_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`); err != nil {
		return nil, err
	}
	if failed := d.f.signIn(ctx, o.api); failed > 0 {
		return nil, fmt.Errorf("sign-in: %d of %d GET /me failed", failed, 2*len(d.f.active))
	}
	d.logf("sign-in: one GET /me per member's read and write token (%s)", time.Since(signed).Round(time.Millisecond))

	rep := &report{Scale: o.scale, Seed: o.seed, Started: start.UTC(), CPUs: numCPU(), Conns: o.conns,
		OpenFraction: o.openFraction, Generated: o.generated, PGHugePages: o.pgHugePages, PGPrewarmed: o.pgPrewarmed,
		Replica:   d.replicaReport(),
		Durations: fmt.Sprintf("warm-up %s (the mix %s), closed %s, open %s per scenario, after one GET /me per member's read and write token (signed-in clients)", o.warmup, cmp.Or(o.mixWarmup, o.warmup), o.closed, o.open)}
	rep.Machine = machineInfo()

	// Ceilings first, again at the end: the report divides by their mean.
	if err := d.ceilings(ctx, rep, "before"); err != nil {
		return nil, err
	}
	for _, i := range runOrder(scenarios, o.only) {
		s := scenarios[i]
		if s.Name == "feed_home_deep" && len(d.f.deep) == 0 {
			rep.Scenarios = append(rep.Scenarios, scenarioReport{Name: s.Name, Title: s.Title, Skipped: "no deep pages: " + d.f.deepNote})
			continue
		}
		if isMix(s.Name) {
			d.refreshDeepPages(ctx)
		}
		// Each scenario starts without the vacuuming the ones before it
		// left due (as pgbench vacuums before it runs), so that autovacuum
		// does not bill one scenario for another's writes. What a
		// scenario's own writes leave is still its own.
		st := settle(ctx, d.db)
		if st.did() {
			d.logf("%s: %s", s.Name, st)
		}
		var sr scenarioReport
		switch s.Name {
		case floodName:
			sr, err = d.searchFlood(ctx, s)
		case streamsName:
			sr, err = d.mixStreams(ctx, s, uint64(i+1))
		default:
			sr, err = d.scenario(ctx, s, uint64(i+1))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		sr.Settled = &st
		rep.Scenarios = append(rep.Scenarios, sr)
	}
	if err := d.ceilings(ctx, rep, "after"); err != nil {
		return nil, err
	}
	if o.pprofAPI != "" {
		p, err := d.profile(ctx)
		if err != nil {
			d.logf("profile: %v", err)
			rep.ProfileError = err.Error()
		}
		rep.Profile = p
	}
	rep.Elapsed = time.Since(start).Round(time.Second).String()
	rep.finish()
	if err := rep.write(o.out); err != nil {
		return nil, err
	}
	fmt.Println(rep.markdownTable())
	d.logf("wrote %s/report.md, report.json and %d charts in %s", o.out, len(rep.Scenarios), rep.Elapsed)
	return rep, nil
}

// scenario runs one scenario: warm-up, closed, then open at a fraction of
// the closed throughput.
func (d *driver) scenario(ctx context.Context, s scenario, seed uint64) (scenarioReport, error) {
	o := d.opt
	sr := scenarioReport{Name: s.Name, Title: s.Title, Write: s.Write}
	gen := func(r *rand.Rand) target { return s.gen(r, d.f) }
	judge := func(op string, code int) bool {
		if s.want == 0 {
			return code == wantOf(op)
		}
		return code == s.want
	}
	// The mix warms up longer: PostgreSQL plans each prepared statement anew
	// on its first five executions on each connection before it settles on
	// a generic plan, and the mix runs some thirty statements over the
	// pool's 16 connections, where one scenario runs one or two. After the
	// default warm-up it is still planning and costs PostgreSQL noticeably
	// more a request than in the steady state of a server that has been up a
	// while (docs/performance-journal.md, "The mix's warm-up").
	warmup := o.warmupOf(s.Name)
	d.logf("%s: warm-up (%s)", s.Name, warmup)
	if _, _, err := d.attack(ctx, o.api, gen, load{closedWorkers: o.conns, duration: warmup}, seed+1000); err != nil {
		return sr, err
	}
	if s.Write {
		d.drain(ctx, "warm-up")
	}
	closed, err := d.measure(ctx, o.api, gen, judge, load{closedWorkers: o.conns, duration: o.closed}, seed)
	if err != nil {
		return sr, err
	}
	sr.Closed = closed
	if s.Write {
		sr.FanOut = append(sr.FanOut, d.drain(ctx, "closed"))
	}
	d.logf("%s: closed %.0f req/s p50 %.1f ms p99 %.1f ms, %d errors, %d × 501", s.Name, closed.RPS, closed.P50, closed.P99, closed.Errors, closed.NotImplemented)
	rate := closed.RPS * o.openFraction
	if s.openAt > 0 && closed.RPS >= s.openAt {
		rate = max(rate, s.openAt)
	}
	if closed.NotImplemented == closed.Requests || rate < 1 {
		return sr, nil
	}
	open, err := d.measure(ctx, o.api, gen, judge, load{rate: rate, maxWorkers: 256, duration: o.open}, seed+2000)
	if err != nil {
		return sr, err
	}
	sr.Open = &open
	if s.Write {
		sr.FanOut = append(sr.FanOut, d.drain(ctx, "open"))
	}
	d.logf("%s: open %.0f req/s p50 %.1f ms p95 %.1f ms p99 %.1f ms, %d errors", s.Name, open.RPS, open.P50, open.P95, open.P99, open.Errors)
	if o.wrk != "" && wrkScenarios[s.Name] {
		w, err := d.wrkRun(ctx, o.api, gen, seed+3000, true)
		if err != nil {
			sr.WrkError = err.Error()
			d.logf("%s: wrk: %v", s.Name, err)
		} else {
			sr.Wrk = &w
			d.logf("%s: wrk closed %.0f req/s p50 %.1f ms p99 %.1f ms, %d non-2xx", s.Name, w.RPS, w.P50, w.P99, w.Non2xx)
		}
		if s.Write || isMix(s.Name) {
			dr := d.drain(ctx, "wrk")
			sr.WrkFanOut = &dr
		}
	}
	return sr, nil
}

// drain waits (at most 10 minutes) until the server's fan-out worker has
// emptied feed_outbox, so that the backlog of one write run does not load
// the runs after it, and reports how long that took.
func (d *driver) drain(ctx context.Context, after string) drain {
	var r drain
	r.After = after
	count := func() (posts, rows int64) {
		_ = d.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM feed_outbox), (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'timeline')`).Scan(&posts, &rows)
		return posts, rows
	}
	start := time.Now()
	posts, rows0 := count()
	r.Posts = posts
	for posts > 0 && time.Since(start) < 10*time.Minute && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		posts, _ = count()
	}
	_, rows1 := count()
	r.Rows, r.Seconds = rows1-rows0, time.Since(start).Seconds()
	if r.Posts > 0 {
		d.logf("fan-out: %d posts pending after the %s run, drained in %.1f s", r.Posts, after, r.Seconds)
	}
	return r
}

// measure runs one attack with the resource readings around it.
func (d *driver) measure(ctx context.Context, base string, gen func(*rand.Rand) target, judge func(string, int) bool, l load, seed uint64) (phase, error) {
	o := d.opt
	stmts0, err := d.statements(ctx)
	if err != nil {
		return phase{}, err
	}
	maint0 := d.maintenance(ctx)
	rep0, err := d.replicaReading(ctx)
	if err != nil {
		return phase{}, err
	}
	cpu0 := d.readCPU()
	rss := newRSSSampler(o.serverPID)
	t0 := time.Now()
	rs, genCPU, err := d.attack(ctx, base, gen, l, seed)
	wall := time.Since(t0).Seconds()
	maxRSS := rss.stop()
	if err != nil {
		return phase{}, err
	}
	use := cpu0.since(d, wall)
	stmts1, err := d.statements(ctx)
	if err != nil {
		return phase{}, err
	}
	p := summarize(rs, judge, l)
	p.Maintenance = maintenanceDelta(maint0, d.maintenance(ctx))
	if d.replicaAdmin != nil {
		rep1, err := d.replicaReading(ctx)
		if err != nil {
			return phase{}, err
		}
		p.Replica = replicaDelta(rep0, rep1, use, p.Requests)
	}
	p.ServerCPU, p.PGCPU, p.PGBackgroundCPU, p.MachineBusy, p.MachineSteal = use.server, use.pg, use.pgBackground, use.busy, use.steal
	p.LoadGenCPU, p.DriverCPU = genCPU/wall, use.driver
	p.ServerRSSMiB = maxRSS / 1024
	p.ServerPeakRSSMiB = statusKB(o.serverPID, "VmHWM") / 1024
	if p.Requests > 0 {
		p.statementDeltas(stmts0, stmts1)
	}
	return p, nil
}

// runOrder returns the indexes of the scenarios to run, in order: those
// only names (comma-separated), in the order it names them, or else every
// scenario but the diagnostic ones, in the list's order. A scenario keeps
// its index (its targets' seed) whatever its place, so that running it
// earlier or later tells an order effect from its own cost.
func runOrder(scenarios []scenario, only string) []int {
	var out []int
	names := strings.FieldsFunc(only, func(r rune) bool { return r == ',' })
	for _, n := range names {
		if i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.Name == n }); i >= 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	if len(names) > 0 {
		return out
	}
	for i, s := range scenarios {
		if !s.diagnostic {
			out = append(out, i)
		}
	}
	return out
}

type rssSampler struct {
	done chan struct{}
	max  chan float64
}

func newRSSSampler(pid int) *rssSampler {
	s := &rssSampler{done: make(chan struct{}), max: make(chan float64, 1)}
	go func() {
		m := statusKB(pid, "VmRSS")
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				s.max <- max(m, statusKB(pid, "VmRSS"))
				return
			case <-t.C:
				m = max(m, statusKB(pid, "VmRSS"))
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() float64 {
	close(s.done)
	return <-s.max
}

// statement is one pg_stat_statements entry of the benchmark database.
type statement struct {
	query     string
	calls     int64
	plans     int64 // with pg_stat_statements.track_planning (bench.sh turns it on)
	hit, read int64
	totalMS   float64
	planMS    float64 // planning time, with track_planning
}

func (d *driver) statements(ctx context.Context) (map[int64]statement, error) {
	return statementsOf(ctx, d.admin, d.datid)
}

// statementsOf reads the pg_stat_statements entries of database datid
// through admin (a connection to the cluster's postgres database).
func statementsOf(ctx context.Context, admin *sql.DB, datid int64) (map[int64]statement, error) {
	const q = `SELECT queryid, query, calls, plans, shared_blks_hit, shared_blks_read, total_exec_time, total_plan_time
	             FROM pg_stat_statements WHERE dbid = $1`
	rows, err := admin.QueryContext(ctx, q, datid)
	if err != nil {
		return nil, fmt.Errorf("read pg_stat_statements: %w", err)
	}
	defer rows.Close()
	out := map[int64]statement{}
	for rows.Next() {
		var id sql.NullInt64
		var s statement
		if err := rows.Scan(&id, &s.query, &s.calls, &s.plans, &s.hit, &s.read, &s.totalMS, &s.planMS); err != nil {
			return nil, err
		}
		out[id.Int64] = s
	}
	return out, rows.Err()
}

// maintenance counts what PostgreSQL ran in the background of the benchmark
// database by table (autovacuum, autoanalyze) and of the cluster
// (checkpoints), to tell a latency spike of ours from one of the machine.
func (d *driver) maintenance(ctx context.Context) map[string]int64 {
	out := map[string]int64{}
	rows, err := d.db.QueryContext(ctx, `SELECT relname, autovacuum_count, autoanalyze_count FROM pg_stat_user_tables`)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var rel string
		var vac, an int64
		if rows.Scan(&rel, &vac, &an) == nil {
			out["autovacuum "+rel], out["autoanalyze "+rel] = vac, an
		}
	}
	var timed, requested int64
	if d.admin.QueryRowContext(ctx, `SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter`).Scan(&timed, &requested) == nil {
		out["checkpoint (timed)"], out["checkpoint (requested)"] = timed, requested
	}
	return out
}

// maintenanceDelta lists what ran between two maintenance readings.
func maintenanceDelta(before, after map[string]int64) []string {
	var out []string
	for k, v := range after {
		if n := v - before[k]; n > 0 {
			if n > 1 {
				k = fmt.Sprintf("%s ×%d", k, n)
			}
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// refreshDeepPages walks the deep pages' members' feeds again, for the mix:
// a member reads page 5 with the cursor of page 4 read just before, not one
// taken before minutes of writes. The write scenarios fan out hundreds of
// posts to every active member's timeline, whose trim (timeline.Cap, 400)
// then raises the member's horizon past cursors taken at the start, and
// such a page is read from posts by fan-out on read over every followee,
// many times dearer than a page of the timeline; with the first cursors the
// mix's deep reads would measure that path instead of the one a reader
// takes (docs/performance-journal.md, "Deep pages refreshed before the
// mix"). Paging past the timeline's reach is measured where it belongs: it
// is what a reader 400 posts deep gets.
func (d *driver) refreshDeepPages(ctx context.Context) {
	if len(d.f.deep) == 0 {
		return
	}
	start, old := time.Now(), d.f.deep
	d.f.deep = nil
	d.f.loadDeepPages(ctx, d.opt.api, d.opt.deepMembers, 5)
	if len(d.f.deep) == 0 {
		d.f.deep = old
		d.logf("deep feed pages: walking them again failed (%s); the mix keeps those of the start", d.f.deepNote)
		return
	}
	d.logf("deep feed pages: %d walked again (%s)", len(d.f.deep), time.Since(start).Round(time.Millisecond))
}

// isMix reports whether scenario name is the mix, its reads alone or the mix
// with event streams open, which warm up longer, read fresh deep pages and
// are compared with their parts (the streams' run with the mix's own
// warm-up, so that the two differ only by the streams).
func isMix(name string) bool { return name == "mix" || name == "mix_reads" || name == "mix_streams" }

// warmupOf is how long scenario name warms up (see scenario: the mix, and
// its reads alone, longer).
func (o *options) warmupOf(name string) time.Duration {
	if isMix(name) && o.mixWarmup > 0 {
		return o.mixWarmup
	}
	return o.warmup
}

// errNoPgbench means pgbench could not run; the report says so.
var errNoPgbench = errors.New("pgbench did not report tps")
