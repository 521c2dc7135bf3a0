// Package follows writes the follow relationship: the toggle of the API and
// the plain follow of the fixture importer. Both keep members.follower_count
// and members.following_count equal to the rows of follows and create (or
// remove) the followee's `follow` notification, and neither crosses a block.
package follows

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/timeline"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Store writes follows.
type Store struct {
	prep *pg.Prepared // the toggles: long statements, planned once per connection
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{prep: pg.NewPrepared(db)} }

// Toggle makes followerID follow the member with followeeHandle, or stop
// following them if it already does, and reports the resulting state and the
// followee's id. Concurrent toggles of one pair take effect in some serial
// order. Following yourself is CannotFollowSelf; an unknown handle, or one
// of a member followerID may not see (visibility.MemberRow: suspended, or
// blocking followerID), is NotFound; a member followerID blocks is
// MemberBlocked. It is one statement, so it needs no transaction.
func (s *Store) Toggle(ctx context.Context, followerID int64, followeeHandle string) (following bool, followeeID int64, err error) {
	return toggle(ctx, query(s.prep), followerID, followeeHandle)
}

// ToggleTx is Toggle within a caller's transaction, which then holds the
// rows of both members until it ends: no other follow write on either of
// them commits in between.
func ToggleTx(ctx context.Context, ex sqlx.ExtContext, followerID int64, followeeHandle string) (following bool, followeeID int64, err error) {
	return toggle(ctx, query(ex), followerID, followeeHandle)
}

// getter runs a follow write (writeSQL, or toggleProfileSQL) with the
// arguments of writeSQL and returns what it did.
type getter func(ctx context.Context, args ...any) (result, error)

// query is the getter that runs writeSQL through q.
func query(q sqlx.QueryerContext) getter {
	return func(ctx context.Context, args ...any) (result, error) {
		var r result
		err := sqlx.GetContext(ctx, q, &r, writeSQL, args...)
		return r, err
	}
}

// maxAttempts bounds the re-runs of a toggle that lost a race (see
// writeSQL). Each lost race means another write of the pair committed, so a
// second attempt nearly always succeeds.
const maxAttempts = 10

func toggle(ctx context.Context, get getter, followerID int64, followeeHandle string) (bool, int64, error) {
	for range maxAttempts {
		r, err := write(ctx, get, followerID, followeeHandle, true, nil)
		if err != nil {
			return false, 0, err
		}
		if r.Deleted || r.Inserted {
			return r.Inserted, r.FolloweeID, nil
		}
	}
	return false, 0, apperr.Wrap(apperr.Unavailable, "The service is busy. Retry later.", fmt.Errorf("toggle follow: lost %d races in a row", maxAttempts))
}

// FollowTx makes followerID follow the member with followeeHandle at
// createdAt (nil: now) within a caller's transaction, for the fixture
// importer. It reports whether a new follow was created: following someone
// already followed changes nothing. The refusals are Toggle's.
func FollowTx(ctx context.Context, ex sqlx.ExtContext, followerID int64, followeeHandle string, createdAt *time.Time) (created bool, followeeID int64, err error) {
	for range maxAttempts {
		r, err := write(ctx, query(ex), followerID, followeeHandle, false, createdAt)
		if err != nil {
			return false, 0, err
		}
		if r.Settled {
			return r.Inserted, r.FolloweeID, nil
		}
	}
	return false, 0, apperr.Wrap(apperr.Unavailable, "The service is busy. Retry later.", fmt.Errorf("follow: raced a block %d times in a row", maxAttempts))
}

