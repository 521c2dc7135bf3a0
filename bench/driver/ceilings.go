package main

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ceilings measures the machine: the bare Echo handler with the same load
// generator and connections as the API, the same handler after one
// PostgreSQL read (the one-read ceiling), and pgbench -S (select-only,
// extended protocol as lib/pq speaks it) against the same cluster.
func (d *driver) ceilings(ctx context.Context, rep *report, label string) error {
	o := d.opt
	c := ceiling{When: label}
	if label == "after" {
		st := settle(ctx, d.db)
		c.Settled = &st
		d.logf("ceiling (%s): %s", label, st)
	}
	c.Quiet = waitQuiet(ctx, machineCPU, quietEvery, quietMax)
	d.logf("ceiling (%s): %s", label, c.Quiet)
	h, err := d.bareRun(ctx, "/hello", 1)
	if err != nil {
		return err
	}
	d.logf("ceiling (%s): bare Echo %.0f req/s, p50 %.2f ms, p99 %.2f ms", label, h.RPS, h.P50, h.P99)
	// The one-read ceiling: the same handler after one prepared
	// primary-key read through lib/pq (bench/hello's GET /read).
	rd, err := d.bareRun(ctx, "/read", 3)
	if err != nil {
		return err
	}
	c.Read = &rd
	d.logf("ceiling (%s): bare Echo and one PostgreSQL read %.0f req/s, p50 %.2f ms, p99 %.2f ms", label, rd.RPS, rd.P50, rd.P99)
	pg, err := d.pgbench(ctx)
	if err != nil {
		d.logf("ceiling (%s): pgbench: %v", label, err)
	} else {
		d.logf("ceiling (%s): pgbench -S %.0f tps, %.3f ms average", label, pg.TPS, pg.LatencyMS)
	}
	c.Hello, c.Pgbench, c.PgbenchError = h, pg, errString(err)
	if o.wrk != "" {
		c.HelloWrk, c.WrkError = d.bareWrk(ctx, label, "bare Echo", "/hello", 4)
		c.ReadWrk, c.ReadWrkError = d.bareWrk(ctx, label, "bare Echo and one PostgreSQL read", "/read", 5)
	}
	rep.Ceilings = append(rep.Ceilings, c)
	return nil
}

// route draws every request as GET path.
func route(path string) func(*rand.Rand) target {
	return func(*rand.Rand) target { return target{Method: "GET", URL: path} }
}

// bareRun measures bench/hello's path as a ceiling: a short closed warm-up
// (seed), then a closed run with the scenarios' connections and duration
// (seed+1), without its time series.
func (d *driver) bareRun(ctx context.Context, path string, seed uint64) (phase, error) {
	o := d.opt
	gen := route(path)
	if _, _, err := d.attack(ctx, o.hello, gen, load{closedWorkers: o.conns, duration: min(o.warmup, 2*time.Second)}, seed); err != nil {
		return phase{}, fmt.Errorf("%s warm-up: %w", path, err)
	}
	judge := func(_ string, code int) bool { return code == 200 }
	p, err := d.measure(ctx, o.hello, gen, judge, load{closedWorkers: o.conns, duration: o.closed}, seed+1)
	if err != nil {
		return phase{}, fmt.Errorf("%s: %w", path, err)
	}
	p.Series = nil
	return p, nil
}

// bareWrk is bareRun with wrk (no warm-up: bareRun's came first), logged
// as name: the run, or nil and why it failed (a ceiling without wrk's
// reading, not a failed benchmark).
func (d *driver) bareWrk(ctx context.Context, label, name, path string, seed uint64) (*wrkPhase, string) {
	w, err := d.wrkRun(ctx, d.opt.hello, route(path), seed, false)
	if err != nil {
		d.logf("ceiling (%s): wrk on the %s: %v", label, name, err)
		return nil, err.Error()
	}
	d.logf("ceiling (%s): %s with wrk %.0f req/s, p50 %.2f ms, p99 %.2f ms", label, name, w.RPS, w.P50, w.P99)
	return &w, ""
}

// The machine counts as quiet while under quietBusy of its CPU is busy over
// quietEvery; a ceiling waits at most quietMax for that.
const (
	quietBusy  = 0.15
	quietEvery = 500 * time.Millisecond
	quietMax   = 60 * time.Second
)

// quiet is how the wait for a quiet machine before a ceiling went.
type quiet struct {
	Waited   float64 `json:"waited_s"`
	Busy     float64 `json:"busy"` // share of the CPU busy over the last sample
	TimedOut bool    `json:"timed_out,omitempty"`
}

func (q quiet) String() string {
	s := fmt.Sprintf("machine quiet (%.0f %% busy) after %.1f s", 100*q.Busy, q.Waited)
	if q.TimedOut {
		s = fmt.Sprintf("machine still %.0f %% busy after %.0f s; measured anyway", 100*q.Busy, q.Waited)
	}
	return s
}

