// Package timeline keeps the home timelines fanned out on write
// (DESIGN.md): one row per (member, post) for the
// newest posts of each member's home feed, capped per member.
//
// The ground truth of a home feed is fan-out on read (the viewer's own posts
// and the public and followers-only posts of the members they follow). The
// timeline table is a durable index of it, kept exact above each member's
// horizon:
//
//   - a new post writes the author's own row in its transaction and a
//     feed_outbox row; the Worker later moves it to every follower's timeline
//     in one statement that also deletes the outbox row, so a post is fanned
//     out exactly once, even across a crash;
//   - reads merge the pending outbox rows of the viewer's followees, so a
//     feed never lags the worker (Page);
//   - following merges the followee's newest posts in, unfollowing removes
//     them, deleting a post removes its rows;
//   - trimming keeps Cap rows per member and raises the member's horizon,
//     below which reads fall back to fan-out on read: the Worker cuts the
//     timelines its own fan-out has grown by Slack rows, and looks at every
//     timeline (Trim) only now and then;
//   - every read re-checks visibility when it hydrates, so a stale row can
//     never show a post to someone who may not see it; the page statement
//     itself already leaves out the posts of authors the reader's stream
//     hides (visibility.AuthorInStream: suspended, blocked either way,
//     muted), so blocks, mutes and suspensions leave no row behind to clean
//     up and pages stay exact.
package timeline

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Cap is how many entries a member's timeline keeps (Mastodon keeps 400,
// Twitter kept 800); the Worker cuts a timeline back to it once it has
// fanned Slack more rows out to it, and Trim once it holds more than
// Cap+Slack.
const (
	Cap   = 400
	Slack = 100
)

// FanOutOnReadFollowers is the follower count from which a member's posts
// are no longer fanned out on write: reads merge them from posts instead
// (members.fanout_on_read, set once and kept). Fanning a post out to
// thousands of timelines costs tens of milliseconds of the database, and a
// burst of such posts would queue for minutes; reading a handful of such
// followees' newest posts costs one index range each.
const FanOutOnReadFollowers = 5000

// horizonCTE is the WITH item "horizon": member $1's horizon row, if any,
// read once per statement. atOrAboveHorizon tests against it rather than
// against timeline_horizons itself: the planner, expecting a handful of
// candidate rows, looked the horizon up again for each (an index scan of 3
// buffers), and for a member who follows many fan-out-on-read members those
// lookups became most of the page's reads (docs/performance-journal.md,
// "Horizon read once per statement").
const horizonCTE = `horizon AS MATERIALIZED (
		    SELECT h.created_at, h.post_id FROM timeline_horizons h WHERE h.member_id = $1
		)`

// atOrAboveHorizon is the SQL condition that the position (createdAt, id),
// two SQL expressions, is at or above member $1's horizon (always true when
// the member has none): the part of a timeline that is complete. The
// statement must define horizonCTE.
func atOrAboveHorizon(createdAt, id string) string {
	return "NOT EXISTS (SELECT 1 FROM horizon h WHERE (" + createdAt + ", " + id + ") < (h.created_at, h.post_id))"
}

// atOrAboveFiniteHorizon is atOrAboveHorizon taking a dormant or waking
// member's 'infinity' horizon for none: Follow merges into such timelines
// too, since a Wake that committed while the follow waited for the
// follower's row did not see the follow, and the follow's snapshot does not
// see the Wake's lowered horizon.
func atOrAboveFiniteHorizon(createdAt, id string) string {
	return "NOT EXISTS (SELECT 1 FROM timeline_horizons h WHERE h.member_id = $1 AND isfinite(h.created_at) AND (" +
		createdAt + ", " + id + ") < (h.created_at, h.post_id))"
}

// raiseHorizon completes an INSERT INTO timeline_horizons AS th: the
// horizon only ever rises (a lower one would claim rows the timeline lacks).
const raiseHorizon = `
		ON CONFLICT (member_id) DO UPDATE SET created_at = excluded.created_at, post_id = excluded.post_id
		 WHERE (th.created_at, th.post_id) < (excluded.created_at, excluded.post_id)`

