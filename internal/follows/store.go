// Package follows writes the follow relationship: the toggle of the API and
// the plain follow of the fixture importer. Both keep members.follower_count
// and members.following_count equal to the rows of follows and create (or
// remove) the followee's `follow` notification.
package follows

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/timeline"
)

// Store writes follows.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Toggle makes followerID follow the member with followeeHandle, or stop
// following them if it already does, and reports the resulting state and the
// followee's id. Concurrent toggles of one pair take effect in some serial
// order. Following yourself is CannotFollowSelf; an unknown or suspended
// handle is NotFound.
func (s *Store) Toggle(ctx context.Context, followerID int64, followeeHandle string) (following bool, followeeID int64, err error) {
	err = pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		following, followeeID, err = ToggleTx(ctx, tx, followerID, followeeHandle)
		return err
	})
	return following, followeeID, err
}

// ToggleTx is Toggle within a caller's transaction; ex must be a transaction
// (the pair lock lasts until it ends).
func ToggleTx(ctx context.Context, ex sqlx.ExtContext, followerID int64, followeeHandle string) (following bool, followeeID int64, err error) {
	followeeID, err = lockPair(ctx, ex, followerID, followeeHandle)
	if err != nil {
		return false, 0, err
	}
	// RELIABILITY_NOTES A6: under the pair lock, delete-or-insert and the
	// counters are one statement, so double toggles never collapse.
	const q = `
		WITH del AS (
		    DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2 RETURNING 1
		), ins AS (
		    INSERT INTO follows (follower_id, followee_id)
		    SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM del)
		    ON CONFLICT DO NOTHING
		    RETURNING 1
		), delta AS (
		    SELECT (SELECT count(*) FROM ins) - (SELECT count(*) FROM del) AS d
		)
		UPDATE members m
		   SET follower_count  = m.follower_count  + CASE WHEN m.id = $2 THEN delta.d ELSE 0 END,
		       following_count = m.following_count + CASE WHEN m.id = $1 THEN delta.d ELSE 0 END
		  FROM delta
		 WHERE m.id IN ($1, $2)
		RETURNING delta.d > 0 AS following`
	var rows []bool
	if err := sqlx.SelectContext(ctx, ex, &rows, q, followerID, followeeID); err != nil {
		return false, 0, translate(ctx, err)
	}
	if len(rows) == 0 {
		return false, 0, apperr.New(apperr.NotFound, "No member with this handle.")
	}
	following = rows[0]
	sync := timeline.Unfollow
	if following {
		sync = timeline.Follow
	}
	if err := sync(ctx, ex, followerID, followeeID); err != nil {
		return false, 0, err
	}
	if err := notify(ctx, ex, followerID, followeeID, following, nil); err != nil {
		return false, 0, err
	}
	return following, followeeID, nil
}

// FollowTx makes followerID follow the member with followeeHandle at
// createdAt (nil: now) within a caller's transaction, for the fixture
// importer. It reports whether a new follow was created: following someone
// already followed changes nothing.
func FollowTx(ctx context.Context, ex sqlx.ExtContext, followerID int64, followeeHandle string, createdAt *time.Time) (created bool, followeeID int64, err error) {
	followeeID, err = lockPair(ctx, ex, followerID, followeeHandle)
	if err != nil {
		return false, 0, err
	}
	const q = `
		WITH ins AS (
		    INSERT INTO follows (follower_id, followee_id, created_at)
		    VALUES ($1, $2, COALESCE($3, now()))
		    ON CONFLICT DO NOTHING
		    RETURNING 1
		), delta AS (
		    SELECT count(*) AS d FROM ins
		)
		UPDATE members m
		   SET follower_count  = m.follower_count  + CASE WHEN m.id = $2 THEN delta.d ELSE 0 END,
		       following_count = m.following_count + CASE WHEN m.id = $1 THEN delta.d ELSE 0 END
		  FROM delta
		 WHERE m.id IN ($1, $2)
		RETURNING delta.d > 0 AS created`
	var rows []bool
	if err := sqlx.SelectContext(ctx, ex, &rows, q, followerID, followeeID, createdAt); err != nil {
		return false, 0, translate(ctx, err)
	}
	if len(rows) == 0 {
		return false, 0, apperr.New(apperr.NotFound, "No member with this handle.")
	}
	if rows[0] {
		if err := timeline.Follow(ctx, ex, followerID, followeeID); err != nil {
			return false, 0, err
		}
		if err := notify(ctx, ex, followerID, followeeID, true, createdAt); err != nil {
			return false, 0, err
		}
	}
	return rows[0], followeeID, nil
}

// lockPair resolves the followee and serialises every write on the pair:
// first a transaction-scoped advisory lock on the unordered pair (both
// directions of one pair run one at a time), then the two members' rows in
// id order, so that counter updates of different pairs that share a member
// cannot deadlock.
func lockPair(ctx context.Context, ex sqlx.ExtContext, followerID int64, followeeHandle string) (int64, error) {
	const find = `SELECT id FROM members WHERE lower(handle) = lower($1) AND suspended_at IS NULL`
	var followeeID int64
	err := sqlx.GetContext(ctx, ex, &followeeID, find, followeeHandle)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.New(apperr.NotFound, "No member with this handle.")
	}
	if err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("find followee: %w", err))
	}
	if followeeID == followerID {
		return 0, apperr.New(apperr.CannotFollowSelf, "You cannot follow yourself.")
	}
	const lock = `SELECT pg_advisory_xact_lock(hashtextextended('follow:' || least($1::bigint, $2::bigint) || ':' || greatest($1::bigint, $2::bigint), 0))`
	if _, err := ex.ExecContext(ctx, lock, followerID, followeeID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("lock follow pair: %w", err))
	}
	const rows = `SELECT id FROM members WHERE id IN ($1, $2) ORDER BY id FOR NO KEY UPDATE`
	var ids []int64
	if err := sqlx.SelectContext(ctx, ex, &ids, rows, followerID, followeeID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("lock members: %w", err))
	}
	if len(ids) != 2 {
		return 0, apperr.New(apperr.NotFound, "No member with this handle.")
	}
	return followeeID, nil
}

// notify creates the followee's `follow` notification on a new follow and
// removes it on unfollow.
func notify(ctx context.Context, ex sqlx.ExtContext, followerID, followeeID int64, following bool, at *time.Time) error {
	const del = `DELETE FROM notifications WHERE recipient_id = $1 AND actor_id = $2 AND type = 'follow'`
	if _, err := ex.ExecContext(ctx, del, followeeID, followerID); err != nil {
		return pg.Classify(ctx, fmt.Errorf("delete follow notification: %w", err))
	}
	if !following {
		return nil
	}
	const ins = `
		INSERT INTO notifications (recipient_id, type, actor_id, created_at)
		VALUES ($1, 'follow', $2, COALESCE($3, now()))`
	if _, err := ex.ExecContext(ctx, ins, followeeID, followerID, at); err != nil {
		return pg.Classify(ctx, fmt.Errorf("create follow notification: %w", err))
	}
	return nil
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