// settled is what settle did.
type settled struct {
	Tables []string `json:"tables"`
	Took   float64  `json:"took_s"`
	Error  string   `json:"error,omitempty"`
}

// did reports whether settle vacuumed anything or failed: whether it is
// worth a line in the log and the report.
func (s settled) did() bool { return len(s.Tables) > 0 || s.Error != "" }

func (s settled) String() string {
	if s.Error != "" {
		return "vacuuming the changed tables failed (" + s.Error + ")"
	}
	tables := "tables"
	if len(s.Tables) == 1 {
		tables = "table"
	}
	return fmt.Sprintf("%d changed %s vacuumed and analysed in %.1f s", len(s.Tables), tables, s.Took)
}

// pauseAutovacuum stops autovacuum from starting workers on the cluster of
// admin (when pause; a run that left it paused is undone either way) until
// the returned function is called. The mix writes enough timeline rows to
// make that table due again within seconds of settle, and autovacuum's
// next wake-up (once a minute) then lands in a measurement or not by
// chance: the runs it landed in lost up to a third of their throughput, a
// difference larger than those the pairs compare
// (docs/performance-journal.md, "Autovacuum paused while the driver runs").
// settle does the vacuuming instead, between the measurements.
func pauseAutovacuum(ctx context.Context, admin *sql.DB, pause bool) (func(), error) {
	set := func(ctx context.Context, q string) error {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return err
		}
		_, err := admin.ExecContext(ctx, "SELECT pg_reload_conf()")
		return err
	}
	if err := set(ctx, "ALTER SYSTEM RESET autovacuum"); err != nil || !pause {
		return func() {}, err
	}
	if err := set(ctx, "ALTER SYSTEM SET autovacuum = off"); err != nil {
		return func() {}, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = set(ctx, "ALTER SYSTEM RESET autovacuum")
	}, nil
}

// settle vacuums and analyses every table of the benchmark database changed
// since its last vacuum or analyse, before each scenario and the ceilings
// measured after them. Left to autovacuum, which wakes at most once a minute,
// that work could start during the next measurement, whatever waitQuiet saw
// just before it, and lower the ceilings read after write runs
// (docs/performance-journal.md, "Tables settled before each measurement").
// A table vacuumed and analysed here is no longer due.
func settle(ctx context.Context, db *sql.DB) settled {
	start := time.Now()
	var s settled
	fail := func(err error) settled {
		s.Error, s.Took = err.Error(), time.Since(start).Seconds()
		return s
	}
	// Each backend adds its counts to these at most once a second while
	// busy, so the last moments of a scenario may be missing from them, but
	// not a table it wrote throughout.
	rows, err := db.QueryContext(ctx, `SELECT format('%I.%I', schemaname, relname) FROM pg_stat_user_tables
		 WHERE n_dead_tup > 0 OR n_ins_since_vacuum > 0 OR n_mod_since_analyze > 0 ORDER BY 1`)
	if err != nil {
		return fail(err)
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fail(err)
		}
		s.Tables = append(s.Tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	for _, t := range s.Tables {
		if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return fail(fmt.Errorf("%s: %w", t, err))
		}
	}
	s.Took = time.Since(start).Seconds()
	return s
}

