package ratelimit_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/ratelimit"
	"github.com/socialnet/socialapi/internal/redistest"
)

func TestRedisBudgetIsShared(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	q := ratelimit.Quotas{Read: 20, Write: 10, Window: ratelimit.DefaultWindow}
	a, ca, err := ratelimit.NewRedis(srv.URL(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	b, cb, err := ratelimit.NewRedis(srv.URL(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	ctx := context.Background()
	allowed := 0
	for i := range 30 {
		l := a
		if i%2 == 1 {
			l = b
		}
		r, err := l.Take(ctx, ratelimit.Read, "m1")
		if err != nil {
			t.Fatal(err)
		}
		if !r.Limited {
			allowed++
		}
	}
	if allowed < 20 || allowed > 21 {
		t.Errorf("two limiters over one Redis allowed %d of 30, want 20", allowed)
	}
	if store, status := a.Health(); store != "redis" || status != "ok" {
		t.Errorf("Health() = %s %s", store, status)
	}
}

func TestRedisDownFailsOpenAndRecovers(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	var failures atomic.Int32
	l, c, err := ratelimit.NewRedis(srv.URL(), ratelimit.Quotas{Read: 5, Write: 5, Window: ratelimit.DefaultWindow}, func(error) { failures.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if r, err := l.Take(ctx, ratelimit.Read, "m1"); err != nil || r.Limited {
		t.Fatalf("Take with Redis up = %+v, %v", r, err)
	}
	srv.Stop()
	start := time.Now()
	allowed := 0
	for range 8 {
		r, err := l.Take(ctx, ratelimit.Read, "m1")
		if err != nil {
			t.Fatalf("Take with Redis down = %v, want fail-open", err)
		}
		if !r.Limited {
			allowed++
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("8 takes with Redis down took %v", d)
	}
	if allowed != 5 {
		t.Errorf("in-process fallback allowed %d of 8, want 5 (still limited per instance)", allowed)
	}
	if failures.Load() == 0 {
		t.Error("failure not reported")
	}
	if _, status := l.Health(); status == "ok" {
		t.Error("Health() = ok while Redis is down")
	}
	srv.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _ = l.Take(ctx, ratelimit.Read, "m2")
		if _, status := l.Health(); status == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("limiter did not recover after Redis came back")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
