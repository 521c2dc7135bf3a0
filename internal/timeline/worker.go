package timeline

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
)

// FanOut moves at most batch posts from the outbox to their authors'
// followers' timelines in one statement (so in one transaction: the outbox
// rows go exactly when the timeline rows come), and reports how many posts
// and timeline rows it wrote. Concurrent workers (other instances) skip each
// other's posts.
func FanOut(ctx context.Context, ex sqlx.QueryerContext, batch int) (posts, rows int64, err error) {
	const q = `
		WITH claimed AS (
		    DELETE FROM feed_outbox o
		     WHERE o.post_id IN (SELECT post_id FROM feed_outbox ORDER BY post_id LIMIT $1 FOR UPDATE SKIP LOCKED)
		    RETURNING o.post_id, o.author_id, o.created_at
		), ins AS (
		    INSERT INTO timeline (member_id, created_at, post_id, author_id)
		    SELECT f.follower_id, c.created_at, c.post_id, c.author_id
		      FROM claimed c
		      JOIN members m ON m.id = c.author_id AND NOT m.fanout_on_read
		      JOIN follows f ON f.followee_id = c.author_id
		    ON CONFLICT DO NOTHING
		    RETURNING 1
		)
		SELECT (SELECT count(*) FROM claimed) AS posts, (SELECT count(*) FROM ins) AS rows`
	var r struct {
		Posts int64 `db:"posts"`
		Rows  int64 `db:"rows"`
	}
	if err := sqlx.GetContext(ctx, ex, &r, q, batch); err != nil {
		return 0, 0, pg.Classify(ctx, fmt.Errorf("fan out: %w", err))
	}
	return r.Posts, r.Rows, nil
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
			if _, err := db.ExecContext(ctx, trimSQL, m, Cap); err != nil {
				return trimmed, pg.Classify(ctx, fmt.Errorf("trim timeline: %w", err))
			}
			trimmed++
		}
	}
	return trimmed, nil
}

// trimSQL cuts member $1's timeline to its newest $2 rows and raises the
// member's horizon to the oldest kept.
var trimSQL = `
	WITH edge AS (
	    SELECT created_at, post_id FROM timeline WHERE member_id = $1
	     ORDER BY created_at DESC, post_id DESC OFFSET $2 - 1 LIMIT 1
	), del AS (
	    DELETE FROM timeline t USING edge
	     WHERE t.member_id = $1 AND (t.created_at, t.post_id) < (edge.created_at, edge.post_id)
	)
	INSERT INTO timeline_horizons AS th (member_id, created_at, post_id)
	SELECT $1, created_at, post_id FROM edge` + raiseHorizon

// Worker runs the fan-out and the trimming in the background of a server.
// Several instances may run one each.
type Worker struct {
	DB  *sqlx.DB
	Log *slog.Logger
	// Idle is how long the worker sleeps when the outbox is empty (the read
	// path merges pending posts, so this is a cost, not a visible lag).
	Idle time.Duration
	// Batch is how many posts one fan-out statement takes.
	Batch int
	// TrimEvery is how often timelines are trimmed.
	TrimEvery time.Duration
}

// Run works until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	idle, batch, trimEvery := w.Idle, w.Batch, w.TrimEvery
	if idle <= 0 {
		idle = 200 * time.Millisecond
	}
	if batch <= 0 {
		batch = 20
	}
	if trimEvery <= 0 {
		trimEvery = 5 * time.Minute
	}
	nextTrim := time.Now().Add(trimEvery)
	failing := false
	// cur shrinks on failure (a batch of celebrities' posts may outlast the
	// statement timeout) and grows back on success.
	cur := batch
	for ctx.Err() == nil {
		wait := idle
		n, _, err := FanOut(ctx, w.DB, cur)
		if err != nil {
			cur = max(1, cur/2)
		} else {
			cur = min(batch, cur*2)
		}
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
		if !failing && time.Now().After(nextTrim) {
			nextTrim = time.Now().Add(trimEvery)
			if cut, err := Trim(ctx, w.DB); err != nil && ctx.Err() == nil {
				w.Log.Warn("timeline trim failed", "error", err.Error(), "trimmed", cut)
			}
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
