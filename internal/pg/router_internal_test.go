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
	if len(r.samples) != 1 || r.samples[0].lsn != 300 {
		t.Errorf("samples older than 2 × MaxLag kept: %v", r.samples)
	}
}
