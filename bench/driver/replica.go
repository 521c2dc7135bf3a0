package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The read replica (bench.sh's BENCH_REPLICA=1): a streaming standby of the
// benchmark cluster on the same machine, which the API server reads from
// through DATABASE_REPLICA_URLS. Around every vegeta run the driver reads,
// beside the primary's figures, the replica's CPU (its postmaster's process
// tree, as the primary's), its pg_stat_statements in the benchmark database
// and the server's routed-read counters (socialapi_routed_reads_total by
// target, socialapi_replica_fallbacks_total) from its metrics listener. All
// of it is nil without a replica, and the report is then unchanged.

// replicaInfo is the report's note on the replica.
type replicaInfo struct {
	Note string `json:"note,omitempty"`
}

// replicaPhase is what the replica did during one run, and where the
// server's routed reads went.
type replicaPhase struct {
	CPU float64 `json:"cpu_cores"`
	// BackgroundCPU is the part of CPU no query-serving backend used: on a
	// standby mostly WAL replay (startup, walreceiver).
	BackgroundCPU    float64 `json:"background_cpu_cores"`
	StatementsPerReq float64 `json:"statements_per_request"`
	BlocksHitPerReq  float64 `json:"shared_blocks_hit_per_request"`
	BlocksReadPerReq float64 `json:"shared_blocks_read_per_request"`
	DBTimePerReqMS   float64 `json:"db_exec_ms_per_request"`
	// ReadsPrimary and ReadsReplica are the requests of replica-eligible
	// operations the server routed to the primary (a fresh write of the
	// member, no replica well or caught up) and to a replica.
	ReadsPrimary int64 `json:"routed_reads_primary"`
	ReadsReplica int64 `json:"routed_reads_replica"`
	// Fallbacks are statements that failed on the replica and ran again on
	// the primary.
	Fallbacks int64 `json:"fallbacks"`
	// LagSeconds is the replica's lag as the server last polled it, at the
	// end of the run.
	LagSeconds float64 `json:"lag_seconds_at_end"`
}

// ReplicaShare is the share of the routed reads that went to a replica (0
// when none was routed).
func (r *replicaPhase) ReplicaShare() float64 {
	return safeDiv(float64(r.ReadsReplica), float64(r.ReadsPrimary+r.ReadsReplica))
}

// routed is one reading of the server's replica metrics.
type routed struct {
	primary, replica, fallbacks, lag float64
}

// parseRouted reads the replica metrics from a Prometheus text exposition:
// socialapi_routed_reads_total's target is "primary" or a replica's name
// (host:port/database), and every replica counts as the replica; lag is the
// largest socialapi_replica_lag_seconds.
func parseRouted(r io.Reader) (routed, error) {
	var out routed
	err := eachSample(r, out.add)
	return out, err
}

// add counts one sample of the server's metrics into rt (parseRouted).
func (rt *routed) add(name, labels string, v float64) {
	switch name {
	case "socialapi_routed_reads_total":
		if strings.Contains(labels, `target="primary"`) {
			rt.primary += v
		} else {
			rt.replica += v
		}
	case "socialapi_replica_fallbacks_total":
		rt.fallbacks += v
	case "socialapi_replica_lag_seconds":
		rt.lag = max(rt.lag, v)
	}
}

// eachSample calls f with every sample of a Prometheus text exposition: its
// metric name, its labels (the text between the braces, "" without) and
// its value. A label value may hold spaces and braces, so the labels end at
// the last '}'; a line that is not a sample is skipped.
func eachSample(r io.Reader, f func(name, labels string, v float64)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		// name{labels} value [timestamp], or name value [timestamp]
		var name, labels, rest string
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				continue
			}
			name, labels, rest = line[:i], line[i+1:j], line[j+1:]
		} else {
			var ok bool
			if name, rest, ok = strings.Cut(line, " "); !ok {
				continue
			}
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fs[0], 64)
		if err != nil {
			continue
		}
		f(name, labels, v)
	}
	return sc.Err()
}

// readMetrics reads the server's metrics listener through eachSample.
func (d *driver) readMetrics(ctx context.Context, f func(name, labels string, v float64)) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, d.opt.metrics, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return eachSample(resp.Body, f)
}

// replicaReading is the replica's statements and the server's routed reads
// at one moment (the CPU is in cpuReading); zero without a replica.
type replicaReading struct {
	stmts  map[int64]statement
	routed routed
}

func (d *driver) openReplica(ctx context.Context) error {
	var err error
	if d.replicaAdmin, err = sql.Open("postgres", d.opt.replicaAdminDB); err != nil {
		return err
	}
	if d.opt.metrics == "" {
		return fmt.Errorf("needs -metrics: the routed reads are the server's counters")
	}
	// The extension is created on the primary (run) and replayed here.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = statementsOf(ctx, d.replicaAdmin, d.datid)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *driver) replicaReport() *replicaInfo {
	if d.replicaAdmin == nil {
		return nil
	}
	return &replicaInfo{Note: d.opt.replicaNote}
}

