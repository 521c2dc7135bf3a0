package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestMachineFactorTakesTheStricterCeiling(t *testing.T) {
	rep := &report{Scale: "default", PgbenchTPS: 25_000, HelloWrkRPS: 42_000}
	if got := rep.machineFactor(); got != 0.6 {
		t.Fatalf("factor with wrk = %v, want 0.6 (42,000 / 70,000 beats 25,000 / 50,000)", got)
	}
	rep.HelloWrkRPS = 0
	if got := rep.machineFactor(); got != 0.5 {
		t.Fatalf("factor without wrk = %v, want pgbench's 0.5", got)
	}
	if got := (&report{Scale: "default"}).machineFactor(); got != 0 {
		t.Fatalf("factor without ceilings = %v, want 0", got)
	}
	if got := (&report{Scale: "small", PgbenchTPS: 25_000}).machineFactor(); got != 0 {
		t.Fatalf("factor at small scale = %v, want 0 (the targets are for the default data set)", got)
	}
}

func TestScaledRateTarget(t *testing.T) {
	rep := &report{Scale: "default", PgbenchTPS: 25_000, HelloWrkRPS: 42_000}
	if got, want := rep.scaled(2500, 1600), "2,500 × 0.60 = 1,500 req/s: reached (1,600)"; got != want {
		t.Fatalf("feed_home: %q, want %q", got, want)
	}
	if got := rep.scaled(2500, 1499); !strings.Contains(got, "not reached (1,499)") {
		t.Fatalf("feed_home below: %q", got)
	}
	if got := rep.scaled(0, 1600); got != "" {
		t.Fatalf("a target without a rate (the single post's ratio): %q", got)
	}
	if got := (&report{}).scaled(2500, 1600); got != "" {
		t.Fatalf("without ceilings: %q", got)
	}
}

func TestFinishKeepsMetApartFromScaled(t *testing.T) {
	rep := &report{
		Scale:     "default",
		Ceilings:  []ceiling{{Pgbench: pgbenchResult{TPS: 25_000}}},
		Scenarios: []scenarioReport{{Name: "mix", Closed: phase{Requests: 10, RPS: 2000}}},
	}
	rep.finish()
	for _, tc := range rep.Targets {
		if strings.HasPrefix(tc.Target, "realistic mix") {
			if tc.Met {
				t.Fatalf("mix at 2,000 req/s met the 3,000 target: %+v", tc)
			}
			if !strings.Contains(tc.Scaled, "= 1,500 req/s: reached") {
				t.Fatalf("mix scaled: %q", tc.Scaled)
			}
			return
		}
	}
	t.Fatal("no mix target")
}

// TestCreatePostCountsTheFanOut checks that create post is judged on the
// posts written and fanned out per second (the run and the drain of the
// backlog it left), not on the requests answered.
func TestCreatePostCountsTheFanOut(t *testing.T) {
	for _, c := range []struct {
		name     string
		fanOut   []drain
		wrk      *wrkPhase
		wrkDrain *drain
		met      bool
		want     string
	}{
		{"drained slowly", []drain{{After: "closed", Seconds: 5}, {After: "open", Seconds: 1}}, nil, nil, false,
			"1600 req/s, 1067 posts/s including the fan-out drain of 5.0 s (vegeta)"},
		{"drained at once", []drain{{After: "closed", Seconds: 0.1}}, nil, nil, true,
			"1600 req/s, 1584 posts/s including the fan-out drain of 0.1 s (vegeta)"},
		{"no drain measured", nil, nil, nil, true, "1600 req/s (vegeta)"},
		// With wrk, its run and the drain after it are judged, vegeta's shown.
		{"wrk drained", []drain{{After: "closed", Seconds: 5}}, &wrkPhase{Requests: 18_000, Seconds: 10, RPS: 1800}, &drain{After: "wrk", Seconds: 1.5}, true,
			"1800 req/s, 1565 posts/s including the fan-out drain of 1.5 s with wrk; 1600 req/s, 1067 posts/s including the fan-out drain of 5.0 s with vegeta"},
		{"wrk's own running time", []drain{{After: "closed", Seconds: 0.1}}, &wrkPhase{Requests: 18_000, Seconds: 10.4, Running: 10, RPS: 1800}, &drain{After: "wrk", Seconds: 0.25}, true,
			"1800 req/s, 1756 posts/s including the fan-out drain of 0.2 s with wrk; 1600 req/s, 1584 posts/s including the fan-out drain of 0.1 s with vegeta"},
		{"wrk drained slowly", []drain{{After: "closed", Seconds: 0.1}}, &wrkPhase{Requests: 18_000, Seconds: 10, RPS: 1800}, &drain{After: "wrk", Seconds: 3}, false,
			"1800 req/s, 1385 posts/s including the fan-out drain of 3.0 s with wrk; 1600 req/s, 1584 posts/s including the fan-out drain of 0.1 s with vegeta"},
	} {
		rep := &report{
			Scale:    "default",
			Ceilings: []ceiling{{Pgbench: pgbenchResult{TPS: 50_000}}},
			Scenarios: []scenarioReport{{Name: "create_post", Closed: phase{Requests: 16_000, Seconds: 10, RPS: 1600}, FanOut: c.fanOut,
				Wrk: c.wrk, WrkFanOut: c.wrkDrain}},
		}
		rep.finish()
		found := false
		for _, tc := range rep.Targets {
			if !strings.HasPrefix(tc.Target, "create post") {
				continue
			}
			found = true
			if tc.Met != c.met || tc.Measured != c.want {
				t.Errorf("%s: met %v, measured %q; want %v, %q", c.name, tc.Met, tc.Measured, c.met, c.want)
			}
			if reached := !strings.Contains(tc.Scaled, "not reached"); reached != c.met {
				t.Errorf("%s: scaled %q disagrees with met %v (same rate, machine factor 1)", c.name, tc.Scaled, c.met)
			}
		}
		if !found {
			t.Fatalf("%s: no create post target", c.name)
		}
	}
}

