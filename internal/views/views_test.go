package views_test

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/views"
)

// TestNewNeedsInterval: the flush interval is a resolved value; New refuses
// a zero or negative one instead of choosing its own.
func TestNewNeedsInterval(t *testing.T) {
	t.Parallel()
	for _, every := range []time.Duration{0, -time.Second} {
		t.Run(every.String(), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New with interval %v did not panic", every)
				}
			}()
			views.New(nil, slog.New(slog.DiscardHandler), every)
		})
	}
}

// TestCounterFlushes counts views from many goroutines and checks that every
// one reaches posts.view_count, by the timer and by Close, and that the
// unflushed count is what the database lacks.
func TestCounterFlushes(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author := pgtest.Members(t, db, "viewed")["viewed"]
	var a, b int64
	if err := db.Get(&a, `INSERT INTO posts (author_id, body) VALUES ($1, 'a') RETURNING id`, author); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&b, `INSERT INTO posts (author_id, body) VALUES ($1, 'b') RETURNING id`, author); err != nil {
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

// TestFlushInChunks flushes views of more posts than one statement
// updates: every view lands once; when a later chunk fails, the chunks
// written stay written and only the rest stays pending, to be written by
// the next flush, so no view is counted twice or lost.
func TestFlushInChunks(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author := pgtest.Members(t, db, "chunked")["chunked"]
	const posts = 2500 // three statements of views.flushChunk (1,000)
	var ids []int64
	if err := db.Select(&ids, `INSERT INTO posts (author_id, body) SELECT $1, 'p' || g FROM generate_series(1, $2) g RETURNING id`, author, posts); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	want := map[int64]int64{}
	c := views.New(db, slog.New(slog.DiscardHandler), time.Hour)
	for i, id := range ids {
		for range i%3 + 1 {
			c.Add(id)
			want[id]++
		}
	}
	// The second chunk meets a post whose update fails.
	failing := ids[1500]
	if _, err := db.Exec(`CREATE FUNCTION refuse_view() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused'; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER refuse_view BEFORE UPDATE ON posts FOR EACH ROW
		WHEN (OLD.id = ` + strconv.FormatInt(failing, 10) + `) EXECUTE FUNCTION refuse_view()`); err != nil {
		t.Fatal(err)
	}
	stored := func() map[int64]int64 {
		var rows []struct {
			ID int64 `db:"id"`
			N  int64 `db:"view_count"`
		}
		if err := db.Select(&rows, `SELECT id, view_count FROM posts WHERE author_id = $1`, author); err != nil {
			t.Fatal(err)
		}
		got := map[int64]int64{}
		for _, r := range rows {
			got[r.ID] = r.N
		}
		return got
	}
	if err := c.Flush(ctx); err == nil {
		t.Fatal("a flush through the failing post succeeded")
	}
	got := stored()
	for i, id := range ids {
		written := i < 1000 // the first chunk committed, the second and third did not run or rolled back
		if (written && got[id] != want[id]) || (!written && got[id] != 0) {
			t.Fatalf("after the failed flush, post %d (#%d) has %d views stored, want %d (written: %v)", id, i, got[id], want[id], written)
		}
		if unflushed := c.Unflushed(id); (written && unflushed != 0) || (!written && unflushed != want[id]) {
			t.Fatalf("after the failed flush, post %d (#%d) has %d views unflushed", id, i, unflushed)
		}
	}
	if _, err := db.Exec(`DROP TRIGGER refuse_view ON posts`); err != nil {
		t.Fatal(err)
	}
	c.Add(ids[0])
	want[ids[0]]++
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got = stored()
	for i, id := range ids {
		if got[id] != want[id] || c.Unflushed(id) != 0 {
			t.Fatalf("after the second flush, post %d (#%d) has %d views stored (%d unflushed), want %d", id, i, got[id], c.Unflushed(id), want[id])
		}
	}
}

// TestStableReadsAreExact reads a post's views (database plus Unflushed)
// while views are added and flushed: every read that Stable accepts shows
// exactly the views added by then, never some of them twice or none of a
// flush's.
func TestStableReadsAreExact(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author := pgtest.Members(t, db, "viewed")["viewed"]
	var id int64
	if err := db.Get(&id, `INSERT INTO posts (author_id, body) VALUES ($1, 'a') RETURNING id`, author); err != nil {
		t.Fatal(err)
	}
	c := views.New(db, slog.New(slog.DiscardHandler), time.Hour)
	var added atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 300 {
			added.Add(1)
			c.Add(id)
			if err := c.Flush(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	stable, reads := 0, 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		before := added.Load()
		e := c.Epoch()
		var stored int64
		if err := db.Get(&stored, `SELECT view_count FROM posts WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		got := stored + c.Unflushed(id)
		after := added.Load()
		reads++
		if !c.Stable(e) {
			continue
		}
		stable++
		if got < before || got > after {
			t.Fatalf("a stable read shows %d views; %d to %d were added meanwhile", got, before, after)
		}
	}
	if stable == 0 {
		t.Fatalf("no read of %d was stable", reads)
	}
}
