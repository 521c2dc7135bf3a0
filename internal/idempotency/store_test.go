package idempotency

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

func TestBegin(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	alice := pgtest.Members(t, db, "alice")["alice"]
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s := NewStore(db, time.Minute)
	s.now = func() time.Time { return clock }
	h1, h2 := Hash("POST", "/p", []byte("a")), Hash("POST", "/p", []byte("b"))

	begin := func(name, op string, hash []byte, want Outcome) *Response {
		t.Helper()
		got, r, err := s.Begin(ctx, alice, "k", op, hash)
		if err != nil || got != want {
			t.Fatalf("%s: Begin = %v, %v, want %v", name, got, err, want)
		}
		return r
	}
	begin("first use", "op", h1, Proceed)
	begin("while running", "op", h1, InUse)
	begin("other body", "op", h2, Reused)
	begin("other operation", "op2", h1, Reused)
	clock = clock.Add(2 * time.Minute)
	begin("stale in-flight request", "op", h1, Proceed)
	if err := s.Finish(ctx, alice, "k", Response{Status: 201, Headers: map[string]string{"Location": "/p/1"}, Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	r := begin("finished", "op", h1, Replay)
	if r.Status != 201 || r.Headers["Location"] != "/p/1" || string(r.Body) != "{}" {
		t.Errorf("replayed %+v, want the finished response", r)
	}
	clock = clock.Add(TTL + time.Minute)
	begin("expired, other body", "op", h2, Proceed)
	begin("after the expired key was claimed again", "op", h2, InUse)
	if err := s.Abandon(ctx, alice, "k"); err != nil {
		t.Fatal(err)
	}
	begin("abandoned", "op", h1, Proceed)
}

func TestBeginConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	alice := pgtest.Members(t, db, "alice")["alice"]
	s := NewStore(db, time.Hour)
	// An expired key, claimed by many requests at once: exactly one proceeds.
	db.MustExec(`INSERT INTO idempotency_keys (member_id, key, operation, request_hash, status, created_at)
	             VALUES ($1, 'k', 'op', $2, 201, now() - interval '25 hours')`, alice, Hash("POST", "/p", nil))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		outcomes = map[Outcome]int{}
	)
	for range 20 {
		wg.Go(func() {
			o, _, err := s.Begin(ctx, alice, "k", "op", Hash("POST", "/p", []byte("x")))
			if err != nil {
				t.Errorf("Begin: %v", err)
			}
			mu.Lock()
			outcomes[o]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if outcomes[Proceed] != 1 || outcomes[InUse] != 19 {
		t.Errorf("outcomes = %v, want one Proceed and 19 InUse", outcomes)
	}
}