// writeSQL is the follow write: $1 the follower, $2 the followee's handle,
// $3 whether to toggle (else only follow), $4 the time (NULL: now), $5
// timeline.Cap, $6 timeline.FanOutOnReadFollowers. Race-free under
// concurrent toggles, in one statement:
//
//   - both members' rows are locked first, in id order (so that writes of
//     pairs that share a member cannot deadlock, and both directions of a
//     pair run one at a time), which also returns their latest counters,
//     from which the new ones are computed;
//   - under those locks, delete-or-insert: the DELETE waits for a
//     concurrent delete of the row and then finds nothing, so the insert
//     follows it, and two toggles never collapse into one;
//   - a follow inserted by a concurrent write after the statement's
//     snapshot was taken is invisible to it: the insert meets the conflict
//     and does nothing, the statement changes nothing, and a toggle runs
//     it again (a fresh snapshot sees the row);
//   - a new follow merges the followee's posts into the follower's timeline
//     (timeline.Follow) and flags a followee who reaches $6 followers as
//     read on fan-out; an unfollow removes them (timeline.Unfollow);
//   - the followee's follow notification is replaced on a follow (none
//     when the followee mutes the follower: visibility.Notifies) and
//     removed on an unfollow;
//   - nothing is written when the follower blocks the followee (the
//     statement returns blocking, answered MemberBlocked), or when a block
//     or unblock of either member committed between the snapshot and the
//     locks (settled is false: see writeCTEs), which a toggle runs again.
//
// $7 is the token to check, if any (auth.GuardSQL): a token that no
// longer counts finds no followee, and nothing is written.
//
// It returns the followee (no row: no such member, or one the follower may
// not see; the follower's own id: following yourself), whether both members
// exist, whether the snapshot was settled and the follower blocks the
// followee, and what it did.
var writeSQL = writeCTEs("true") + `
	SELECT t.id AS followee_id, ` + outcome + `
	  FROM target t`

// outcome is what the statement of writeCTEs did: whether both members
// exist (locked), whether no block raced it (settled), whether the follower
// blocks the followee, and whether it deleted or inserted the follow.
const outcome = `(SELECT count(*) FROM pair) = 2 AS locked,
	       (SELECT ok FROM settled) AS settled,
	       t.blocking AS blocks_followee,
	       EXISTS (SELECT 1 FROM del) AS deleted,
	       EXISTS (SELECT 1 FROM ins) AS inserted`

