// Command ab reads the reports of a paired A/B (bench/ab.sh) and writes, per
// scenario, each run's throughput ÷ the bare Echo ceiling of the same run,
// the new ÷ old ratio of each pair, their geometric mean with a 95 %
// confidence interval, the spread between neighbouring runs of the same
// server (A/A), and a verdict:
//
//	within noise  the interval holds 1: the pairs do not tell the sides apart
//	slower/faster the whole interval is below/above 1
//
// With -within a/b it does the same for scenario a ÷ scenario b inside each
// run (e.g. mix_streams/mix: what holding streams costs the mix), every run
// counting as one pair.
//
// The reports are NN-SIDE.json in one directory, NN the run's position and
// SIDE old, new or warm (a throwaway first run, left out). A pair is two
// neighbouring runs of different sides; ab.sh orders them new old old new
// new old …, so each side runs first as often as second and the neighbours
// of the same side measure the noise of the hour.
//
//	go run ./bench/ab [-within a/b] DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type scenario struct {
	Name   string  `json:"name"`
	Ratio  float64 `json:"ratio_to_hello"`
	Closed struct {
		RPS float64 `json:"rps"`
	} `json:"closed"`
}

type report struct {
	Scenarios []scenario `json:"scenarios"`
}

// run is one report: its position, its side and its scenarios by name.
type run struct {
	n      int
	side   string
	names  []string
	byName map[string]scenario
}

var fileName = regexp.MustCompile(`^(\d+)-(old|new|warm)\.json$`)

func main() {
	within := flag.String("within", "", "also compare scenario a with scenario b inside each run (a/b)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: ab [-within a/b] DIR")
		os.Exit(2)
	}
	runs, err := load(flag.Arg(0))
	if err == nil {
		err = write(os.Stdout, runs, *within)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ab:", err)
		os.Exit(1)
	}
}

// load reads the reports of dir in run order, the warm-up left out.
func load(dir string) ([]run, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var runs []run
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil || m[2] == "warm" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		n, _ := strconv.Atoi(m[1])
		rn := run{n: n, side: m[2], byName: map[string]scenario{}}
		for _, s := range r.Scenarios {
			rn.names = append(rn.names, s.Name)
			rn.byName[s.Name] = s
		}
		runs = append(runs, rn)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].n < runs[j].n })
	if len(runs) < 2 {
		return nil, fmt.Errorf("%s: %d runs, a pair needs two", dir, len(runs))
	}
	return runs, nil
}

// pairs returns the runs paired as (new, old): neighbours of different
// sides, each run in one pair at most, taken from the first.
func pairs(runs []run) [][2]run {
	var out [][2]run
	for i := 0; i+1 < len(runs); i++ {
		a, b := runs[i], runs[i+1]
		if a.side == b.side {
			continue
		}
		if a.side == "old" {
			a, b = b, a
		}
		out = append(out, [2]run{a, b})
		i++
	}
	return out
}

// sameSide returns later ÷ earlier for neighbouring runs of the same side.
func sameSide(runs []run, value func(run) (float64, bool)) []float64 {
	var out []float64
	for i := 0; i+1 < len(runs); i++ {
		if runs[i].side != runs[i+1].side {
			continue
		}
		a, okA := value(runs[i])
		b, okB := value(runs[i+1])
		if okA && okB && a > 0 {
			out = append(out, b/a)
		}
	}
	return out
}

// summary is the geometric mean of ratios with its 95 % confidence interval
// (Student's t on the logarithms).
type summary struct {
	mean, lo, hi float64
	n            int
}

func summarize(ratios []float64) summary {
	n := len(ratios)
	if n == 0 {
		return summary{}
	}
	var sum float64
	for _, r := range ratios {
		sum += math.Log(r)
	}
	m := sum / float64(n)
	s := summary{mean: math.Exp(m), lo: math.NaN(), hi: math.NaN(), n: n}
	if n < 2 {
		return s
	}
	var ss float64
	for _, r := range ratios {
		ss += (math.Log(r) - m) * (math.Log(r) - m)
	}
	half := tQuantile975(n-1) * math.Sqrt(ss/float64(n-1)/float64(n))
	s.lo, s.hi = math.Exp(m-half), math.Exp(m+half)
	return s
}

// verdict says whether the interval tells the sides apart.
func (s summary) verdict() string {
	switch {
	case s.n < 2:
		return "too few pairs"
	case s.hi < 1:
		return "slower"
	case s.lo > 1:
		return "faster"
	}
	return "within noise"
}

// tQuantile975 is Student's t 97.5 % quantile for df degrees of freedom.
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086}
	if df < len(table) {
		return table[df]
	}
	return 1.96 + 2.4/float64(df)
}

func write(w io.Writer, runs []run, within string) error {
	ps := pairs(runs)
	fmt.Fprintf(w, "# Paired A/B: %s, %s\n\n", count(len(runs), "run"), count(len(ps), "pair"))
	fmt.Fprintln(w, "Throughput ÷ the bare Echo ceiling of the same run; a pair is new ÷ old of two neighbouring")
	fmt.Fprintln(w, "runs; the mean is geometric, with its 95 % confidence interval; A/A is later ÷ earlier for")
	fmt.Fprint(w, "neighbouring runs of the same server, the noise of the hour.\n\n")
	fmt.Fprintln(w, "| scenario | old runs | new runs | new ÷ old per pair | mean [95 % CI] | A/A | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, name := range scenarioNames(runs) {
		value := func(r run) (float64, bool) { s, ok := r.byName[name]; return s.Ratio, ok && s.Ratio > 0 }
		var ratios []float64
		for _, p := range ps {
			a, okA := value(p[0])
			b, okB := value(p[1])
			if okA && okB {
				ratios = append(ratios, a/b)
			}
		}
		s := summarize(ratios)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name, sideValues(runs, "old", value),
			sideValues(runs, "new", value), join(ratios), s.text(), join(sameSide(runs, value)), s.verdict())
	}
	if within == "" {
		return nil
	}
	a, b, ok := strings.Cut(within, "/")
	if !ok || a == "" || b == "" {
		return fmt.Errorf("-within %q: want a/b", within)
	}
	value := func(r run) (float64, bool) {
		x, okA := r.byName[a]
		y, okB := r.byName[b]
		return x.Closed.RPS / y.Closed.RPS, okA && okB && y.Closed.RPS > 0
	}
	var ratios []float64
	for _, r := range runs {
		if v, ok := value(r); ok {
			ratios = append(ratios, v)
		}
	}
	s := summarize(ratios)
	fmt.Fprintf(w, "\n%s ÷ %s in each run (req/s; every run is a pair): %s; mean %s: %s.\n", a, b, join(ratios), s.text(), s.verdict())
	return nil
}

func (s summary) text() string {
	if s.n == 0 {
		return "-"
	}
	if s.n < 2 {
		return fmt.Sprintf("%.3f", s.mean)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", s.mean, s.lo, s.hi)
}

// scenarioNames lists the scenarios in the order the runs ran them.
func scenarioNames(runs []run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, k := range r.names {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	return names
}

func sideValues(runs []run, side string, value func(run) (float64, bool)) string {
	var vs []float64
	for _, r := range runs {
		if v, ok := value(r); ok && r.side == side {
			vs = append(vs, v)
		}
	}
	return join(vs)
}

func join(vs []float64) string {
	if len(vs) == 0 {
		return "-"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.3f", v)
	}
	return strings.Join(parts, ", ")
}

// count is n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
