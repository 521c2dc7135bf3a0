package views

import (
	"context"
	"time"
)

// A view counts at most once per viewer and post within Window, and only
// once the answer that shows the post is sent: a read whose answer is a 304,
// an error, or never sent counts nothing, so repeating a request cannot
// inflate a post's views. Each instance remembers the pairs it counted, so
// with several instances a viewer's reads answered by different instances
// may count once on each.

// Window is how long a counted view keeps the same viewer's later reads of
// the same post from counting.
const Window = time.Hour

// maxRemembered bounds the (viewer, post) pairs an instance remembers, half
// per generation (seen), so the memory is bounded whatever the traffic.
const maxRemembered = 1 << 19

type pair struct{ viewer, post int64 }

// seen remembers the pairs counted within the window, in two generations:
// cur, begun at began, and prev, the one before. A generation lasts the
// window and a pair stays through the next one, so it is remembered for at
// least the window. A generation that fills (half of max pairs) ends early:
// under a flood of distinct pairs the oldest are forgotten sooner, and
// memory stays bounded.
type seen struct {
	cur, prev map[pair]struct{}
	began     time.Time
	window    time.Duration
	max       int
	now       func() time.Time
}

func newSeen(window time.Duration, max int) *seen {
	return &seen{cur: map[pair]struct{}{}, prev: map[pair]struct{}{}, began: time.Now(), window: window, max: max, now: time.Now}
}

// rotate ends the generations that are over.
func (s *seen) rotate() {
	now := s.now()
	switch age := now.Sub(s.began); {
	case age >= 2*s.window: // every pair was counted over a window ago
		clear(s.prev)
		clear(s.cur)
		s.began = now
	case age >= s.window || len(s.cur) >= s.max/2:
		clear(s.prev)
		s.prev, s.cur = s.cur, s.prev
		s.began = now
	}
}

// has reports whether p counted within the window.
func (s *seen) has(p pair) bool {
	s.rotate()
	if _, ok := s.cur[p]; ok {
		return true
	}
	_, ok := s.prev[p]
	return ok
}

// add remembers p and reports whether it was new.
func (s *seen) add(p pair) bool {
	if s.has(p) {
		return false
	}
	s.cur[p] = struct{}{}
	return true
}

// len is how many pairs s remembers.
func (s *seen) len() int { return len(s.cur) + len(s.prev) }

// View is a read of post by viewer, who is not its author. It returns the
// views to show beyond those in the database: the unflushed ones, plus this
// one when it will count. It counts when viewer's view of post has not
// counted within Window, and only once the answer is sent (ctx from
// WithPending: at Commit; any other ctx: at once).
func (c *Counter) View(ctx context.Context, viewer, post int64) int64 {
	p := pair{viewer, post}
	c.mu.Lock()
	counted := c.seen.has(p)
	n := c.pending[post] + c.inflight[post]
	c.mu.Unlock()
	if counted {
		return n
	}
	if w, ok := ctx.Value(pendingKey{}).(*Pending); ok {
		w.views = append(w.views, pendingView{c, p})
		return n + 1
	}
	return c.count(p)
}

// count counts a view unless its pair counted within the window, and
// returns the views of its post not yet in the database.
func (c *Counter) count(p pair) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen.add(p) {
		return c.pending[p.post] + c.inflight[p.post]
	}
	return c.add(p.post)
}

type pendingKey struct{}

type pendingView struct {
	c *Counter
	p pair
}

// Pending is a request's context that holds the views its handler found
// (View) until the answer is known: Commit counts them when a 200 body is
// sent; a request that never commits counts none. One request's handler
// adds to it, and Commit runs after the handler has returned.
type Pending struct {
	context.Context
	views []pendingView
}

// WithPending returns ctx holding the views of a request until Commit.
func WithPending(ctx context.Context) *Pending { return &Pending{Context: ctx} }

// Value returns w for the key View looks for, otherwise ctx's values.
func (w *Pending) Value(key any) any {
	if key == (pendingKey{}) {
		return w
	}
	return w.Context.Value(key)
}

// Commit counts the views held (each still at most once per viewer and
// post within the window), once.
func (w *Pending) Commit() {
	for _, v := range w.views {
		v.c.count(v.p)
	}
	w.views = nil
}