// waitQuiet samples the machine's CPU (sample: busy and total jiffies, as
// machineCPU returns them) every interval until less than quietBusy of it
// was busy over one interval, or max has passed, so that background work
// still running after the last scenario (an autovacuum, a fan-out backlog)
// does not lower the ceiling measured after it. It cannot keep out work that
// starts during the measurement, such as an autovacuum that wakes once the
// machine looked quiet (docs/performance-journal.md, "Tables settled before
// each measurement"); settle does the vacuuming first.
func waitQuiet(ctx context.Context, sample func() (busy, steal, total float64), interval, max time.Duration) quiet {
	start := time.Now()
	b0, _, t0 := sample()
	for {
		select {
		case <-ctx.Done():
			return quiet{Waited: time.Since(start).Seconds(), TimedOut: true}
		case <-time.After(interval):
		}
		b1, _, t1 := sample()
		var share float64
		if t1 > t0 {
			share = (b1 - b0) / (t1 - t0)
		}
		q := quiet{Waited: time.Since(start).Seconds(), Busy: share}
		if share < quietBusy {
			return q
		}
		if time.Since(start) >= max {
			q.TimedOut = true
			return q
		}
		b0, t0 = b1, t1
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var (
	tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
	latRe = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
)

func (d *driver) pgbench(ctx context.Context) (pgbenchResult, error) {
	o := d.opt
	args := []string{"-n", "-S", "-M", "extended", "-c", strconv.Itoa(o.pgbenchClients), "-j", "2",
		"-T", strconv.Itoa(int(o.pgbenchTime.Seconds())), "-h", o.pgHost, "-p", o.pgPort, "-U", "postgres", o.pgbenchDB}
	cmd := exec.CommandContext(ctx, o.pgbench, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	pg0 := treeCPU(o.postmasterPID)
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	res := pgbenchResult{Command: "pgbench " + strings.Join(args, " "), PGCPU: (treeCPU(o.postmasterPID) - pg0) / wall}
	if err != nil {
		return res, fmt.Errorf("%w: %s", err, lastLines(out.String(), 5))
	}
	m := tpsRe.FindStringSubmatch(out.String())
	if m == nil {
		return res, fmt.Errorf("%w: %s", errNoPgbench, lastLines(out.String(), 5))
	}
	res.TPS, _ = strconv.ParseFloat(m[1], 64)
	if m := latRe.FindStringSubmatch(out.String()); m != nil {
		res.LatencyMS, _ = strconv.ParseFloat(m[1], 64)
	}
	return res, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// profile drives the home feed against bench/pprofserve (the same handlers
// with net/http/pprof) and keeps a CPU profile, the allocations and the
// heap, with `go tool pprof -top` summaries of each.
func (d *driver) profile(ctx context.Context) (*profileReport, error) {
	o := d.opt
	dir := filepath.Join(o.out, "pprof")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := cmp.Or(o.pprofScenario, "feed_home")
	var sc *scenario
	for i := range scenarios {
		if scenarios[i].Name == name {
			sc = &scenarios[i]
		}
	}
	if sc == nil {
		return nil, fmt.Errorf("no scenario %q to profile", name)
	}
	gen := func(r *rand.Rand) target { return sc.gen(r, d.f) }
	secs := max(5, int(o.closed.Seconds()))
	d.logf("profile: %s on pprofserve, CPU profile of %ds", name, secs)
	// pprofserve starts as cold as the server did: its clients sign in and
	// it warms up as long as the scenario does on the server, or the profile
	// shows first authentications and custom plans the figures never had
	// (docs/performance-journal.md, "Profiles warmed up as the scenario").
	if failed := d.f.signIn(ctx, o.pprofAPI); failed > 0 {
		return nil, fmt.Errorf("profile sign-in: %d GET /me failed", failed)
	}
	if name == streamsName { // the streams are held on the profiled server too
		members := d.streamMembers()
		members = members[:min(len(members), streamsWanted)]
		stop, err := d.holdStreams(ctx, o.pprofAPI, members)
		if err != nil {
			return nil, fmt.Errorf("profile streams: %w", err)
		}
		defer stop()
		d.logf("profile: %d streams held on pprofserve", len(members))
	}
	if _, _, err := d.attack(ctx, o.pprofAPI, gen, load{closedWorkers: o.conns, duration: o.warmupOf(name)}, 5); err != nil {
		return nil, err
	}
	type got struct {
		err error
	}
	done := make(chan got, 1)
	cpuFile := filepath.Join(dir, name+"_cpu.pb.gz")
	go func() {
		time.Sleep(time.Second)
		done <- got{fetch(ctx, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", o.pprofDebug, secs), cpuFile)}
	}()
	rs, _, err := d.attack(ctx, o.pprofAPI, gen, load{closedWorkers: o.conns, duration: time.Duration(secs+2) * time.Second}, 6)
	if err != nil {
		return nil, err
	}
	if g := <-done; g.err != nil {
		return nil, g.err
	}
	p := &profileReport{Scenario: name, Seconds: secs, Requests: len(rs)}
	allocFile, heapFile := filepath.Join(dir, name+"_allocs.pb.gz"), filepath.Join(dir, name+"_heap.pb.gz")
	if err := fetch(ctx, o.pprofDebug+"/debug/pprof/allocs", allocFile); err != nil {
		return p, err
	}
	if err := fetch(ctx, o.pprofDebug+"/debug/pprof/heap", heapFile); err != nil {
		return p, err
	}
	p.Files = []string{"pprof/" + name + "_cpu.pb.gz", "pprof/" + name + "_allocs.pb.gz", "pprof/" + name + "_heap.pb.gz"}
	p.CPUTop = pprofTop(ctx, cpuFile, "-top", "-nodecount=25")
	p.CPUCumTop = pprofTop(ctx, cpuFile, "-top", "-cum", "-nodecount=30")
	p.AllocTop = pprofTop(ctx, allocFile, "-top", "-sample_index=alloc_space", "-nodecount=20")
	p.HeapTop = pprofTop(ctx, heapFile, "-top", "-sample_index=inuse_space", "-nodecount=12")
	return p, nil
}

func fetch(ctx context.Context, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// pprofTop runs `go tool pprof` on a profile (the Go toolchain `make bench`
// builds with).
func pprofTop(ctx context.Context, file string, args ...string) string {
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"tool", "pprof"}, args...), file)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "go tool pprof: " + err.Error() + ": " + lastLines(string(out), 3)
	}
	return strings.TrimSpace(string(out))
}
