// Command growth compares two bench reports of the same scenarios on data
// sets of different sizes (`make bench-growth`: the default scale and 3x)
// and prints, per scenario, what a request costs at each size and the
// ratio. A read whose per-request cost grows more than the target (1.25x
// by default) is marked: cost that grows with the network is a missing
// index or a statement that reads what it does not return.
//
//	go run ./bench/growth [-target 1.25] small.json big.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
)

type phase struct {
	RPS        float64 `json:"rps"`
	P99        float64 `json:"p99_ms"`
	ServerCPU  float64 `json:"server_cpu_cores"`
	PGCPU      float64 `json:"pg_cpu_cores"`
	BlocksHit  float64 `json:"shared_blocks_hit_per_request"`
	BlocksRead float64 `json:"shared_blocks_read_per_request"`
	DBExecMS   float64 `json:"db_exec_ms_per_request"`
	Errors     int     `json:"errors"`
}

type scenario struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Write  bool   `json:"write"`
	Closed phase  `json:"closed"`
}

type report struct {
	Scale     string     `json:"scale"`
	Generated string     `json:"generated"`
	Scenarios []scenario `json:"scenarios"`
}

func main() {
	target := flag.Float64("target", 1.25, "the largest growth of a read's per-request cost that is not marked")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: growth [-target 1.25] small.json big.json")
		os.Exit(2)
	}
	var rs [2]report
	for i := range rs {
		b, err := os.ReadFile(flag.Arg(i))
		if err == nil {
			err = json.Unmarshal(b, &rs[i])
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "growth: %s: %v\n", flag.Arg(i), err)
			os.Exit(1)
		}
	}
	if marked := write(os.Stdout, rs[0], rs[1], *target); marked > 0 {
		fmt.Fprintf(os.Stderr, "growth: %d read(s) above %.2fx\n", marked, *target)
	}
}

// genTime is the data generation time a report's "generated" line states.
var genTime = regexp.MustCompile(` in (\d+ s) `)

// write prints the comparison of a (smaller) and b (larger) and returns how
// many reads grew above target.
func write(w io.Writer, a, b report, target float64) (marked int) {
	fmt.Fprintf(w, "# Cost as the data grows: %s against %s\n\n", b.Scale, a.Scale)
	for _, r := range []report{a, b} {
		if m := genTime.FindStringSubmatch(r.Generated); m != nil {
			fmt.Fprintf(w, "- %s data set generated in %s\n", r.Scale, m[1])
		} else {
			fmt.Fprintf(w, "- %s data set reused from an earlier generation\n", r.Scale)
		}
	}
	fmt.Fprintf(w, "\nPer request: PostgreSQL execution time (pg_stat_statements), shared buffers (hit + read), "+
		"CPU of the server and PostgreSQL. Ratios are %s ÷ %s; a read above %.2fx is marked ✗.\n\n", b.Scale, a.Scale, target)
	fmt.Fprintln(w, "| scenario | req/s | p99 ms | PG ms/req | buffers/req | CPU ms/req | PG ms ratio | buffers ratio | CPU ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	byName := map[string]scenario{}
	for _, s := range b.Scenarios {
		byName[s.Name] = s
	}
	for _, sa := range a.Scenarios {
		sb, ok := byName[sa.Name]
		if !ok {
			continue
		}
		ca, cb := sa.Closed, sb.Closed
		bufA, bufB := ca.BlocksHit+ca.BlocksRead, cb.BlocksHit+cb.BlocksRead
		cpuA, cpuB := cpuPerReq(ca), cpuPerReq(cb)
		ratios := []float64{ratio(cb.DBExecMS, ca.DBExecMS), ratio(bufB, bufA), ratio(cpuB, cpuA)}
		mark := ""
		if !sa.Write && (ratios[0] > target || ratios[1] > target) {
			mark, marked = " ✗", marked+1
		}
		fmt.Fprintf(w, "| %s%s | %.0f → %.0f | %.1f → %.1f | %.3f → %.3f | %.1f → %.1f | %.3f → %.3f | %.2f | %.2f | %.2f |\n",
			sa.Name, mark, ca.RPS, cb.RPS, ca.P99, cb.P99, ca.DBExecMS, cb.DBExecMS, bufA, bufB, cpuA, cpuB,
			ratios[0], ratios[1], ratios[2])
	}
	return marked
}

// cpuPerReq is the server's and PostgreSQL's CPU time per request, in ms.
func cpuPerReq(p phase) float64 {
	if p.RPS == 0 {
		return 0
	}
	return (p.ServerCPU + p.PGCPU) / p.RPS * 1000
}

func ratio(b, a float64) float64 {
	if a == 0 {
		return 0
	}
	return b / a
}
