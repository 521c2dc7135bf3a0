package timeline

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg"
)

// FanOut moves at most batch posts from the outbox to their authors'
// followers' timelines (but not to dormant ones: see DormantAfter) in one
// statement, so in one transaction: the outbox rows go exactly when the
// timeline rows come. It reports how many posts it took and, for each
// timeline row it wrote, the row's member (the Worker's trimming counts
// them). Concurrent workers (other instances) skip each other's posts.
//
// The statement first runs without looking for rows the timeline already
// holds, and runs again guarded (an anti-join on the key) only when one
// makes it fail on the primary key, undoing it whole: such a row is rare
// (only a follow's merge or a wake's rebuild within the outbox's last
// moments takes a post early), while the look is a large share of the
// fan-out's cost. The guard also sees a merge that committed the same row
// meanwhile. It is an anti-join rather than ON CONFLICT DO NOTHING, whose
// speculative insertion (check, insert, confirm) costs more CPU
// (docs/performance-journal.md, "Fan-out without the duplicate check").
// Within a caller's transaction, which a failure would abort, the guarded
// statement runs at once.
func FanOut(ctx context.Context, ex sqlx.QueryerContext, batch int) (posts int64, members []int64, err error) {
	var r struct {
		Posts   int64         `db:"posts"`
		Members pq.Int64Array `db:"members"`
	}
	_, inTx := ex.(*sqlx.Tx)
	guarded := inTx
	for attempt := 1; ; attempt++ {
		err := sqlx.GetContext(ctx, ex, &r, fanOutSQL(batch, guarded))
		if err == nil {
			return r.Posts, r.Members, nil
		}
		if inTx || attempt == 3 || !pg.IsUniqueViolation(err) {
			return 0, nil, pg.Classify(ctx, fmt.Errorf("fan out: %w", err))
		}
		guarded = true
	}
}

// fanOutSQLs memoizes fanOutSQL by batch size and guard.
var fanOutSQLs sync.Map // fanOutKey → string

type fanOutKey struct {
	batch   int
	guarded bool
}

// fanOutSQL is FanOut's statement for batch posts, guarded or not against
// rows the timelines already hold. The batch is written into the text
// rather than passed as a parameter: a statement without parameters keeps
// one generic plan where it is prepared (the Worker's pg.Prepared), while
// with LIMIT $1 PostgreSQL plans it on every call, at a cost that rivals
// the execution's (docs/performance-journal.md, "Fan-out statement with
// its batch in the text").
//
// The rows go in in the timeline's key order: a member who follows several
// of the batch's authors gets their rows one after the other, on the same
// leaf of the key's index, and neighbouring members on neighbouring leaves,
// instead of jumping across the index row by row (and a member's rows of a
// batch lie side by side in the heap, where the trim later deletes them).
// Sorting the rows costs less than it saves (journal, "Fan-out in the
// timeline's key order").
//
// It returns one member id per row written, counted by the caller, rather
// than grouping them here into (member, count) arrays: the grouping costs
// the statement more than the ids do (journal, "Fan-out's member ids").
func fanOutSQL(batch int, guarded bool) string {
	k := fanOutKey{batch, guarded}
	if q, ok := fanOutSQLs.Load(k); ok {
		return q.(string)
	}
	guard := ""
	if guarded {
		guard = `
		       AND NOT EXISTS (SELECT 1 FROM timeline t
		                        WHERE t.member_id = f.follower_id AND t.created_at = c.created_at AND t.post_id = c.post_id)`
	}
	q, _ := fanOutSQLs.LoadOrStore(k, `
		WITH claimed AS (
		    DELETE FROM feed_outbox o
		     WHERE o.post_id IN (SELECT post_id FROM feed_outbox ORDER BY post_id LIMIT `+strconv.Itoa(batch)+` FOR UPDATE SKIP LOCKED)
		    RETURNING o.post_id, o.author_id, o.created_at
		), ins AS (
		    INSERT INTO timeline (member_id, created_at, post_id, author_id)
		    SELECT f.follower_id, c.created_at, c.post_id, c.author_id
		      FROM claimed c
		      JOIN members m ON m.id = c.author_id AND NOT m.fanout_on_read
		      JOIN follows f ON f.followee_id = c.author_id
		     WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = f.follower_id)`+guard+`
		     ORDER BY f.follower_id, c.created_at, c.post_id
		    RETURNING member_id
		)
		SELECT (SELECT count(*) FROM claimed) AS posts, COALESCE(array_agg(member_id), '{}') AS members FROM ins`)
	return q.(string)
}

