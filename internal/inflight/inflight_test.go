package inflight

import (
	"testing"

	"github.com/socialnet/socialapi/internal/apperr"
)

func refused(t *testing.T, err error, scope string, limit int) {
	t.Helper()
	e, ok := err.(*apperr.Error)
	if !ok || e.Code != apperr.RateLimited {
		t.Fatalf("want rate_limited, got %v", err)
	}
	if e.Meta["concurrency_scope"] != scope || e.Meta["concurrency_limit"] != limit || e.Meta["retry_after"] != RetryAfter ||
		e.Meta["policy"] != "read" || e.Meta["limit"] != 120 {
		t.Fatalf("meta %v, want scope %s limit %d", e.Meta, scope, limit)
	}
}

func enter(t *testing.T, l *Limiter, member int64) func() {
	t.Helper()
	leave, err := l.Enter(member)
	if err != nil {
		t.Fatalf("member %d: %v", member, err)
	}
	return leave
}

func TestLimiterPerMember(t *testing.T) {
	l := New(Config{What: "searches", PerMember: 2, Total: 10, Policy: "read", Quota: 120})
	a1, _ := enter(t, l, 1), enter(t, l, 1)
	_, err := l.Enter(1)
	refused(t, err, "member", 2)
	enter(t, l, 2) // another member is not bounded by member 1's places
	a1()
	a1() // a second call gives nothing back twice
	enter(t, l, 1)
	_, err = l.Enter(1)
	refused(t, err, "member", 2)
}

func TestLimiterTotal(t *testing.T) {
	l := New(Config{What: "searches", PerMember: 2, Total: 3, Policy: "read", Quota: 120})
	first := enter(t, l, 1)
	enter(t, l, 1)
	enter(t, l, 2)
	_, err := l.Enter(3)
	refused(t, err, "service", 3)
	first()
	enter(t, l, 3)
	_, err = l.Enter(4)
	refused(t, err, "service", 3)
}

func TestLimiterUnbounded(t *testing.T) {
	if l := New(Config{}); l != nil {
		t.Fatalf("a limiter that bounds nothing: %v", l)
	}
	var l *Limiter
	for range 100 {
		enter(t, l, 1)
	}
	only := New(Config{Total: 1, Policy: "read", Quota: 120})
	enter(t, only, 1)
	_, err := only.Enter(2)
	refused(t, err, "service", 1)
}