func TestHumanInt(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 500: "500", 2500: "2,500", 70_000: "70,000", 1_234_567: "1,234,567"} {
		if got := humanInt(v); got != want {
			t.Errorf("humanInt(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestMixParts(t *testing.T) {
	alone := func(name string, serverCores, pgCores, rps float64) scenarioReport {
		return scenarioReport{Name: name, Closed: phase{Requests: 1, RPS: rps, ServerCPU: serverCores, PGCPU: pgCores}}
	}
	rep := &report{Scenarios: []scenarioReport{
		alone("feed_home", 0.6, 0.9, 1500), // 1.0 ms/req
		alone("post", 0.5, 0.5, 2000),      // 0.5 ms/req
		{Name: "mix", Closed: phase{Requests: 100, RPS: 1000, ServerCPU: 0.6, PGCPU: 0.6, PGBackgroundCPU: 0.2, // 1.2 ms/req, 1.0 serving
			Ops: []opStat{{Op: "feed_home", Requests: 60}, {Op: "post", Requests: 20}, {Op: "search", Requests: 20}}}},
	}}
	rep.finish()
	m := rep.Scenarios[2]
	if m.Parts == nil {
		t.Fatal("no parts")
	}
	// (60 × 1.0 + 20 × 0.5) / 80 = 0.875 ms; search did not run alone.
	if got := m.Parts.AloneMS; got < 0.8749 || got > 0.8751 {
		t.Errorf("alone = %v, want 0.875", got)
	}
	if got := m.Parts.MeasuredMS; got < 1.1999 || got > 1.2001 {
		t.Errorf("measured = %v, want 1.2", got)
	}
	if m.Parts.Covered != 0.8 {
		t.Errorf("covered = %v, want 0.8", m.Parts.Covered)
	}
	if m.Closed.Ops[2].AloneMS != 0 || m.Closed.Ops[1].AloneMS != 0.5 {
		t.Errorf("ops: %+v", m.Closed.Ops)
	}
	// The parts had no background: the same 0.875 ms serving.
	if got := m.Parts.MeasuredServingMS; got < 0.9999 || got > 1.0001 {
		t.Errorf("measured serving = %v, want 1.0", got)
	}
	if got := m.Parts.AloneServingMS; got < 0.8749 || got > 0.8751 {
		t.Errorf("alone serving = %v, want 0.875", got)
	}
	md := rep.markdown()
	if !strings.Contains(md, "1.37 × the sum of its parts") {
		t.Errorf("markdown lacks the comparison:\n%s", md)
	}
	if !strings.Contains(md, "1.00 ms against 0.88 ms, 1.14 ×") {
		t.Errorf("markdown lacks the comparison without background:\n%s", md)
	}
}

func TestMixReadsDrawsOnlyReads(t *testing.T) {
	if mixWeight != 1000 {
		t.Errorf("the mix's operations weigh %d ‰, want 1000", mixWeight)
	}
	if mixReadWeight != 850 {
		t.Errorf("the mix's reads weigh %d ‰, want 850", mixReadWeight)
	}
	seen := map[string]bool{}
	for _, i := range mixReads {
		seen[mixOps[i].op] = true
	}
	for _, s := range scenarios {
		if s.Write && seen[s.Name] {
			t.Errorf("mix_reads draws the write %s", s.Name)
		}
	}
	if len(seen) != 11 {
		t.Errorf("mix_reads draws %d operations, want the mix's 11 reads", len(seen))
	}
}

func TestTopStatementsKeepsTheHeavy(t *testing.T) {
	var all []stmtStat
	for i := range 12 {
		all = append(all, stmtStat{Query: fmt.Sprint("light ", i), CallsPerReq: 0.1 + float64(i)/100, HitsPerCall: 10, MeanMS: 0.1})
	}
	// Called least, but 0.02 × 1,000 = 20 blocks a request: over 5 % of 200.
	all = append(all, stmtStat{Query: "heavy", CallsPerReq: 0.02, HitsPerCall: 1000, MeanMS: 0.1})
	top := topStatements(all, 200, 2)
	if len(top) != 9 {
		t.Fatalf("kept %d statements, want the 8 most called and the heavy one", len(top))
	}
	if top[0].Query != "light 11" || top[8].Query != "heavy" {
		t.Errorf("order: first %q, last %q", top[0].Query, top[8].Query)
	}
}

// TestMixJudgedOnTheLighterClient: the mix's capacity is wrk's closed run
// when wrk ran, and one failed answer in any run fails the target.
func TestMixJudgedOnTheLighterClient(t *testing.T) {
	for _, c := range []struct {
		name    string
		vegeta  float64
		errs    int
		wrk     *wrkPhase
		met     bool
		measure string
	}{
		{"vegeta alone", 3100, 0, nil, true, "3100 req/s (vegeta), 0 errors"},
		{"wrk reaches it", 2700, 0, &wrkPhase{RPS: 3050}, true, "3050 req/s with wrk; 2700 req/s with vegeta, 0 errors"},
		{"wrk short", 3100, 0, &wrkPhase{RPS: 2900}, false, "2900 req/s with wrk; 3100 req/s with vegeta, 0 errors"},
		{"wrk got a 500", 2700, 0, &wrkPhase{RPS: 3050, Non2xx: 1}, false, "3050 req/s with wrk; 2700 req/s with vegeta, 1 errors"},
		{"vegeta got a 500", 2700, 1, &wrkPhase{RPS: 3050}, false, "3050 req/s with wrk; 2700 req/s with vegeta, 1 errors"},
	} {
		rep := &report{Scale: "default", Ceilings: []ceiling{{Pgbench: pgbenchResult{TPS: 50_000}}},
			Scenarios: []scenarioReport{{Name: "mix", Closed: phase{Requests: 10, RPS: c.vegeta, Errors: c.errs}, Wrk: c.wrk}}}
		rep.finish()
		for _, tc := range rep.Targets {
			if strings.HasPrefix(tc.Target, "realistic mix") && (tc.Met != c.met || tc.Measured != c.measure) {
				t.Errorf("%s: met %v, measured %q; want %v, %q", c.name, tc.Met, tc.Measured, c.met, c.measure)
			}
		}
	}
}

// TestSinglePostAgainstTheOneReadCeiling checks that the one-read ceilings
// (before and after, each client) are averaged and put the single post in
// context, and that they never judge it: the target is the Echo ratio.
func TestSinglePostAgainstTheOneReadCeiling(t *testing.T) {
	rep := &report{
		Scale: "default",
		Ceilings: []ceiling{
			{Hello: phase{RPS: 40_000}, HelloWrk: &wrkPhase{RPS: 110_000}, Read: &phase{RPS: 15_000}, ReadWrk: &wrkPhase{RPS: 28_000}},
			{Hello: phase{RPS: 40_000}, HelloWrk: &wrkPhase{RPS: 110_000}, Read: &phase{RPS: 17_000}, ReadWrk: &wrkPhase{RPS: 28_600}},
		},
		Scenarios: []scenarioReport{{Name: "post", Closed: phase{Requests: 10, RPS: 11_200}, Wrk: &wrkPhase{RPS: 20_350}}},
	}
	rep.finish()
	if rep.ReadRPS != 16_000 || rep.ReadWrkRPS != 28_300 {
		t.Fatalf("one-read ceilings %v and %v, want the means 16,000 and 28,300", rep.ReadRPS, rep.ReadWrkRPS)
	}
	for _, tc := range rep.Targets {
		if !strings.HasPrefix(tc.Target, "single post") {
			continue
		}
		for _, want := range []string{"0.280 × Echo (11200 req/s)", "with wrk 20350 req/s, 0.185 × Echo",
			"one-read ceiling 16000 req/s, 0.400 × Echo, of which the single post reaches 0.70",
			"with wrk 28300 req/s, 0.257 × Echo, of which 0.72"} {
			if !strings.Contains(tc.Measured, want) {
				t.Fatalf("single post measured %q, want it to contain %q", tc.Measured, want)
			}
		}
		if tc.Met {
			t.Fatalf("0.185 × Echo with wrk met the 0.25 target: %+v", tc)
		}
		if md := rep.markdown(); !strings.Contains(md, "| *ceiling: bare Echo + one PostgreSQL read* | 16000 | 0.400 |") ||
			!strings.Contains(md, "*bare Echo + one read ()*") {
			t.Fatalf("markdown lacks the one-read ceiling:\n%s", md)
		}
		return
	}
	t.Fatal("no single post target")
}