// Drain fans out everything pending (the fixture importer uses it).
func Drain(ctx context.Context, ex sqlx.QueryerContext) error {
	for {
		n, _, err := FanOut(ctx, ex, 100)
		if err != nil || n == 0 {
			return err
		}
	}
}

// trimChunk is how many member ids one look for long timelines covers, so
// that no statement of the trim scans more than a slice of the table.
const trimChunk = 500

// Trim cuts every timeline holding more than Cap+Slack rows back to Cap and
// raises those members' horizons to their oldest kept row. It reports how
// many timelines it cut.
func Trim(ctx context.Context, db *sqlx.DB) (int, error) {
	var maxID int64
	if err := db.GetContext(ctx, &maxID, `SELECT COALESCE(max(id), 0) FROM members`); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("trim timelines: %w", err))
	}
	const over = `
		SELECT member_id FROM timeline
		 WHERE member_id >= $1 AND member_id < $2
		 GROUP BY member_id HAVING count(*) > $3`
	trimmed := 0
	for lo := int64(0); lo <= maxID; lo += trimChunk {
		var members []int64
		if err := db.SelectContext(ctx, &members, over, lo, lo+trimChunk, Cap+Slack); err != nil {
			return trimmed, pg.Classify(ctx, fmt.Errorf("find long timelines: %w", err))
		}
		for _, m := range members {
			if _, err := cut(ctx, db, m); err != nil {
				return trimmed, err
			}
			trimmed++
		}
	}
	return trimmed, nil
}

// trimSQL cuts member $1's timeline to its newest Cap rows, raises the
// member's horizon to the oldest kept, and returns 1 if it wrote or raised
// the horizon (0 for a timeline shorter than Cap). Cap is written into the
// text, so that the statement has one generic plan where it is prepared
// (the Worker's pg.Prepared): with OFFSET $2 it would be sent unnamed and
// planned on every cut, a planning cost that is a sizeable share of the
// cut's execution (docs/performance-journal.md, "Trim's cut prepared").
var trimSQL = `
	WITH edge AS (
	    SELECT created_at, post_id FROM timeline WHERE member_id = $1
	     ORDER BY created_at DESC, post_id DESC OFFSET ` + strconv.Itoa(Cap-1) + ` LIMIT 1
	), del AS (
	    DELETE FROM timeline t USING edge
	     WHERE t.member_id = $1 AND (t.created_at, t.post_id) < (edge.created_at, edge.post_id)
	), raised AS (
	    INSERT INTO timeline_horizons AS th (member_id, created_at, post_id)
	    SELECT $1, created_at, post_id FROM edge` + raiseHorizon + `
	    RETURNING 1
	)
	SELECT count(*) FROM raised`

// cut runs trimSQL for member through q and reports whether it wrote or
// raised the member's horizon.
func cut(ctx context.Context, q sqlx.QueryerContext, member int64) (bool, error) {
	var n int
	if err := sqlx.GetContext(ctx, q, &n, trimSQL, member); err != nil {
		return false, pg.Classify(ctx, fmt.Errorf("trim timeline: %w", err))
	}
	return n > 0, nil
}

