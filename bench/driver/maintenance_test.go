package main

import (
	"slices"
	"testing"
)

func TestMaintenanceDelta(t *testing.T) {
	before := map[string]int64{"autovacuum posts": 2, "autoanalyze posts": 5, "checkpoint (timed)": 8}
	after := map[string]int64{"autovacuum posts": 2, "autoanalyze posts": 7, "checkpoint (timed)": 9, "autovacuum api_tokens": 1}
	got := maintenanceDelta(before, after)
	want := []string{"autoanalyze posts ×2", "autovacuum api_tokens", "checkpoint (timed)"}
	if !slices.Equal(got, want) {
		t.Fatalf("maintenanceDelta = %q, want %q", got, want)
	}
	if got := maintenanceDelta(after, after); got != nil {
		t.Fatalf("nothing ran, got %q", got)
	}
}

func TestParseWrk(t *testing.T) {
	out := `Running 10s test @ http://127.0.0.1:18081
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.03ms    1.20ms  33.41ms   93.06%
  Latency Distribution
     50%  796.00us
     75%    1.13ms
     90%    1.58ms
     99%    1.20s
  672426 requests in 10.00s, 103.24MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 12
Requests/sec:  67209.41
Transfer/sec:     10.32MB
`
	var p wrkPhase
	if err := parseWrk(out, &p); err != nil {
		t.Fatal(err)
	}
	if p.RPS != 67209.41 || p.Requests != 672426 || p.Non2xx != 12 || p.SocketErrs != 3 || p.P50 != 0.796 || p.P99 != 1200 || p.Running != 10 {
		t.Fatalf("parsed %+v", p)
	}
	if err := parseWrk("unable to connect", &p); err == nil {
		t.Fatal("no error for output without Requests/sec")
	}
}

// TestWrkPerRequest: a CPU share read over wrk's wall time is divided by
// the requests over that wall time, not by wrk's own (shorter) rate.
func TestWrkPerRequest(t *testing.T) {
	w := wrkPhase{Requests: 20_000, Seconds: 10.5, Running: 10, RPS: 2000}
	if got := w.perRequest(1); got != "0.53" {
		t.Fatalf("1 core over 10.5 s of 20,000 requests = %s ms a request, want 0.53", got)
	}
	if got := (&wrkPhase{}).perRequest(1); got != "" {
		t.Fatalf("no requests: %q, want empty", got)
	}
}