// Publish returns the WITH items that record a new post for the timelines,
// for the statement that inserts it: the author's own entry at once, and
// the fan-out to followers queued (private posts are the author's alone;
// members read on fan-out are not queued). post names the statement's CTE
// of the inserted post, with the columns id, author_id, created_at and
// visibility. One statement is atomic, so the post never exists without
// its entries. The post is new, so its own row cannot be there yet: a
// plain insert, without the speculative insertion of ON CONFLICT.
func Publish(post string) string {
	return `own AS (
	    INSERT INTO timeline (member_id, created_at, post_id, author_id)
	    SELECT x.author_id, x.created_at, x.id, x.author_id FROM ` + post + ` x
	), queued AS (
	    INSERT INTO feed_outbox (post_id, author_id, created_at)
	    SELECT x.id, x.author_id, x.created_at FROM ` + post + ` x
	     WHERE x.visibility <> 'private'
	       AND NOT (SELECT m.fanout_on_read FROM members m WHERE m.id = x.author_id)
	)`
}

// Retract returns the WITH item that removes a deleted post from the
// timelines of its author and of the author's followers (reads skip deleted
// posts anyway; this keeps pages full), for the statement that deletes it.
// Rows of members who stopped following were removed when they did. del
// names the statement's CTE of the deleted post, with the columns id,
// author_id and created_at.
func Retract(del string) string {
	return `retracted AS (
	    DELETE FROM timeline t USING ` + del + ` x
	     WHERE t.created_at = x.created_at AND t.post_id = x.id
	       AND (t.member_id = x.author_id
	            OR t.member_id IN (SELECT f.follower_id FROM follows f WHERE f.followee_id = x.author_id))
	)`
}

// Follow returns the WITH items that merge a followee's newest posts that
// the follower ($1 of the statement) may now see into the follower's
// timeline, for the statement that creates the follow (after it counted
// it): followee is an SQL expression of the followee's id, followed an SQL
// condition true when the statement created the follow, readOnFanOut one
// true when the followee is read on fan-out (or becomes so with this
// follow; reads find their posts, so nothing is merged), and capArg the
// placeholder of Cap. When the followee has more than Cap such posts, the
// follower's horizon rises to the oldest merged one: below it, the timeline
// would have a gap.
func Follow(followee, followed, readOnFanOut, capArg string) string {
	return `merged AS (
	    SELECT p.id, p.created_at
	      FROM posts p
	     WHERE p.author_id = ` + followee + ` AND p.visibility <> 'private'
	       AND (` + followed + `) AND NOT (` + readOnFanOut + `)
	       AND ` + atOrAboveFiniteHorizon("p.created_at", "p.id") + `
	       AND p.created_at >= ` + horizonTime + `
	     ORDER BY p.created_at DESC, p.id DESC
	     LIMIT ` + capArg + `
	), merged_rows AS (
	    INSERT INTO timeline (member_id, created_at, post_id, author_id)
	    SELECT $1, m.created_at, m.id, ` + followee + ` FROM merged m
	    ON CONFLICT DO NOTHING
	), merged_horizon AS (
	    INSERT INTO timeline_horizons AS th (member_id, created_at, post_id)
	    SELECT $1, o.created_at, o.id
	      FROM (SELECT created_at, id FROM merged ORDER BY created_at, id LIMIT 1) o
	     WHERE (SELECT count(*) FROM merged) >= ` + capArg + raiseHorizon + `
	)`
}

// horizonTime is the created_at of member $1's finite horizon ('-infinity'
// for none): a bound that the posts index can range over, so that a followee's
// posts below the horizon are not read (the exact position is compared as
// a row, which the index cannot).
const horizonTime = `COALESCE((SELECT h.created_at FROM timeline_horizons h WHERE h.member_id = $1 AND isfinite(h.created_at)), '-infinity')`

// Unfollow returns the WITH item that removes a followee's posts from the
// follower's ($1 of the statement) timeline, for the statement that removes
// the follow: followee is an SQL expression of the followee's id,
// unfollowed an SQL condition true when the statement removed the follow.
func Unfollow(followee, unfollowed string) string {
	return `unmerged AS (
	    DELETE FROM timeline t
	     WHERE t.member_id = $1 AND t.author_id = ` + followee + ` AND (` + unfollowed + `)
	)`
}