// Worker runs the fan-out and the trimming in the background of a server.
// Several instances may run one each. A Worker keeps state between the
// fan-out and the trim, so one Worker runs once at a time.
//
// Trimming looking at every timeline (Trim) is a GROUP BY over the whole
// timeline table, seconds of database work at the benchmark's scale that
// land on whatever load runs at the time (docs/performance-journal.md,
// "Trim of the grown timelines only"). So the worker counts the
// rows its fan-out writes to each member since it last cut that member's
// timeline, and every TrimEvery cuts only the timelines that got Slack rows
// or more: one index range and a delete each. Growth the worker does not see
// (other instances' fan-out, follows merging a followee's posts, a member's
// own posts) waits for the full trim, every FullTrimEvery.
//
// Every field is final (NewWorker sets the defaults): Idle, Batch, the
// intervals but DormantAfter, and Track must be positive.
type Worker struct {
	DB  *sqlx.DB
	Log *slog.Logger
	// Idle is how long the worker sleeps when the outbox is empty (the read
	// path merges pending posts, so this is a cost, not a visible lag).
	Idle time.Duration
	// Batch is how many posts one fan-out statement takes; while the
	// outbox has a backlog (a statement came back full) the next takes
	// twice as many, up to BurstFactor × Batch.
	Batch int
	// TrimEvery is how often the timelines the worker's fan-out has grown
	// by Slack rows or more are trimmed; FullTrimEvery how often the trim
	// looks at every timeline instead (the first that long after start).
	TrimEvery, FullTrimEvery time.Duration
	// DormantAfter is how long a member may go without using a token
	// before Rest makes their timeline dormant (0: never); Rest runs every
	// RestEvery (the first that long after start).
	DormantAfter, RestEvery time.Duration
	// Track is how many members the worker counts rows for at most. Once
	// it is reached, members not yet counted wait for the next full trim,
	// which starts the counts afresh.
	Track int
	// Helpers is how many fan-out loops join the main one while the outbox
	// has a backlog (0: none; see help).
	Helpers int
	// helped counts the posts the helpers fanned out (for tests).
	helped atomic.Int64

	// OutboxVacuumPosts is how many posts the worker fans out between two
	// vacuums of feed_outbox (outbox.go; 0: never, leaving it to autovacuum).
	OutboxVacuumPosts int
	vacuum            outboxVacuum

	// mu guards added and overflowed: the fan-out counts while the trim
	// (Run's other goroutine) takes the counts that reached Slack.
	mu sync.Mutex
	// added is, for each member the fan-out wrote to, how many rows it
	// wrote since the member's timeline was last cut.
	added map[int64]int
	// prep runs the fan-out and the trim as prepared statements (fanOutSQL,
	// trimSQL); made on first use (prepared) and shared by every loop.
	prep     *pg.Prepared
	prepOnce sync.Once
	// overflowed is whether a member went uncounted because added held
	// Track members, since the last full trim.
	overflowed bool
}

