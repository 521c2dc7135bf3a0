package main

import (
	"strings"
	"testing"
)

func TestMachineFactorTakesTheStricterCeiling(t *testing.T) {
	rep := &report{PgbenchTPS: 25_000, HelloWrkRPS: 42_000}
	if got := rep.machineFactor(); got != 0.6 {
		t.Fatalf("factor with wrk = %v, want 0.6 (42,000 / 70,000 beats 25,000 / 50,000)", got)
	}
	rep.HelloWrkRPS = 0
	if got := rep.machineFactor(); got != 0.5 {
		t.Fatalf("factor without wrk = %v, want pgbench's 0.5", got)
	}
	if got := (&report{}).machineFactor(); got != 0 {
		t.Fatalf("factor without ceilings = %v, want 0", got)
	}
}

func TestScaledRateTarget(t *testing.T) {
	rep := &report{PgbenchTPS: 25_000, HelloWrkRPS: 42_000}
	s := &scenarioReport{Closed: phase{RPS: 1600}}
	if got, want := rep.scaled("feed_home", s), "2,500 × 0.60 = 1,500 req/s: reached (1,600)"; got != want {
		t.Fatalf("feed_home: %q, want %q", got, want)
	}
	s.Closed.RPS = 1499
	if got := rep.scaled("feed_home", s); !strings.Contains(got, "not reached (1,499)") {
		t.Fatalf("feed_home below: %q", got)
	}
	if got := rep.scaled("post", s); got != "" {
		t.Fatalf("post has a ratio target, not a rate: %q", got)
	}
	if got := (&report{}).scaled("feed_home", s); got != "" {
		t.Fatalf("without ceilings: %q", got)
	}
}

func TestFinishKeepsMetApartFromScaled(t *testing.T) {
	rep := &report{
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

func TestHumanInt(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 500: "500", 2500: "2,500", 70_000: "70,000", 1_234_567: "1,234,567"} {
		if got := humanInt(v); got != want {
			t.Errorf("humanInt(%v) = %q, want %q", v, got, want)
		}
	}
}