// PageSQL returns the statement that chooses a page of memberID's home
// timeline ($1) after the position after (nil: from the newest): the id and
// created_at of at most $2 posts, newest first, from the timeline rows at or
// above the member's horizon, the outbox rows of the member's followees not
// yet fanned out, and the newest posts of the followees read on fan-out
// (members.fanout_on_read; duplicates of their posts fanned out before
// they became so are dropped). Arguments start at $3. Every source leaves
// out the authors the member's stream hides (visibility.AuthorInStream on
// the author's id, which each row carries): a timeline row outlives the
// block, mute or suspension that hides it, and a page of hidden rows would
// be a short page that is not the end of the feed. The statement reads the
// WITH items of visibility.For("$1"), which the statement around it
// declares (hydrate's page statements do; Standalone wraps it alone): the
// rule is applied four times per page, once per source here and once to
// the posts hydrated. The outbox rows are
// filtered above an OFFSET 0 fence, and so are the followees read on
// fan-out: written into their join, the filter changed the join's row
// estimate and with it the plan (one scan of the nearly empty outbox became
// an index probe per followee; the merge of the followees with the
// member's follows a probe of follows per followee read on fan-out)
// (docs/performance-journal.md, "Blocks, mutes and suspension").
//
// The page is exact at and above the horizon. A page that comes back short
// ends either the feed or the timeline: Horizon tells which. When the
// timeline alone fills the page, posts read on fan-out that are older than
// its last row cannot make the page: their index scans stop there (floor),
// which halves the cost of a page for a member who follows celebrities.
// floor is tl's row at offset $2-1, which exists only when tl is full: a
// count of tl said the same through an aggregate, one of the dearest nodes
// for PostgreSQL to set up at each execution.
func PageSQL(after *cursor.Position, args []any) (string, []any) {
	k := pageKey{after: after != nil, n: len(args)}
	if after != nil {
		args = append(args, after.Time, after.ID)
	}
	if q, ok := pageSQLs.Load(k); ok {
		return q.(string), args
	}
	q, _ := pageSQLs.LoadOrStore(k, pageSQL(k))
	return q.(string), args
}

// hidden is the stream rule for the member $1, shared by the statement's
// fragments.
var hidden = visibility.For("$1")

// Standalone returns a PageSQL statement q made to run by itself: it
// declares the WITH items q reads.
func Standalone(q string) string {
	return "WITH " + hidden.With() + " SELECT id, created_at FROM (" + q + ") page"
}

// pageSQLs memoizes PageSQL's statements, which depend only on their
// pageKey: it was formatted on every feed request.
var pageSQLs sync.Map // pageKey → string

// pageKey is what PageSQL's statement depends on: whether there is a
// cursor, and how many arguments come before its.
type pageKey struct {
	after bool
	n     int
}