// Run works until ctx ends: the fan-out in one loop, the trimming and the
// resting of idle members in another, so that neither waits for the other.
// A trim tick may cut thousands of timelines, one statement each, for
// seconds: in the fan-out's loop it would stop the fan-out meanwhile and
// leave a backlog in the outbox (docs/performance-journal.md, "Trim beside
// the fan-out").
func (w *Worker) Run(ctx context.Context) {
	idle, batch := w.Idle, w.Batch
	var others sync.WaitGroup
	others.Add(1)
	go func() {
		defer others.Done()
		w.upkeep(ctx)
	}()
	burst := batch * BurstFactor
	backlog := make(chan struct{}, 1)
	for range w.Helpers {
		others.Add(1)
		go func() {
			defer others.Done()
			w.help(ctx, burst, backlog)
		}()
	}
	defer w.vacuum.wait()
	defer others.Wait()
	failing := false
	cur := batch
	for ctx.Err() == nil {
		wait := idle
		n, err := w.fanOut(ctx, cur)
		if err == nil && cur == burst && n == int64(burst) {
			select {
			case backlog <- struct{}{}:
			default:
			}
		}
		cur = nextBatch(cur, batch, n, err)
		switch {
		case err != nil && ctx.Err() == nil:
			// Once per outage, not once per attempt.
			if !failing {
				w.Log.Warn("timeline fan-out failed; retrying every 5s", "error", err.Error())
			}
			failing, wait = true, 5*time.Second
		case err == nil && failing:
			w.Log.Info("timeline fan-out recovered")
			failing = false
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// help is a second fan-out loop that works only while the outbox has a
// backlog: woken (backlog) when the main loop's statement of burst posts
// came back full, it fans out burst posts a statement until one comes back
// short or fails, then waits for the next wake. One loop drains a backlog on
// one core and leaves the other idle (docs/performance-journal.md, "Fan-out
// helper"); the posts a steady load brings never fill a burst, so the helper
// stays asleep there, and the fan-out's statements stay few and full.
func (w *Worker) help(ctx context.Context, burst int, backlog <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-backlog:
		}
		for ctx.Err() == nil {
			n, err := w.fanOut(ctx, burst)
			w.helped.Add(n)
			if err != nil || n < int64(burst) {
				break
			}
		}
	}
}

// Defaults of the Worker's tunables (NewWorker); DormantAfter is the
// default of Worker.DormantAfter, DefaultOutboxVacuumPosts of
// OutboxVacuumPosts.
const (
	DefaultTrimEvery = 5 * time.Minute
	DefaultHelpers   = 1
)

// NewWorker returns a Worker on db with every tunable at its default.
func NewWorker(db *sqlx.DB, log *slog.Logger) *Worker {
	return &Worker{DB: db, Log: log, Idle: 200 * time.Millisecond, Batch: 20,
		TrimEvery: DefaultTrimEvery, FullTrimEvery: 6 * time.Hour, DormantAfter: DormantAfter, RestEvery: time.Hour,
		Track:   1 << 17, // about 4.5 MiB of counts
		Helpers: DefaultHelpers, OutboxVacuumPosts: DefaultOutboxVacuumPosts}
}

// upkeep trims every TrimEvery (in full every FullTrimEvery) and rests idle
// members every RestEvery until ctx ends.
func (w *Worker) upkeep(ctx context.Context) {
	trimEvery, fullEvery := w.TrimEvery, w.FullTrimEvery
	dormantAfter, restEvery := w.DormantAfter, w.RestEvery
	now := time.Now()
	nextTrim := now.Add(trimEvery)
	// Not at start: a server starts under load as often as not (a deploy,
	// the benchmark), and without a worker nothing is fanned out, so what
	// grew uncounted meanwhile is a follow's merge or a member's own posts.
	nextFull := now.Add(fullEvery)
	nextRest := now.Add(restEvery)
	for {
		next := nextTrim
		if dormantAfter > 0 && nextRest.Before(next) {
			next = nextRest
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
		if now := time.Now(); !now.Before(nextTrim) {
			nextTrim = now.Add(trimEvery)
			full := !now.Before(nextFull)
			cut, err := w.trim(ctx, full)
			switch {
			case err != nil && ctx.Err() == nil:
				// A failed full trim is tried again at the next tick.
				w.Log.Warn("timeline trim failed", "error", err.Error(), "trimmed", cut, "full", full)
			case err == nil && full:
				nextFull = now.Add(fullEvery)
			}
		}
		if now := time.Now(); dormantAfter > 0 && !now.Before(nextRest) {
			nextRest = now.Add(restEvery)
			n, err := Rest(ctx, w.DB, now.Add(-dormantAfter))
			switch {
			case err != nil && ctx.Err() == nil:
				w.Log.Warn("timeline rest failed", "error", err.Error(), "dormant", n)
			case n > 0:
				w.Log.Info("timelines made dormant", "members", n, "idle_for", dormantAfter.String())
			}
		}
	}
}

// BurstFactor bounds the Worker's batch while the outbox has a backlog:
// Batch × BurstFactor posts a statement. A statement's fixed costs (the
// dormant members' hash, the plan's set-up, the commit) are then shared by
// more posts (docs/performance-journal.md, "Fan-out burst batches").
const BurstFactor = 5

// nextBatch is the Worker's batch after a fan-out of cur posts that took n
// of them or failed: halved on failure (a batch of many followers' posts
// may outlast the statement timeout), doubled up to BurstFactor × batch
// while statements come back full, and back to at most batch otherwise.
func nextBatch(cur, batch int, n int64, err error) int {
	switch {
	case err != nil:
		return max(1, cur/2)
	case n >= int64(cur):
		return min(batch*BurstFactor, cur*2)
	default:
		return min(batch, cur*2)
	}
}

// prepared returns the Worker's prepared statements (the fan-out's and the
// trim's), made on first use.
func (w *Worker) prepared() *pg.Prepared {
	w.prepOnce.Do(func() { w.prep = pg.NewPrepared(w.DB) })
	return w.prep
}

// fanOut runs one FanOut and counts the rows it wrote per member.
func (w *Worker) fanOut(ctx context.Context, batch int) (int64, error) {
	n, members, err := FanOut(ctx, w.prepared(), batch)
	if err != nil {
		return 0, err
	}
	w.vacuum.fannedOut(ctx, n, int64(w.OutboxVacuumPosts), func(ctx context.Context) error {
		_, err := w.DB.ExecContext(ctx, vacuumOutboxSQL)
		return err
	}, func(err error) { w.Log.Warn("feed_outbox vacuum failed", "error", err.Error()) })
	track := w.Track
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.added == nil {
		w.added = make(map[int64]int)
	}
	for _, m := range members {
		c, ok := w.added[m]
		if !ok && len(w.added) >= track {
			if !w.overflowed {
				w.Log.Warn("timeline trim: more members got fan-out rows than the worker tracks; the others wait for the full trim",
					"track", track)
			}
			w.overflowed = true
			continue
		}
		w.added[m] = c + 1
	}
	return n, nil
}

// trim does one tick of the trimming: it cuts the timelines of the members
// whose counts reached Slack back to Cap and, when full, then every timeline
// over Cap+Slack (Trim), the counts starting afresh as it starts. It
// reports how many timelines it cut.
//
// A count says only what this worker added: the member's timeline may
// have been shorter than Cap (trimSQL then does nothing) or have grown by
// rows the worker did not see (the full trim cuts it). From the worker's
// own fan-out, a timeline it counts grows between full trims to at most
// about Cap+2*Slack rows (up to Cap+Slack when counting starts, plus Slack)
// and what one TrimEvery adds.
func (w *Worker) trim(ctx context.Context, full bool) (int, error) {
	// The members due are taken out of the counts before their cuts, so a
	// member whose cut keeps failing does not stop every later tick (the
	// full trim finds it if it is still long); the fan-out counts on
	// meanwhile. A failed tick puts back the members it did not get to.
	type count struct {
		member int64
		rows   int
	}
	w.mu.Lock()
	var due []count
	for m, n := range w.added {
		if n >= Slack {
			due = append(due, count{m, n})
			delete(w.added, m)
		}
	}
	if full {
		// Trim leaves every timeline at most Cap+Slack long, as at start:
		// what the fan-out writes from now on is counted.
		w.added, w.overflowed = nil, false
	}
	w.mu.Unlock()
	done := 0
	for i, d := range due {
		raised, err := cut(ctx, w.prepared(), d.member)
		if err != nil {
			if !full {
				w.mu.Lock()
				if w.added == nil {
					w.added = make(map[int64]int)
				}
				for _, d := range due[i+1:] {
					w.added[d.member] += d.rows
				}
				w.mu.Unlock()
			}
			return done, err
		}
		// No horizon is written for a timeline shorter than Cap.
		if raised {
			done++
		}
	}
	if !full {
		return done, nil
	}
	n, err := Trim(ctx, w.DB)
	return done + n, err
}
