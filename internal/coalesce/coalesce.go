// Package coalesce answers concurrent reads with fewer database round
// trips: while every slot of a Pool is busy, the reads that arrive wait, and
// those of one kind (a Group) go to the database as one statement when a
// slot frees.
//
// A round trip has a fixed price on both sides of the socket (the client's
// and the backend's system calls, Bind/Execute, the executor's set-up, the
// commit of the implicit transaction) that a small read pays in full: for
// the single post it was most of what PostgreSQL spent on it. Under load
// the reads that queue for the database anyway share that price; with a
// free slot a read runs at once, alone, so an idle server answers as
// quickly as before.
//
// Each read still sees every write committed before it arrived: the
// statement that answers it starts after it was queued.
package coalesce

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Pool bounds the statements in flight of the Groups that share it, and
// gives a freed slot to the batch waiting longest, whatever its kind.
type Pool struct {
	mu      sync.Mutex
	slots   int
	busy    int      // slots in use
	waiting []waiter // batches, in the order of their first read
}

// NewPool returns a Pool of slots statements in flight at most (at least
// one).
func NewPool(slots int) *Pool { return &Pool{slots: max(slots, 1)} }

// waiter is a batch waiting for a slot.
type waiter interface {
	// run answers the batch, on the slot given to it.
	run()
	// taken tells the batch's Group that it no longer takes reads.
	taken()
}

// release frees a slot, or hands it to the batch waiting longest.
func (p *Pool) release() {
	if w := p.handOn(); w != nil {
		go p.serve(w)
	}
}

// handOn takes the batch waiting longest for the caller's slot, or frees
// the slot (nil) when none waits.
func (p *Pool) handOn() waiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waiting) == 0 {
		p.busy--
		return nil
	}
	w := p.waiting[0]
	p.waiting[0] = nil
	p.waiting = p.waiting[1:]
	w.taken()
	return w
}

// serve answers w, then the batches that wait after it, on its slot.
func (p *Pool) serve(w waiter) {
	for ; w != nil; w = p.handOn() {
		w.run()
	}
}

// Group coalesces the reads of one kind, keyed by K, answered by V.
type Group[K, V any] struct {
	pool *Pool
	// one answers a read alone, on the caller's goroutine and context.
	one func(ctx context.Context, key K) (V, error)
	// many answers a batch of reads: one V per key, in the keys' order. Its
	// context carries none of the readers' values (a key holds all a read
	// needs) and ends at the latest of their deadlines.
	many func(ctx context.Context, keys []K) ([]V, error)
	max  int

	filling *batch[K, V] // the batch taking reads (guarded by pool.mu)

	batches, batched atomic.Int64
}

// New returns a Group over pool with batches of at most size reads.
func New[K, V any](pool *Pool, size int, one func(context.Context, K) (V, error), many func(context.Context, []K) ([]V, error)) *Group[K, V] {
	return &Group[K, V]{pool: pool, one: one, many: many, max: max(size, 1)}
}

// Stats returns how many batches ran and how many reads they answered.
func (g *Group[K, V]) Stats() (batches, reads int64) {
	return g.batches.Load(), g.batched.Load()
}

type batch[K, V any] struct {
	g    *Group[K, V]
	keys []K
	// deadline is the latest of the reads' deadlines; unbounded when one
	// has none.
	deadline  time.Time
	unbounded bool

	vals []V
	err  error
	done chan struct{}
}

// Do answers the read key: at once and alone when a slot is free and no
// read is waiting, else with the batch it joins. A caller whose context
// ends while it waits returns the context's error; its batch still runs
// for the others.
func (g *Group[K, V]) Do(ctx context.Context, key K) (V, error) {
	p := g.pool
	p.mu.Lock()
	if p.busy < p.slots && len(p.waiting) == 0 {
		p.busy++
		p.mu.Unlock()
		defer p.release()
		return g.one(ctx, key)
	}
	b := g.join(ctx, key)
	i := len(b.keys) - 1
	p.mu.Unlock()
	select {
	case <-b.done:
		if b.err != nil {
			var zero V
			return zero, b.err
		}
		return b.vals[i], nil
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// join adds key to the batch that is filling, opening one when there is
// none or it is full. pool.mu is held.
func (g *Group[K, V]) join(ctx context.Context, key K) *batch[K, V] {
	b := g.filling
	if b == nil || len(b.keys) >= g.max {
		b = &batch[K, V]{g: g, keys: make([]K, 0, min(g.max, 16)), done: make(chan struct{})}
		g.filling = b
		g.pool.waiting = append(g.pool.waiting, b)
	}
	b.keys = append(b.keys, key)
	if d, ok := ctx.Deadline(); !ok {
		b.unbounded = true
	} else if d.After(b.deadline) {
		b.deadline = d
	}
	return b
}

// taken implements waiter. pool.mu is held.
func (b *batch[K, V]) taken() {
	if b.g.filling == b {
		b.g.filling = nil
	}
}

// run implements waiter: it runs b's statement and wakes its readers. A
// panic in many fails the batch's reads instead of the process (no request
// goroutine is there to recover it).
func (b *batch[K, V]) run() {
	defer close(b.done)
	defer func() {
		if p := recover(); p != nil {
			b.vals, b.err = nil, fmt.Errorf("coalesce: %v", p)
		}
	}()
	ctx := context.Background()
	if !b.unbounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, b.deadline)
		defer cancel()
	}
	g := b.g
	g.batches.Add(1)
	g.batched.Add(int64(len(b.keys)))
	b.vals, b.err = g.many(ctx, b.keys)
	if b.err == nil && len(b.vals) != len(b.keys) {
		b.err = fmt.Errorf("coalesce: %d answers for %d reads", len(b.vals), len(b.keys))
	}
}
