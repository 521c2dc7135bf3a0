package views_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/views"
)

// TestCounterFlushes counts views from many goroutines and checks that every
// one reaches posts.view_count, by the timer and by Close, and that the
// unflushed count is what the database lacks.
func TestCounterFlushes(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	m, err := members.CreateTx(ctx, db, members.New{Handle: "viewed", Name: "viewed"})
	if err != nil {
		t.Fatal(err)
	}
	var a, b int64
	if err := db.Get(&a, `INSERT INTO posts (author_id, body) VALUES ($1, 'a') RETURNING id`, m.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&b, `INSERT INTO posts (author_id, body) VALUES ($1, 'b') RETURNING id`, m.ID); err != nil {
		t.Fatal(err)
	}
	c := views.New(db, slog.New(slog.DiscardHandler), time.Hour)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				c.Add(a)
			}
			c.Add(b)
		}()
	}
	wg.Wait()
	stored := func(id int64) int64 {
		var n int64
		if err := db.Get(&n, `SELECT view_count FROM posts WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Nothing is written before a flush; the counter knows what is missing.
	if stored(a) != 0 || c.Unflushed(a) != 1000 || c.Unflushed(b) != 20 {
		t.Fatalf("before a flush: stored %d, unflushed %d and %d", stored(a), c.Unflushed(a), c.Unflushed(b))
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if stored(a) != 1000 || stored(b) != 20 || c.Unflushed(a) != 0 {
		t.Fatalf("after Flush: %d and %d views stored, %d unflushed", stored(a), stored(b), c.Unflushed(a))
	}
	c.Add(b)
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if stored(b) != 21 {
		t.Fatalf("after Close: %d views, want 21", stored(b))
	}

	// The timer flushes by itself.
	timed := views.New(db, slog.New(slog.DiscardHandler), 20*time.Millisecond)
	timed.Add(a)
	deadline := time.Now().Add(5 * time.Second)
	for stored(a) != 1001 {
		if time.Now().After(deadline) {
			t.Fatal("the timer never flushed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
