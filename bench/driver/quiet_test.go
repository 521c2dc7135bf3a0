package main

import (
	"context"
	"testing"
	"time"
)

// TestWaitQuiet: the wait ends at the first interval under quietBusy, and
// gives up (measuring anyway) once max has passed.
func TestWaitQuiet(t *testing.T) {
	// sampler returns cumulative jiffies: 100 per interval, busy per the
	// shares given, then the last share for ever.
	sampler := func(shares ...float64) func() (float64, float64, float64) {
		var busy, total float64
		i := -1
		return func() (float64, float64, float64) {
			if i >= 0 {
				busy += 100 * shares[min(i, len(shares)-1)]
				total += 100
			}
			i++
			return busy, 0, total
		}
	}
	q := waitQuiet(context.Background(), sampler(0.9, 0.5, 0.1, 0.9), time.Millisecond, time.Minute)
	if q.TimedOut || q.Busy != 0.1 {
		t.Errorf("busy 90 %%, 50 %%, 10 %%: got %+v, want quiet at 10 %%", q)
	}
	q = waitQuiet(context.Background(), sampler(0.05), time.Millisecond, time.Minute)
	if q.TimedOut || q.Busy != 0.05 {
		t.Errorf("quiet at once: got %+v", q)
	}
	q = waitQuiet(context.Background(), sampler(0.8), time.Millisecond, 20*time.Millisecond)
	if !q.TimedOut || q.Busy != 0.8 || q.Waited < 0.02 {
		t.Errorf("always busy: got %+v, want a timeout after 20 ms at 80 %%", q)
	}
	if s := q.String(); s != "machine still 80 % busy after 0 s; measured anyway" {
		t.Errorf("String() = %q", s)
	}
}
