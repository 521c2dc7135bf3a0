// Package coalesce answers concurrent reads of one kind with fewer database
// round trips: while every slot is busy, the reads that arrive wait together
// and go to the database as one statement when a slot frees.
//
// A round trip has a fixed price on both sides of the socket (the client's
// and the backend's system calls, Bind/Execute, the executor's set-up, the
// commit of the implicit transaction) that a single-row read pays in full:
// for the single post it was most of what PostgreSQL spent on it. Under
// load the reads that queue for the database anyway share that price; with
// a free slot a read runs at once, alone, so an idle server answers as
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

// Group coalesces the reads of one kind, keyed by K, answered by V.
type Group[K, V any] struct {
	// one answers a read alone, on the caller's goroutine and context.
	one func(ctx context.Context, key K) (V, error)
	// many answers a batch of reads: one V per key, in the keys' order. Its
	// context carries none of the readers' values (a key holds all a read
	// needs) and ends at the latest of their deadlines.
	many func(ctx context.Context, keys []K) ([]V, error)

	slots, max int

	mu      sync.Mutex
	busy    int            // slots in use
	waiting []*batch[K, V] // full batches first, the one filling last

	batches, batched atomic.Int64
}

// Stats returns how many batches ran and how many reads they answered.
func (g *Group[K, V]) Stats() (batches, reads int64) {
	return g.batches.Load(), g.batched.Load()
}

// New returns a Group of slots statements in flight at most, batches of at
// most size reads.
func New[K, V any](slots, size int, one func(context.Context, K) (V, error), many func(context.Context, []K) ([]V, error)) *Group[K, V] {
	return &Group[K, V]{one: one, many: many, slots: max(slots, 1), max: max(size, 1)}
}

type batch[K, V any] struct {
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
	g.mu.Lock()
	if g.busy < g.slots && len(g.waiting) == 0 {
		g.busy++
		g.mu.Unlock()
		defer g.release()
		return g.one(ctx, key)
	}
	b := g.join(ctx, key)
	i := len(b.keys) - 1
	g.mu.Unlock()
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
// none or it is full. g.mu is held.
func (g *Group[K, V]) join(ctx context.Context, key K) *batch[K, V] {
	var b *batch[K, V]
	if n := len(g.waiting); n > 0 && len(g.waiting[n-1].keys) < g.max {
		b = g.waiting[n-1]
	} else {
		b = &batch[K, V]{keys: make([]K, 0, min(g.max, 16)), done: make(chan struct{})}
		g.waiting = append(g.waiting, b)
	}
	b.keys = append(b.keys, key)
	if d, ok := ctx.Deadline(); !ok {
		b.unbounded = true
	} else if d.After(b.deadline) {
		b.deadline = d
	}
	return b
}

// release frees a slot, or hands it to the batch waiting longest.
func (g *Group[K, V]) release() {
	if b := g.handOn(); b != nil {
		go g.run(b)
	}
}

// handOn takes the batch waiting longest for the caller's slot, or frees
// the slot (nil) when none waits.
func (g *Group[K, V]) handOn() *batch[K, V] {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.waiting) == 0 {
		g.busy--
		return nil
	}
	b := g.waiting[0]
	g.waiting[0] = nil
	g.waiting = g.waiting[1:]
	return b
}

// run answers b, then the batches that wait after it, on its slot.
func (g *Group[K, V]) run(b *batch[K, V]) {
	for ; b != nil; b = g.handOn() {
		g.answer(b)
	}
}

// answer runs b's statement and wakes its readers.
func (g *Group[K, V]) answer(b *batch[K, V]) {
	defer close(b.done)
	ctx := context.Background()
	if !b.unbounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, b.deadline)
		defer cancel()
	}
	g.batches.Add(1)
	g.batched.Add(int64(len(b.keys)))
	b.vals, b.err = g.many(ctx, b.keys)
	if b.err == nil && len(b.vals) != len(b.keys) {
		b.err = fmt.Errorf("coalesce: %d answers for %d reads", len(b.vals), len(b.keys))
	}
}
