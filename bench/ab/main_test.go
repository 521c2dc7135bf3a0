package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	// ln 0.9 ≈ -0.10536, ln 1.0 = 0, ln 1.1 ≈ 0.09531: mean -0.00335,
	// sd 0.10036, half-width 4.303 · 0.10036 / √3 = 0.24934.
	s := summarize([]float64{0.9, 1.0, 1.1})
	if math.Abs(s.mean-math.Exp(-0.00335)) > 1e-4 || math.Abs(s.lo-math.Exp(-0.00335-0.24934)) > 1e-3 ||
		math.Abs(s.hi-math.Exp(-0.00335+0.24934)) > 1e-3 {
		t.Fatalf("summarize = %+v", s)
	}
	if v := s.verdict(); v != "within noise" {
		t.Fatalf("verdict %q", v)
	}
	if v := summarize([]float64{0.90, 0.91, 0.89, 0.92}).verdict(); v != "slower" {
		t.Fatalf("a steady 10 %% loss: %q", v)
	}
	if v := summarize([]float64{1.08, 1.10, 1.09}).verdict(); v != "faster" {
		t.Fatalf("a steady 9 %% gain: %q", v)
	}
	if v := summarize([]float64{0.8}).verdict(); v != "too few pairs" {
		t.Fatalf("one pair: %q", v)
	}
}

func TestPairsTakeNeighboursOfDifferentSides(t *testing.T) {
	var runs []run
	for i, side := range strings.Fields("new old old new new old") {
		runs = append(runs, run{n: i + 2, side: side})
	}
	ps := pairs(runs)
	var got []string
	for _, p := range ps {
		if p[0].side != "new" || p[1].side != "old" {
			t.Fatalf("pair %+v is not (new, old)", p)
		}
		got = append(got, fmt.Sprintf("%d/%d", p[0].n, p[1].n))
	}
	if strings.Join(got, " ") != "2/3 5/4 6/7" {
		t.Fatalf("pairs %v", got)
	}
	aa := sameSide(runs, func(r run) (float64, bool) { return float64(r.n), true })
	if len(aa) != 2 || aa[0] != 4.0/3 || aa[1] != 6.0/5 {
		t.Fatalf("A/A %v", aa)
	}
}

// TestReport writes reports of a new side 10 % slower on "feed" (and a
// hour that drifts between pairs) and unchanged on "post" (drifting within
// pairs too), and reads the verdicts.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	noise := []float64{1.00, 0.97, 1.03, 1.02, 0.98, 1.01, 0.99}
	put := func(n int, side string, feed, post, mix, streams float64) {
		r := map[string]any{"scenarios": []map[string]any{
			{"name": "feed", "ratio_to_hello": feed, "closed": map[string]any{"rps": feed * 1000}},
			{"name": "post", "ratio_to_hello": post, "closed": map[string]any{"rps": post * 1000}},
			{"name": "mix", "ratio_to_hello": mix, "closed": map[string]any{"rps": mix * 1000}},
			{"name": "mix_streams", "ratio_to_hello": streams, "closed": map[string]any{"rps": streams * 1000}},
		}}
		b, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d-%s.json", n, side)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(1, "warm", 5, 5, 5, 5) // left out: it would move every mean
	for i, side := range strings.Fields("new old old new new old") {
		f := noise[i]
		feed := 0.12 * noise[i/2] // the same in both runs of a pair: each pair says 0.9
		if side == "new" {
			feed *= 0.9
		}
		put(i+2, side, feed, 0.2*f*noise[6-i], 0.07*f, 0.07*f*0.88)
	}
	runs, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 6 {
		t.Fatalf("%d runs, want 6 (the warm-up left out)", len(runs))
	}
	var out bytes.Buffer
	if err := write(&out, runs, "mix_streams/mix"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"# Paired A/B: 6 runs, 3 pairs", "| feed |", "| post |", "| slower |", "| within noise |",
		"mix_streams ÷ mix in each run (req/s; every run is a pair): 0.880, 0.880",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	feedLine := lineOf(text, "| feed |")
	if !strings.HasSuffix(feedLine, "| slower |") || !strings.Contains(feedLine, "0.900 [") {
		t.Errorf("feed: %s", feedLine)
	}
	if postLine := lineOf(text, "| post |"); !strings.HasSuffix(postLine, "| within noise |") {
		t.Errorf("post: %s", postLine)
	}
	if !strings.Contains(text, "0.880 [0.880, 0.880]: slower.") {
		t.Errorf("within-run ratio:\n%s", text)
	}
}

func lineOf(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