func (d *driver) replicaReading(ctx context.Context) (replicaReading, error) {
	if d.replicaAdmin == nil {
		return replicaReading{}, nil
	}
	stmts, err := statementsOf(ctx, d.replicaAdmin, d.datid)
	if err != nil {
		return replicaReading{}, fmt.Errorf("replica: %w", err)
	}
	var rt routed
	if err := d.readMetrics(ctx, rt.add); err != nil {
		return replicaReading{}, fmt.Errorf("metrics: %w", err)
	}
	return replicaReading{stmts: stmts, routed: rt}, nil
}

// stmtTotals sums the pg_stat_statements deltas between two readings, over
// the statements called in between.
func stmtTotals(before, after map[int64]statement) (calls, hit, read int64, totalMS float64) {
	for id, a := range after {
		b := before[id]
		if a.calls-b.calls <= 0 {
			continue
		}
		calls += a.calls - b.calls
		hit += a.hit - b.hit
		read += a.read - b.read
		totalMS += a.totalMS - b.totalMS
	}
	return calls, hit, read, totalMS
}

// replicaDelta is what the replica did between two readings over a run of
// requests (use: the run's CPU, replica included).
func replicaDelta(before, after replicaReading, use cpuUse, requests int) *replicaPhase {
	r := &replicaPhase{CPU: use.replica, BackgroundCPU: use.replicaBackground,
		ReadsPrimary: int64(after.routed.primary - before.routed.primary),
		ReadsReplica: int64(after.routed.replica - before.routed.replica),
		Fallbacks:    int64(after.routed.fallbacks - before.routed.fallbacks),
		LagSeconds:   after.routed.lag}
	if requests > 0 {
		calls, hit, read, total := stmtTotals(before.stmts, after.stmts)
		req := float64(requests)
		r.StatementsPerReq, r.BlocksHitPerReq, r.BlocksReadPerReq, r.DBTimePerReqMS =
			float64(calls)/req, float64(hit)/req, float64(read)/req, total/req
	}
	return r
}

// replicaSection is the report's "Primary and replica" section, empty
// without a replica.
func (rep *report) replicaSection() string {
	if rep.Replica == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Primary and replica\n\n")
	if rep.Replica.Note != "" {
		b.WriteString(rep.Replica.Note + " ")
	}
	fmt.Fprintf(&b, "The API server sends the reads that tolerate lag to the replica (`DATABASE_REPLICA_URLS`) and keeps writes, "+
		"token checks and a member's reads right after a write of theirs on the primary. *Routed to replica* is the share of the "+
		"requests of replica-eligible operations the server sent there (`socialapi_routed_reads_total`), *fallbacks* statements that "+
		"failed on the replica and ran again on the primary; statements per request count each cluster's pg_stat_statements in the "+
		"benchmark database: the primary's include the one statement each routed request runs there (its token still counts, "+
		"and whether its member wrote lately), the replica's the server's polls of its replay. CPU in cores (ms per request).\n\n"+
		"On %d cores with both clusters, the API server and the load generator on one machine, this proves the routing, not capacity: "+
		"the replica's CPU comes out of the same cores as the primary's, so req/s here say nothing about what a replica adds.\n\n", rep.CPUs)
	b.WriteString("| scenario | run | req/s | primary CPU | replica CPU | of which replay | primary stmts/req | replica stmts/req | replica DB ms/req | replica blks hit/req | routed to replica | fallbacks | lag at end s |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range rep.Scenarios {
		if s.Skipped != "" {
			continue
		}
		for _, p := range s.phases() {
			r := p.Replica
			if r == nil {
				continue
			}
			share := "–"
			if r.ReadsPrimary+r.ReadsReplica > 0 {
				share = fmt.Sprintf("%s %% (%d of %d)", f1(r.ReplicaShare()*100), r.ReadsReplica, r.ReadsPrimary+r.ReadsReplica)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s | %s | %s | %s | %d | %s |\n",
				s.Name, strings.SplitN(p.Load, ",", 2)[0], f0(p.RPS),
				f2(p.PGCPU), f2(safeDiv(p.PGCPU*1000, p.RPS)), f2(r.CPU), f2(safeDiv(r.CPU*1000, p.RPS)), f2(r.BackgroundCPU),
				f2(p.StatementsPerReq), f2(r.StatementsPerReq), f2(r.DBTimePerReqMS), f0(r.BlocksHitPerReq),
				share, r.Fallbacks, f2(r.LagSeconds))
		}
	}
	return b.String()
}
