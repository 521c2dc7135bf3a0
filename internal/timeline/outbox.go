package timeline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The outbox is a queue: every post goes in (Publish) and comes out within
// moments (FanOut), so the table holds a handful of live rows among the dead
// ones its deletes leave until a vacuum. Every home-feed page reads it whole
// (the pending posts of the reader's followees), and on its few live rows
// the planner chose a sequential scan, which visits every page the table
// has, dead rows and all. Autovacuum looks at a table at most once a
// minute (autovacuum_naptime), by which time a burst of posts has left
// enough dead rows to make every home page read markedly more buffers
// (docs/performance-journal.md, "Outbox vacuumed by the worker"). So the
// worker vacuums the outbox itself every OutboxVacuumPosts posts it fans
// out, at most once a second: the table stays a few pages long, and a
// vacuum of it is cheap.

// DefaultOutboxVacuumPosts is how many posts the worker fans out between
// two vacuums of the outbox unless told otherwise: about 9 pages of dead
// rows (some 110 fit a page).
const DefaultOutboxVacuumPosts = 1000

// outboxVacuumGap is the least time between two of the worker's vacuums
// of the outbox: under a burst of posts, the table then grows by at most
// what one second brings.
const outboxVacuumGap = time.Second

// outboxVacuum counts the posts a Worker fans out and vacuums the outbox
// once enough have gone, in a goroutine of its own, so that the fan-out
// never waits for it.
type outboxVacuum struct {
	claimed atomic.Int64
	running atomic.Bool
	last    atomic.Int64 // UnixNano of the last vacuum's start
	done    atomic.Int64 // vacuums run (for tests)
	wg      sync.WaitGroup
}

// wait waits for the vacuum in flight, if any.
func (v *outboxVacuum) wait() { v.wg.Wait() }

// fannedOut counts n posts fanned out and starts a vacuum (run) once every
// posts (<= 0: never) have gone since the last.
func (v *outboxVacuum) fannedOut(ctx context.Context, n, every int64, run func(context.Context) error, failed func(error)) {
	if every <= 0 || n <= 0 {
		return
	}
	if v.claimed.Add(n) < every || time.Since(time.Unix(0, v.last.Load())) < outboxVacuumGap {
		return
	}
	if !v.running.CompareAndSwap(false, true) {
		return
	}
	v.claimed.Store(0)
	v.last.Store(time.Now().UnixNano())
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer v.running.Store(false)
		if err := run(ctx); err != nil && ctx.Err() == nil {
			failed(err)
		}
		v.done.Add(1)
	}()
}

// vacuumOutboxSQL vacuums the outbox, skipping the turn when another vacuum
// (autovacuum) holds it. Without giving the table's empty tail back to the
// operating system (TRUNCATE false): that takes a lock that excludes every
// reader and writer of the table, which a vacuum tries for up to 5 s while
// home pages keep reading it, and makes each vacuum far slower (journal,
// "Outbox vacuumed by the worker"); the space stays the table's
// for the rows to come, and autovacuum still gives it back. A role that may
// not vacuum the table gets a warning from PostgreSQL, not an error, and the
// vacuum does nothing.
const vacuumOutboxSQL = `VACUUM (SKIP_LOCKED, TRUNCATE false) feed_outbox`
