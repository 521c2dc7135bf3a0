package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Capacity from wrk (the C load generator, Debian's package). vegeta, which
// drives every scenario, spends CPU on every request on the same two cores as
// the server and PostgreSQL: enough to cap the bare-Echo ceiling (the
// denominator of every "× Echo") well below what wrk drives, and to take a
// large share of the cores in the mix (docs/performance-journal.md, "wrk beside
// vegeta"). wrk costs a fraction of that, so its closed runs show what the
// server does with the machine; the quiet ceilings the targets were set against
// (docs/performance.md) were read with it too. The capacity targets (discover,
// create post counting its fan-out, the mix) are judged on wrk's closed runs
// when it ran; vegeta keeps the per-request status checks and the open model
// the latency targets are read from. wrk counts answers other than 2xx/3xx and
// socket errors, and any fails the run.

// wrkScenarios are the scenarios wrk runs too: those of the targets.
var wrkScenarios = map[string]bool{"feed_home": true, "discover": true, "post": true, "create_post": true, "mix": true}

// wrkPhase is one wrk run and what the server and database did meanwhile.
type wrkPhase struct {
	Load     string  `json:"load"`
	Requests int     `json:"requests"`
	Seconds  float64 `json:"seconds"`
	// Running is wrk's own measure of the run: from its first request to
	// its stop, without the start (each thread loads and formats its
	// file of requests first, which takes a while with bodies) and the exit
	// that Seconds, the process's wall time, includes.
	Running    float64 `json:"running_seconds,omitempty"`
	RPS        float64 `json:"rps"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Non2xx     int     `json:"non_2xx_3xx"`
	SocketErrs int     `json:"socket_errors"`
	ServerCPU  float64 `json:"server_cpu_cores,omitempty"`
	PGCPU      float64 `json:"pg_cpu_cores,omitempty"`
	// PGBackgroundCPU is the part of PGCPU no backend serving queries
	// used (autovacuum, checkpointer, writers), and Maintenance what
	// PostgreSQL's maintenance ran meanwhile, as for vegeta's phases.
	PGBackgroundCPU float64  `json:"pg_background_cpu_cores,omitempty"`
	Maintenance     []string `json:"maintenance,omitempty"`
	LoadGenCPU      float64  `json:"loadgen_cpu_cores"`
	MachineBusy     float64  `json:"machine_busy"`
	MachineSteal    float64  `json:"machine_steal"`
}

// wrkScript gives every wrk thread the requests of a file of lines
// "<method>\t<path>\t<bearer token>\t<JSON body>" (token and body may be
// empty; encoding/json never writes a raw tab or newline), pre-formatted
// once, sent in turn from a point of the file that differs per thread.
const wrkScript = `
local reqs = {}
local i = 0
function init(args)
  for line in io.lines(args[1]) do
    local method, path, token, body = line:match("^([^\t]+)\t([^\t]+)\t([^\t]*)\t(.*)$")
    local headers = {}
    if token ~= "" then headers["Authorization"] = "Bearer " .. token end
    if body == "" then
      body = nil
    else
      headers["Content-Type"] = "application/json"
    end
    reqs[#reqs + 1] = wrk.format(method, path, headers, body)
  end
  math.randomseed(tonumber(tostring({}):match("0x(%x+)"), 16) or os.time())
  i = math.random(#reqs)
end
function request()
  i = i % #reqs + 1
  return reqs[i]
end
`

// wrkRequests is how many requests the file of a wrk run holds: more than
// a 10 s closed run of any scenario sends, so that a write is repeated
// rarely (both threads start at a random point of it).
const wrkRequests = 40_000

// wrkRun runs wrk closed (d.opt.conns connections, 2 threads) against base
// with n requests drawn by gen (GET only), for the closed duration, with
// the resource readings around it when withServer.
func (d *driver) wrkRun(ctx context.Context, base string, gen func(*rand.Rand) target, seed uint64, withServer bool) (wrkPhase, error) {
	o := d.opt
	dir, err := os.MkdirTemp("", "socialwrk")
	if err != nil {
		return wrkPhase{}, err
	}
	defer os.RemoveAll(dir)
	script, reqs := filepath.Join(dir, "requests.lua"), filepath.Join(dir, "requests.tsv")
	if err := os.WriteFile(script, []byte(wrkScript), 0o644); err != nil {
		return wrkPhase{}, err
	}
	f, err := os.Create(reqs)
	if err != nil {
		return wrkPhase{}, err
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(seed, 77))
	for range wrkRequests {
		t := gen(r)
		token := strings.TrimPrefix(strings.Join(t.Header["Authorization"], ""), "Bearer ")
		if strings.ContainsAny(t.URL+token+string(t.Body), "\t\n") {
			f.Close()
			return wrkPhase{}, fmt.Errorf("wrk: a tab or newline in %s %s", t.Method, t.URL)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", t.Method, t.URL, token, t.Body)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return wrkPhase{}, err
	}
	if err := f.Close(); err != nil {
		return wrkPhase{}, err
	}
	secs := max(1, int(o.closed.Seconds()))
	p := wrkPhase{Load: fmt.Sprintf("closed, wrk, %d connections, %ds", o.conns, secs)}
	var maint0 map[string]int64
	if withServer {
		maint0 = d.maintenance(ctx)
	}
	cpu0 := d.readCPU()
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, o.wrk, "-t2", "-c"+strconv.Itoa(o.conns), "-d"+strconv.Itoa(secs)+"s", "--latency",
		"-s", script, base, "--", reqs)
	out, err := cmd.Output()
	wall := time.Since(t0).Seconds()
	p.Seconds = wall
	if err != nil {
		return p, fmt.Errorf("wrk: %w: %s", err, lastLines(string(out), 5))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.LoadGenCPU = (tv(ru.Utime) + tv(ru.Stime)) / wall
	}
	use := cpu0.since(d, wall)
	p.MachineBusy, p.MachineSteal = use.busy, use.steal
	if withServer {
		p.ServerCPU, p.PGCPU, p.PGBackgroundCPU = use.server, use.pg, use.pgBackground
		p.Maintenance = maintenanceDelta(maint0, d.maintenance(ctx))
	}
	if err := parseWrk(string(out), &p); err != nil {
		return p, err
	}
	return p, nil
}

var (
	wrkRPSRe      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkRequestsRe = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m)\b`)
	wrkNon2xxRe   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSocketRe   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkPctRe      = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
)

// parseWrk reads wrk's summary (with --latency) into p.
func parseWrk(out string, p *wrkPhase) error {
	m := wrkRPSRe.FindStringSubmatch(out)
	if m == nil {
		return fmt.Errorf("wrk: no Requests/sec in %q", lastLines(out, 8))
	}
	p.RPS, _ = strconv.ParseFloat(m[1], 64)
	if m := wrkRequestsRe.FindStringSubmatch(out); m != nil {
		p.Requests, _ = strconv.Atoi(m[1])
		v, _ := strconv.ParseFloat(m[2], 64)
		p.Running = v * map[string]float64{"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60}[m[3]]
	}
	if m := wrkNon2xxRe.FindStringSubmatch(out); m != nil {
		p.Non2xx, _ = strconv.Atoi(m[1])
	}
	if m := wrkSocketRe.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.Atoi(s)
			p.SocketErrs += n
		}
	}
	for _, m := range wrkPctRe.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[3] {
		case "us":
			v /= 1000
		case "s":
			v *= 1000
		}
		if m[1] == "50" {
			p.P50 = v
		} else {
			p.P99 = v
		}
	}
	return nil
}
