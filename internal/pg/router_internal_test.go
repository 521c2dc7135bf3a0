package pg

import (
	"testing"
	"time"
)

func TestParseLSN(t *testing.T) {
	for in, want := range map[string]uint64{"0/0": 0, "0/3A5C9D0": 0x3A5C9D0, "16/B374D848": 0x16<<32 | 0xB374D848} {
		if got, err := ParseLSN(in); err != nil || got != want {
			t.Errorf("ParseLSN(%q) = %x, %v; want %x", in, got, err, want)
		}
	}
	for _, in := range []string{"", "12", "x/1", "1/x", "100000000/0"} {
		if _, err := ParseLSN(in); err == nil {
			t.Errorf("ParseLSN(%q) accepted", in)
		}
	}
}

// TestLagIsTime: a replica's lag is how long the primary has had WAL it
// lacks; an idle primary adds none, and old samples go.
func TestLagIsTime(t *testing.T) {
	r := &Router{opt: RouterOptions{MaxLag: time.Second}}
	t0 := time.Unix(1000, 0)
	r.observe(100, t0)
	r.observe(100, t0.Add(time.Second)) // no new WAL: the first sighting stays
	r.observe(200, t0.Add(2*time.Second))
	now := t0.Add(2500 * time.Millisecond)
	for _, tt := range []struct {
		replay uint64
		want   time.Duration
	}{{50, 2500 * time.Millisecond}, {100, 500 * time.Millisecond}, {150, 500 * time.Millisecond}, {200, 0}, {300, 0}} {
		if got := r.lagOf(tt.replay, now); got != tt.want {
			t.Errorf("lagOf(%d) = %s, want %s", tt.replay, got, tt.want)
		}
	}
	r.observe(300, t0.Add(10*time.Second))
	if len(r.samples) != 2 || r.samples[0].lsn != 200 {
		t.Errorf("samples = %v; want the newest older than 2 × MaxLag and the new one", r.samples)
	}
	// A replica behind every sample kept lags at least the oldest one's age.
	if got := r.lagOf(50, t0.Add(10*time.Second)); got != 8*time.Second {
		t.Errorf("lagOf(50) after old samples went = %s, want 8s", got)
	}
	// WAL after a long quiet: the quiet is no lag, but a replica still behind
	// the WAL before it is as late as that WAL is old.
	r.observe(400, t0.Add(600*time.Second))
	if got := r.lagOf(250, t0.Add(600*time.Second)); got != 590*time.Second {
		t.Errorf("lagOf(250) after a quiet = %s, want 590s", got)
	}
	if got := r.lagOf(300, t0.Add(600*time.Second)); got != 0 {
		t.Errorf("lagOf(300) after a quiet = %s, want 0", got)
	}
}