// pageSQL is the statement PageSQL returns for k.
func pageSQL(k pageKey) string {
	keysetT, keysetO, keysetP := "", "", ""
	if k.after {
		n := k.n
		keysetT = fmt.Sprintf("AND (t.created_at, t.post_id) < ($%d, $%d)", n+1, n+2)
		keysetO = fmt.Sprintf("AND (o.created_at, o.post_id) < ($%d, $%d)", n+1, n+2)
		keysetP = fmt.Sprintf("AND (p.created_at, p.id) < ($%d, $%d)", n+1, n+2)
	}
	q := `
		WITH ` + horizonCTE + `, tl AS MATERIALIZED (
		    SELECT t.post_id AS id, t.created_at
		      FROM timeline t
		     WHERE t.member_id = $1 ` + keysetT + `
		       AND ` + atOrAboveHorizon("t.created_at", "t.post_id") + `
		       AND ` + hidden.AuthorInStream("t.author_id") + `
		     ORDER BY t.created_at DESC, t.post_id DESC
		     LIMIT $2
		), floor AS (
		    SELECT created_at, id FROM tl ORDER BY created_at DESC, id DESC OFFSET $2 - 1 LIMIT 1
		)
		SELECT x.id, x.created_at FROM (
		    SELECT id, created_at FROM tl
		    UNION ALL
		    (SELECT ob.post_id, ob.created_at
		       FROM (SELECT o.post_id, o.created_at, o.author_id
		               FROM follows f
		               JOIN feed_outbox o ON o.author_id = f.followee_id
		              WHERE f.follower_id = $1 ` + keysetO + `
		                AND NOT EXISTS (SELECT 1 FROM timeline t2
		                                 WHERE t2.member_id = $1 AND t2.created_at = o.created_at AND t2.post_id = o.post_id)
		                AND ` + atOrAboveHorizon("o.created_at", "o.post_id") + `
		             OFFSET 0) ob
		      WHERE ` + hidden.AuthorInStream("ob.author_id") + `)
		    UNION
		    (SELECT c.id, c.created_at
		       FROM (SELECT m.id FROM members m
		               JOIN follows f ON f.followee_id = m.id AND f.follower_id = $1
		              WHERE m.fanout_on_read OFFSET 0) m
		      CROSS JOIN LATERAL (
		           SELECT p.id, p.created_at
		             FROM posts p
		            WHERE p.author_id = m.id AND p.visibility <> 'private' ` + keysetP + `
		              AND (p.created_at, p.id) > (COALESCE((SELECT created_at FROM floor), '-infinity'),
		                                          COALESCE((SELECT id FROM floor), 0))
		            ORDER BY p.created_at DESC, p.id DESC
		            LIMIT $2) c
		      WHERE ` + hidden.AuthorInStream("m.id") + `
		        AND ` + atOrAboveHorizon("c.created_at", "c.id") + `)
		) x
		ORDER BY x.created_at DESC, x.id DESC
		LIMIT $2`
	return q
}

// Horizon returns memberID's horizon: the timeline is complete at and above
// it (nil: complete). It is an error for a dormant or waking member, whose
// timeline has no complete part: see State.
func Horizon(ctx context.Context, q sqlx.QueryerContext, memberID int64) (*cursor.Position, error) {
	h, asleep, err := State(ctx, q, memberID)
	if err == nil && asleep {
		err = fmt.Errorf("timeline horizon: member %d is dormant or waking", memberID)
	}
	return h, err
}

// State returns memberID's horizon as Horizon does, or asleep for a
// dormant or waking member's timeline, none of which is complete (their
// horizon is 'infinity'): Wake it.
func State(ctx context.Context, q sqlx.QueryerContext, memberID int64) (h *cursor.Position, asleep bool, err error) {
	var rows []struct {
		CreatedAt *time.Time `db:"created_at"` // nil: 'infinity'
		PostID    int64      `db:"post_id"`
	}
	const s = `SELECT CASE WHEN isfinite(created_at) THEN created_at END AS created_at, post_id
	             FROM timeline_horizons WHERE member_id = $1`
	if err := sqlx.SelectContext(ctx, q, &rows, s, memberID); err != nil {
		return nil, false, pg.Classify(ctx, fmt.Errorf("timeline horizon: %w", err))
	}
	switch {
	case len(rows) == 0:
		return nil, false, nil
	case rows[0].CreatedAt == nil:
		return nil, true, nil
	}
	return &cursor.Position{Time: *rows[0].CreatedAt, ID: rows[0].PostID}, false, nil
}

// Rebuild rebuilds every timeline from follows and posts, every member's as
// an active one (the synthetic data generator uses it after loading).
func Rebuild(ctx context.Context, ex interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}) (int64, error) {
	const flag = `UPDATE members SET fanout_on_read = true WHERE follower_count >= $1 AND NOT fanout_on_read`
	if _, err := ex.ExecContext(ctx, flag, FanOutOnReadFollowers); err != nil {
		return 0, fmt.Errorf("flag members read on fan-out: %w", err)
	}
	// timeline_rebuild builds every timeline as an active one.
	if _, err := ex.ExecContext(ctx, `TRUNCATE timeline_dormant`); err != nil {
		return 0, fmt.Errorf("wake dormant timelines: %w", err)
	}
	var n int64
	if err := ex.QueryRowContext(ctx, `SELECT timeline_rebuild($1)`, Cap).Scan(&n); err != nil {
		return 0, fmt.Errorf("rebuild timelines: %w", err)
	}
	return n, nil
}
