// Package views counts post views in memory and adds them to
// posts.view_count in one batched UPDATE every interval, so that reading a
// post puts no write on the read path (docs/performance.md).
//
// Views are a statistic, not an acknowledged write: a crash loses at most
// one interval's worth, a graceful stop flushes them, and another instance
// sees a view once it is flushed (at most one interval later). The instance
// that counted a view shows it at once (View, Add and Unflushed). A view
// counts at most once per viewer and post within Window, and only once its
// 200 answer is sent (once.go).
package views

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg"
)

// maxPending bounds the posts held while the database refuses the flush;
// beyond it new views are dropped (and logged once per flush).
const maxPending = 100_000

// Counter batches views. The zero value is not usable: use New.
type Counter struct {
	db    *sqlx.DB
	log   *slog.Logger
	every time.Duration

	flushing sync.Mutex // one flush at a time
	// epoch is odd while a flush runs and moves on when one starts and
	// when it ends (Stable).
	epoch atomic.Uint64

	mu       sync.Mutex
	pending  map[int64]int64 // counted, not yet sent
	inflight map[int64]int64 // sent, not yet committed
	dropped  int64
	seen     *seen // the viewers and posts counted within Window
	timer    *time.Timer
	closed   bool
}

// DefaultFlushEvery is how often the service's Counter flushes unless
// configured otherwise (VIEWS_FLUSH_INTERVAL). Each flush rewrites the row
// of every post viewed since the last one, and a post's row is wide and
// indexed (a GIN index of its words for search, three B-trees): when its
// page has no room for the new version, the update is not HOT and enters
// every index. The longer the interval, the more views of a post one
// rewrite carries (docs/performance-journal.md, "Views flushed every 10 s").
const DefaultFlushEvery = 10 * time.Second

// New returns a Counter that flushes every interval. The interval must be
// positive: configuration resolves it (VIEWS_FLUSH_INTERVAL, whose default
// is DefaultFlushEvery), so a zero or negative one is a programming error
// and panics rather than get a period of New's own choosing.
func New(db *sqlx.DB, log *slog.Logger, every time.Duration) *Counter {
	if every <= 0 {
		panic(fmt.Sprintf("views: flush interval must be positive, got %v", every))
	}
	return &Counter{db: db, log: log, every: every, pending: map[int64]int64{}, inflight: map[int64]int64{},
		seen: newSeen(Window, maxRemembered)}
}

// Add counts one view of post id, whoever the viewer, and returns how many
// of its views are not yet in the database, this one included. Reads count
// through View.
func (c *Counter) Add(id int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(id)
}

// add is Add with c.mu held.
func (c *Counter) add(id int64) int64 {
	if _, ok := c.pending[id]; !ok && len(c.pending) >= maxPending {
		c.dropped++
		return c.inflight[id]
	}
	c.pending[id]++
	if c.timer == nil && !c.closed {
		c.timer = time.AfterFunc(c.every, c.tick)
	}
	return c.pending[id] + c.inflight[id]
}

// Unflushed returns how many views of post id are not yet in the database.
func (c *Counter) Unflushed(id int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending[id] + c.inflight[id]
}

func (c *Counter) tick() {
	c.mu.Lock()
	c.timer = nil
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Flush(ctx); err != nil {
		c.log.Warn("view counts not flushed; retrying", slog.String("error", err.Error()))
		c.mu.Lock()
		if c.timer == nil && !c.closed && len(c.pending) > 0 {
			c.timer = time.AfterFunc(c.every, c.tick)
		}
		c.mu.Unlock()
	}
}

// Flush writes the pending views now, in statements of at most
// flushChunk posts each (in id order), so that no statement holds many
// posts' row locks for long: a reaction or comment counted on one of them
// waits for one chunk, not for the whole flush. On a read-only database (a
// standby) they are dropped, as a view on a read-only service is not
// counted; on any other error those not yet written stay pending.
func (c *Counter) Flush(ctx context.Context) error {
	c.flushing.Lock()
	defer c.flushing.Unlock()
	c.mu.Lock()
	c.epoch.Add(1)
	defer c.epoch.Add(1)
	for id, n := range c.pending {
		c.inflight[id] += n
	}
	clear(c.pending)
	dropped := c.dropped
	c.dropped = 0
	ids := make([]int64, 0, len(c.inflight))
	for id := range c.inflight {
		ids = append(ids, id)
	}
	ns := make([]int64, len(ids))
	slices.Sort(ids) // one lock order for every instance's flush
	for i, id := range ids {
		ns[i] = c.inflight[id]
	}
	c.mu.Unlock()
	if dropped > 0 {
		c.log.Warn("views dropped: too many posts waiting for a flush", slog.Int64("views", dropped))
	}
	const q = `
		UPDATE posts p SET view_count = p.view_count + v.n
		  FROM unnest($1::bigint[], $2::bigint[]) AS v(id, n)
		 WHERE p.id = v.id`
	for len(ids) > 0 {
		k := min(len(ids), flushChunk)
		_, err := c.db.ExecContext(ctx, q, pq.Array(ids[:k]), pq.Array(ns[:k]))
		c.mu.Lock()
		if err != nil {
			if !pg.IsReadOnly(err) {
				for id, n := range c.inflight {
					c.pending[id] += n
				}
			}
			clear(c.inflight)
			c.mu.Unlock()
			return err
		}
		for _, id := range ids[:k] {
			delete(c.inflight, id)
		}
		c.mu.Unlock()
		ids, ns = ids[k:], ns[k:]
	}
	return nil
}

// flushChunk is how many posts one statement of a flush updates: short
// statements, so that a failed one leaves only its own views pending and
// none holds its rows' locks for long (docs/performance-journal.md, "Views
// flushed every 10 s").
const flushChunk = 1000

// Epoch returns a mark for Stable, taken before a read of view counts from
// the database.
func (c *Counter) Epoch() uint64 { return c.epoch.Load() }

// Stable reports whether no flush ran at any moment since Epoch returned e.
// Then a database read made in between, plus Unflushed (or View) asked in
// between, is the exact count: the read saw none of the views c still
// holds. Otherwise the read may have seen some of them (it would show them
// twice) or missed a flush's before it was asked (it would show them not at
// all), and the caller reads again.
func (c *Counter) Stable(e uint64) bool { return e%2 == 0 && c.epoch.Load() == e }

// Close flushes what is pending and stops scheduling flushes.
func (c *Counter) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	return c.Flush(ctx)
}
