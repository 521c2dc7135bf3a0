package views

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// clock is a settable time for seen.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestSeenWindow: a pair is remembered for at least the window, however
// the generations fall, and for at most two.
func TestSeenWindow(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := newSeen(time.Hour, 1000)
	s.now, s.began = clk.now, clk.t
	a, b := pair{1, 10}, pair{2, 10}
	if !s.add(a) || s.add(a) {
		t.Fatal("a pair counted twice, or not at all")
	}
	clk.t = clk.t.Add(59 * time.Minute)
	if !s.add(b) {
		t.Fatal("another viewer of the same post did not count")
	}
	// a's generation ends; b, counted a minute before, stays a window.
	for _, step := range []time.Duration{2 * time.Minute, 57 * time.Minute} {
		clk.t = clk.t.Add(step)
		if s.add(b) {
			t.Fatalf("%v after b's view: counted again within the window", clk.t.Sub(time.Unix(1_000_000, 0))-59*time.Minute)
		}
	}
	// Two generations on (at most two windows), both are forgotten.
	clk.t = clk.t.Add(4 * time.Minute)
	if !s.add(a) || !s.add(b) {
		t.Error("not counted again two windows on")
	}
	clk.t = clk.t.Add(3 * time.Hour)
	if s.has(a) || s.has(b) || s.len() != 0 {
		t.Errorf("after three idle hours: %d pairs remembered", s.len())
	}
}

// TestSeenBounded: a flood of distinct pairs within one window keeps the
// memory within its cap, and the newest pairs stay remembered.
func TestSeenBounded(t *testing.T) {
	t.Parallel()
	const max = 100
	s := newSeen(time.Hour, max)
	for i := range int64(10 * max) {
		if !s.add(pair{i, 1}) {
			t.Fatalf("pair %d: new pair not counted", i)
		}
		if s.len() > max {
			t.Fatalf("after %d pairs: %d remembered, cap %d", i+1, s.len(), max)
		}
	}
	for i := int64(10*max - max/2); i < 10*max; i++ {
		if !s.has(pair{i, 1}) {
			t.Fatalf("pair %d of the newest half forgotten", i)
		}
	}
	c := New(nil, slog.New(slog.DiscardHandler), time.Hour)
	if c.seen.max != maxRemembered || c.seen.window != Window {
		t.Errorf("Counter remembers %d pairs for %v, want %d for %v", c.seen.max, c.seen.window, maxRemembered, Window)
	}
}

// TestViewPending: a view read with a Pending context counts only at
// Commit, once per viewer and post; without one it counts at once.
func TestViewPending(t *testing.T) {
	t.Parallel()
	c := New(nil, slog.New(slog.DiscardHandler), time.Hour)
	defer func() { // stop the flush timer; nothing to write to
		c.mu.Lock()
		c.closed = true
		if c.timer != nil {
			c.timer.Stop()
		}
		c.mu.Unlock()
	}()
	w := WithPending(context.Background())
	if n := c.View(w, 1, 10); n != 1 {
		t.Fatalf("View shows %d, want 1 (its own view)", n)
	}
	if c.Unflushed(10) != 0 {
		t.Fatal("counted before Commit")
	}
	// Never committed (a 304, an error): counts nothing.
	_ = c.View(WithPending(context.Background()), 2, 10)
	w.Commit()
	w.Commit()
	if c.Unflushed(10) != 1 {
		t.Fatalf("after Commit: %d unflushed, want 1", c.Unflushed(10))
	}
	// Counted within the window: shows the count, holds nothing more.
	again := WithPending(context.Background())
	if n := c.View(again, 1, 10); n != 1 || len(again.views) != 0 {
		t.Errorf("repeat view: shows %d, holds %d, want 1 and none", n, len(again.views))
	}
	if n := c.View(context.Background(), 3, 10); n != 2 || c.View(context.Background(), 3, 10) != 2 {
		t.Errorf("view without Pending: shows %d, want 2, counted once", n)
	}
}