// writeCTEs returns the WITH list of writeSQL, for statements that add
// their own SELECT of target, pair, settled, del, ins and counted (which
// returns both members' new counts when the follow changed). proceed is one
// more SQL condition for writing anything, evaluated once both members are
// locked; when it is false the statement changes nothing, like one that
// lost a race, and a toggle runs it again.
//
// The target is a member the follower may see (visibility.MemberRow), and
// blocking says whether the follower blocks them; both are read from the
// statement's snapshot. A block (internal/relations) locks both members'
// rows as pair does and, under those locks, writes the block, deletes both
// follow edges and bumps the blocker's block_count. So a block that
// committed after the snapshot, while this statement waited for the locks,
// shows as a locked row (pair, the latest version) whose block_count
// differs from the snapshot's: settled is false, nothing is written, and
// the statement runs again with a snapshot that holds the block and
// refuses. A block that locks after this statement waits for it, and then
// deletes the edge it wrote.
func writeCTEs(proceed string) string {
	return `
	WITH target AS (
	    SELECT m.id, ` + visibility.Blocks("$1", "m.id") + ` AS blocking
	      FROM members m
	     WHERE lower(m.handle) = lower($2) AND ` + visibility.MemberRow("m", "$1") + ` AND ` + auth.GuardSQL("$7") + `
	), pair AS (
	    SELECT m.id, m.follower_count, m.following_count, m.fanout_on_read, m.suspended_at, m.block_count
	      FROM members m
	     WHERE m.id IN ($1, (SELECT id FROM target)) AND (SELECT id FROM target) <> $1
	     ORDER BY m.id
	       FOR NO KEY UPDATE OF m
	), settled AS MATERIALIZED (
	    SELECT NOT EXISTS (
	        SELECT 1 FROM pair l JOIN members s ON s.id = l.id WHERE l.block_count <> s.block_count) AS ok
	), del AS (
	    DELETE FROM follows f
	     WHERE $3 AND f.follower_id = $1 AND f.followee_id = (SELECT id FROM target)
	       AND (SELECT count(*) FROM pair) = 2 AND (SELECT ok FROM settled)
	       AND NOT (SELECT blocking FROM target) AND (` + proceed + `)
	    RETURNING f.followee_id
	), ins AS (
	    INSERT INTO follows (follower_id, followee_id, created_at)
	    SELECT $1, t.id, COALESCE($4, now()) FROM target t
	     WHERE (SELECT count(*) FROM pair) = 2 AND (SELECT ok FROM settled)
	       AND NOT t.blocking AND (` + proceed + `) AND NOT EXISTS (SELECT 1 FROM del)
	    ON CONFLICT DO NOTHING
	    RETURNING followee_id
	), d AS MATERIALIZED (
	    SELECT (SELECT count(*) FROM ins) - (SELECT count(*) FROM del) AS delta
	), counted AS (
	    UPDATE members m
	       SET follower_count  = pair.follower_count  + CASE WHEN m.id = $1 THEN 0 ELSE d.delta END,
	           following_count = pair.following_count + CASE WHEN m.id = $1 THEN d.delta ELSE 0 END,
	           fanout_on_read  = pair.fanout_on_read
	                             OR (m.id <> $1 AND d.delta > 0 AND pair.follower_count + d.delta >= $6)
	      FROM pair, d
	     WHERE m.id = pair.id AND d.delta <> 0
	    RETURNING m.id, m.fanout_on_read, m.follower_count, m.following_count
	), ` + timeline.Follow("(SELECT id FROM target)", "EXISTS (SELECT 1 FROM ins)",
		"(SELECT c.fanout_on_read FROM counted c WHERE c.id <> $1)", "$5") + `, ` +
		timeline.Unfollow("(SELECT id FROM target)", "EXISTS (SELECT 1 FROM del)") + `, unnotified AS (
	    DELETE FROM notifications n
	     WHERE n.recipient_id = (SELECT id FROM target) AND n.actor_id = $1 AND n.type = 'follow'
	       AND (EXISTS (SELECT 1 FROM del) OR EXISTS (SELECT 1 FROM ins))
	), notified AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, created_at)
	    SELECT followee_id, 'follow', $1, date_trunc('second', COALESCE($4, now())) FROM ins
	     WHERE ` + visibility.Notifies("$1", "ins.followee_id") + `
	)`
}

// result is what writeSQL did.
type result struct {
	FolloweeID int64 `db:"followee_id"`
	Locked     bool  `db:"locked"`          // both members exist
	Settled    bool  `db:"settled"`         // no block or unblock of either committed after the snapshot
	Blocking   bool  `db:"blocks_followee"` // the follower blocks the followee (as of a settled snapshot)
	Deleted    bool  `db:"deleted"`
	Inserted   bool  `db:"inserted"`
}

func write(ctx context.Context, get getter, followerID int64, followeeHandle string, toggle bool, at *time.Time) (result, error) {
	r, err := get(ctx, followerID, followeeHandle, toggle, at, timeline.Cap, timeline.FanOutOnReadFollowers, auth.GuardArg(ctx))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return result{}, apperr.New(apperr.NotFound, "No member with this handle.")
	case err != nil:
		return result{}, translate(ctx, err)
	case r.FolloweeID == followerID:
		return result{}, apperr.New(apperr.CannotFollowSelf, "You cannot follow yourself.")
	case !r.Locked:
		return result{}, apperr.New(apperr.NotFound, "No member with this handle.")
	case !r.Settled:
		return r, nil // nothing written: the caller runs it again
	}
	auth.Confirm(ctx)
	if r.Blocking {
		return result{}, apperr.New(apperr.MemberBlocked, "You block this member; unblock them first.")
	}
	return r, nil
}

func translate(ctx context.Context, err error) error {
	switch pg.ConstraintOf(err) {
	case "follows_self_check":
		return apperr.New(apperr.CannotFollowSelf, "You cannot follow yourself.")
	case "follows_follower_id_fkey", "follows_followee_id_fkey":
		return apperr.New(apperr.NotFound, "No member with this handle.")
	}
	return pg.Classify(ctx, fmt.Errorf("toggle follow: %w", err))
}
