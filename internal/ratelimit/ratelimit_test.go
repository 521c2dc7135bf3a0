package ratelimit

import (
	"context"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	l, err := NewMemory(Quotas{Read: 5, Write: 2, Window: DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		r, err := l.Take(ctx, Read, "k")
		if err != nil || r.Limited || r.Remaining != 4-i || r.Limit != 5 {
			t.Fatalf("take %d = %+v, %v; want allowed with %d remaining", i, r, err, 4-i)
		}
	}
	r, _ := l.Take(ctx, Read, "k")
	if !r.Limited || r.RetryAfter <= 0 {
		t.Fatalf("6th take = %+v, want limited with a retry-after", r)
	}
	// Write has its own budget, and other keys are untouched.
	if r, _ := l.Take(ctx, Write, "k"); r.Limited {
		t.Error("write limited by read budget")
	}
	if r, _ := l.Take(ctx, Read, "other"); r.Limited {
		t.Error("other key limited")
	}
	// Peeking spends nothing.
	for range 10 {
		if r, _ := l.Peek(ctx, Write, "k"); r.Remaining != 1 || r.Limited {
			t.Fatalf("peek = %+v, want 1 remaining of 2 after one take", r)
		}
	}
}

// The window is a resolved value: a Limiter refuses one that is not
// positive rather than pick a period of its own.
func TestWindowRequired(t *testing.T) {
	for _, w := range []time.Duration{0, -time.Minute} {
		t.Run(w.String(), func(t *testing.T) {
			if _, err := NewMemory(Quotas{Read: 5, Write: 2, Window: w}); err == nil {
				t.Errorf("NewMemory with window %v: no error", w)
			}
		})
	}
}

func TestPolicyOf(t *testing.T) {
	for m, want := range map[string]Policy{"GET": Read, "HEAD": Read, "POST": Write, "DELETE": Write, "PUT": Write} {
		t.Run(m, func(t *testing.T) {
			if got := PolicyOf(m); got != want {
				t.Errorf("PolicyOf(%s) = %s, want %s", m, got, want)
			}
		})
	}
}
