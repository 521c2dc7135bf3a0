// Command growth compares two bench reports of the same scenarios and
// prints, per scenario, what a request costs in each and the ratio. Made
// for data sets of different sizes (`make bench-growth`: the default scale
// and 3x), where a read whose per-request cost grows more than the target
// (1.25x by default) is marked: cost that grows with the network is a
// missing index or a statement that reads what it does not return. `make
// bench-cores` uses it for one data set served with different GOMAXPROCS
// (-target 0: nothing marked; -a and -b name the sides).
//
//	go run ./bench/growth [-target 1.25] [-a name -b name] [-title t] first.json second.json
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
	target := flag.Float64("target", 1.25, "the largest growth of a read's per-request cost that is not marked (0: mark nothing)")
	la := flag.String("a", "", "name of the first report's side (default: its scale)")
	lb := flag.String("b", "", "name of the second report's side (default: its scale)")
	title := flag.String("title", "", "the heading (default: cost as the data grows)")
	gen := flag.Bool("gen", true, "state how long each data set took to generate")
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
	for i, l := range []string{*la, *lb} {
		if l != "" {
			rs[i].Scale = l
		}
	}
	if *title == "" {
		*title = "Cost as the data grows: " + rs[1].Scale + " against " + rs[0].Scale
	}
	if !*gen {
		rs[0].Generated, rs[1].Generated = "-", "-"
	}
	if marked := write(os.Stdout, *title, rs[0], rs[1], *target); marked > 0 {
		fmt.Fprintf(os.Stderr, "growth: %d read(s) above %.2fx\n", marked, *target)
	}
}

// genTime is the data generation time a report's "generated" line states.
var genTime = regexp.MustCompile(` in (\d+ s) `)

// write prints the comparison of a (smaller) and b (larger) and returns how
// many reads grew above target.
func write(w io.Writer, title string, a, b report, target float64) (marked int) {
	fmt.Fprintf(w, "# %s\n\n", title)
	for _, r := range []report{a, b} {
		if r.Generated == "-" {
			continue
		}
		if m := genTime.FindStringSubmatch(r.Generated); m != nil {
			fmt.Fprintf(w, "- %s data set generated in %s\n", r.Scale, m[1])
		} else {
			fmt.Fprintf(w, "- %s data set reused from an earlier generation\n", r.Scale)
		}
	}
	fmt.Fprintf(w, "\nPer request: PostgreSQL execution time (pg_stat_statements), shared buffers (hit + read), "+
		"CPU of the server and PostgreSQL. Ratios are %s ÷ %s.", b.Scale, a.Scale)
	if target > 0 {
		fmt.Fprintf(w, " A read above %.2fx is marked ✗.", target)
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| scenario | req/s | p99 ms | PG ms/req | buffers/req | CPU ms/req | req/s ratio | PG ms ratio | buffers ratio | CPU ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
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
		if target > 0 && !sa.Write && (ratios[0] > target || ratios[1] > target) {
			mark, marked = " ✗", marked+1
		}
		fmt.Fprintf(w, "| %s%s | %.0f → %.0f | %.1f → %.1f | %.3f → %.3f | %.1f → %.1f | %.3f → %.3f | %.2f | %.2f | %.2f | %.2f |\n",
			sa.Name, mark, ca.RPS, cb.RPS, ca.P99, cb.P99, ca.DBExecMS, cb.DBExecMS, bufA, bufB, cpuA, cpuB,
			ratio(cb.RPS, ca.RPS), ratios[0], ratios[1], ratios[2])
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
