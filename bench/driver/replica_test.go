package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestParseRouted reads the server's replica metrics as its metrics
// listener writes them: every target but "primary" is the replica.
func TestParseRouted(t *testing.T) {
	const text = `# HELP socialapi_routed_reads_total Requests of the replica-eligible operations by where their reads went.
# TYPE socialapi_routed_reads_total counter
socialapi_routed_reads_total{target="127.0.0.1:54351/bench_small"} 900
socialapi_routed_reads_total{target="127.0.0.1:54352/bench_small"} 50
socialapi_routed_reads_total{target="primary"} 100
# TYPE socialapi_replica_fallbacks_total counter
socialapi_replica_fallbacks_total 3
socialapi_replica_lag_seconds{replica="127.0.0.1:54351/bench_small"} 0.25
socialapi_replica_lag_seconds{replica="127.0.0.1:54352/bench_small"} 1.5
socialapi_replica_serving{replica="127.0.0.1:54351/bench_small"} 1
go_goroutines 42
`
	got, err := parseRouted(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if want := (routed{primary: 100, replica: 950, fallbacks: 3, lag: 1.5}); got != want {
		t.Fatalf("parseRouted = %+v, want %+v", got, want)
	}
	// Without replicas the server exports none of them.
	if got, _ := parseRouted(strings.NewReader("go_goroutines 42\n")); got != (routed{}) {
		t.Fatalf("no replica metrics: %+v", got)
	}
}

func TestCPUReadingToReplica(t *testing.T) {
	before := cpuReading{replica: 5, replicaClients: map[int]float64{7: 1}}
	// Over 2 s the replica used 2 s, of which its backend 7 used 1 s and
	// the new backend 8 0.5 s: 0.5 s of replay.
	after := cpuReading{replica: 7, replicaClients: map[int]float64{7: 2, 8: 0.5}}
	u := before.to(after, 2)
	if math.Abs(u.replica-1) > 1e-9 || math.Abs(u.replicaBackground-0.25) > 1e-9 {
		t.Fatalf("replica %v background %v, want 1 and 0.25", u.replica, u.replicaBackground)
	}
}

func TestReplicaDelta(t *testing.T) {
	before := replicaReading{
		stmts:  map[int64]statement{1: {calls: 10, hit: 100, totalMS: 5}, 2: {calls: 4, hit: 40, read: 1, totalMS: 2}},
		routed: routed{primary: 10, replica: 20, fallbacks: 1},
	}
	after := replicaReading{
		stmts: map[int64]statement{
			1: {calls: 110, hit: 1100, read: 20, totalMS: 55},
			2: {calls: 4, hit: 40, read: 1, totalMS: 2}, // not called: left out
			3: {calls: 100, hit: 400, totalMS: 45},      // new since before
		},
		routed: routed{primary: 60, replica: 220, fallbacks: 1, lag: 0.5},
	}
	r := replicaDelta(before, after, cpuUse{replica: 0.8, replicaBackground: 0.1}, 200)
	want := replicaPhase{CPU: 0.8, BackgroundCPU: 0.1, StatementsPerReq: 1, BlocksHitPerReq: 7, BlocksReadPerReq: 0.1,
		DBTimePerReqMS: 0.475, ReadsPrimary: 50, ReadsReplica: 200, Fallbacks: 0, LagSeconds: 0.5}
	if *r != want {
		t.Fatalf("replicaDelta = %+v\nwant          %+v", *r, want)
	}
	if got := r.ReplicaShare(); got != 0.8 {
		t.Fatalf("share = %v, want 0.8", got)
	}
	if got := (&replicaPhase{}).ReplicaShare(); got != 0 {
		t.Fatalf("share of no routed read = %v, want 0", got)
	}
}

// TestReplicaSection checks the report's "Primary and replica" section and
// JSON with a replica, and that without one the report is as before.
func TestReplicaSection(t *testing.T) {
	closed := phase{Load: "closed, 64 connections, 2s", Requests: 2000, RPS: 1000, PGCPU: 0.5, StatementsPerReq: 1.2,
		Replica: &replicaPhase{CPU: 0.4, BackgroundCPU: 0.05, StatementsPerReq: 0.9, DBTimePerReqMS: 0.12, BlocksHitPerReq: 30,
			ReadsPrimary: 100, ReadsReplica: 1900, Fallbacks: 2, LagSeconds: 0.01}}
	write := phase{Load: "closed, 64 connections, 2s", Requests: 500, RPS: 250, PGCPU: 0.9, StatementsPerReq: 6,
		Replica: &replicaPhase{CPU: 0.1, BackgroundCPU: 0.1}}
	rep := &report{CPUs: 2, Replica: &replicaInfo{Note: "One streaming standby."},
		Scenarios: []scenarioReport{{Name: "feed_home", Closed: closed}, {Name: "create_post", Write: true, Closed: write},
			{Name: "feed_home_deep", Skipped: "no deep pages"}}}
	md := rep.markdown()
	for _, want := range []string{
		"\n## Primary and replica\n\nOne streaming standby. ",
		"On 2 cores with both clusters, the API server and the load generator on one machine, this proves the routing, not capacity",
		"| feed_home | closed | 1000 | 0.50 (0.50) | 0.40 (0.40) | 0.05 | 1.20 | 0.90 | 0.12 | 30 | 95.0 % (1900 of 2000) | 2 | 0.01 |",
		"| create_post | closed | 250 | 0.90 (3.60) | 0.10 (0.40) | 0.10 | 6.00 | 0.00 | 0.00 | 0 | – | 0 | 0.00 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| feed_home_deep |") && strings.Contains(md[strings.Index(md, "## Primary and replica"):], "| feed_home_deep |") {
		t.Errorf("a skipped scenario has a replica row")
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"replica":{"note":"One streaming standby."}`, `"routed_reads_replica":1900`, `"routed_reads_primary":100`,
		`"cpu_cores":0.4`, `"statements_per_request":0.9`, `"fallbacks":2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.json lacks %s", want)
		}
	}

	// Without a replica: no section, no JSON field, the same report.
	rep.Replica = nil
	rep.Scenarios[0].Closed.Replica, rep.Scenarios[1].Closed.Replica = nil, nil
	if md := rep.markdown(); strings.Contains(md, "replica") {
		t.Errorf("a report without a replica mentions one:\n%s", md)
	}
	if b, _ := json.Marshal(rep); strings.Contains(string(b), "replica") {
		t.Errorf("report.json without a replica has replica fields: %s", b)
	}
}
