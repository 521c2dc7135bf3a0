// Package polls announces the polls that have closed: when a poll's
// expires_at has passed, its author and the members who voted in it get a
// `poll` notification about its post, once. Votes are package posts' (a
// poll is created with its post and read with it).
//
// Closing is time-based, so no request causes it: a Closer in each server
// looks for polls due every interval. A poll is announced in the one
// statement that marks it (polls.closed_notified_at) and writes its
// notifications, and the statement takes the polls it announces FOR UPDATE
// SKIP LOCKED: instances running at once share the due polls rather than
// wait for each other, and a poll another instance announced meanwhile no
// longer matches when its lock is taken, so every close is announced exactly
// once.
package polls

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// closeSQL announces at most $1 polls whose expires_at has passed and that
// are not announced yet, the longest closed first, and returns how many polls
// it announced and how many notifications it wrote.
//
// The notifications are dated when the poll closed (its expires_at), the
// event they tell of, however late the closer ran. They obey the rule of
// every notification: the author is told unless suspended; a voter (other
// than the author) is told while the post's own setting lets them see it
// (visibility.Setting) and the author may notify them (visibility.Notifies:
// neither suspended, no block either way, no mute), as a mention is. A poll
// is marked announced either way: a member who could not be told when it
// closed is not told later.
var closeSQL = `
	WITH due AS (
	    SELECT pl.id, pl.post_id, pl.expires_at
	      FROM polls pl
	     WHERE pl.closed_notified_at IS NULL AND pl.expires_at <= now()
	     ORDER BY pl.expires_at
	     LIMIT $1
	       FOR UPDATE SKIP LOCKED
	), announced AS (
	    UPDATE polls pl SET closed_notified_at = now() FROM due WHERE pl.id = due.id
	    RETURNING pl.id
	), notified AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, post_id, created_at)
	    SELECT p.author_id, 'poll', p.author_id, p.id, due.expires_at
	      FROM due JOIN posts p ON p.id = due.post_id
	     WHERE ` + visibility.NotSuspended("p.author_id") + `
	    UNION ALL
	    SELECT v.member_id, 'poll', p.author_id, p.id, due.expires_at
	      FROM due
	      JOIN posts p ON p.id = due.post_id
	      JOIN LATERAL (SELECT DISTINCT pv.member_id FROM poll_votes pv WHERE pv.poll_id = due.id) v ON true
	     WHERE v.member_id <> p.author_id AND ` + visibility.Setting("p", "v.member_id") + `
	       AND ` + visibility.Notifies("p.author_id", "v.member_id") + `
	    RETURNING 1
	)
	SELECT (SELECT count(*) FROM announced) AS polls, (SELECT count(*) FROM notified) AS notifications`

// Close announces at most batch of the polls that have closed and are not
// announced yet (see closeSQL), in one statement, so in one transaction. It
// reports how many polls it announced and how many notifications it wrote.
func Close(ctx context.Context, q sqlx.QueryerContext, batch int) (polls, notifications int64, err error) {
	var r struct {
		Polls         int64 `db:"polls"`
		Notifications int64 `db:"notifications"`
	}
	if err := sqlx.GetContext(ctx, q, &r, closeSQL, batch); err != nil {
		return 0, 0, pg.Classify(ctx, fmt.Errorf("announce closed polls: %w", err))
	}
	return r.Polls, r.Notifications, nil
}

// DefaultEvery is how often a Closer looks for polls due unless told
// otherwise: a poll's author hears of its close within about that.
const DefaultEvery = 30 * time.Second

// Closer announces closed polls in the background of a server, every Every,
// Batch polls a statement until none is left. Several instances may run one
// each (Close shares the work).
type Closer struct {
	DB    *sqlx.DB
	Log   *slog.Logger
	Every time.Duration
	Batch int
}

// NewCloser returns a Closer on db with the default interval and batch.
func NewCloser(db *sqlx.DB, log *slog.Logger) *Closer {
	return &Closer{DB: db, Log: log, Every: DefaultEvery, Batch: 200}
}

// Run announces what is due at once, then every c.Every, until ctx ends. A
// failure is logged once per outage and retried at the next tick.
func (c *Closer) Run(ctx context.Context) {
	failing := false
	for {
		n, err := c.drain(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			if !failing {
				c.Log.Warn("announcing closed polls failed; retrying every interval", "error", err.Error(), "every", c.Every.String())
			}
			failing = true
		case err == nil && failing:
			c.Log.Info("announcing closed polls recovered")
			failing = false
		}
		if n > 0 {
			c.Log.Debug("closed polls announced", "polls", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.Every):
		}
	}
}

// drain runs Close until a statement finds fewer than c.Batch polls due.
func (c *Closer) drain(ctx context.Context) (int64, error) {
	var total int64
	for ctx.Err() == nil {
		n, _, err := Close(ctx, c.DB, c.Batch)
		total += n
		if err != nil || n < int64(c.Batch) {
			return total, err
		}
	}
	return total, nil
}
