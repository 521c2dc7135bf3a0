package timeline

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg"
)

// DormantAfter is how long a member may go without using the service before
// the fan-out stops writing to their timeline (TIMELINE_DORMANT_AFTER).
// Mastodon stops feeding the home timelines of accounts idle for two weeks
// and regenerates them when they come back; Twitter kept timelines only for
// active accounts.
const DormantAfter = 14 * 24 * time.Hour

// A member's timeline is in one of three states:
//
//   - active: fanned out to, complete at and above the horizon;
//   - dormant (a timeline_dormant row, horizon 'infinity'): not fanned out
//     to, rows deleted; reads find nothing complete and fall back to fan-out
//     on read, after waking the member (Wake);
//   - waking (horizon 'infinity', no timeline_dormant row): fanned out to
//     again, not yet rebuilt; read on fan-out. Wake finishes it. A member
//     left waking (a crash between Wake's two steps) is finished by their
//     next read.
//
// The order of the steps is what keeps a woken timeline exact: the
// dormant row goes in its own transaction before the rebuild reads posts, so
// every post is either committed before the rebuild's snapshot (and rebuilt)
// or fanned out by a statement that sees the member active.

// restSQL makes the members of $1 that have used no token since $2 and
// joined before it dormant: their timeline_dormant row, their horizon at
// 'infinity' (it only rises), their rows deleted. The caller holds their
// members rows (restLockSQL), so no Wake of theirs runs meanwhile and this
// statement's snapshot, taken after the locks, sees every wake before it.
// It returns the members it made dormant.
var restSQL = restStatement("m.id = ANY ($1::bigint[])", "SELECT id FROM idle")

// idleMember is the SQL condition that member m is not dormant, joined
// before $2 and has used no token since: whom Rest makes dormant.
const idleMember = `m.created_at < $2
	       AND NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = m.id)
	       AND NOT EXISTS (SELECT 1 FROM api_tokens t JOIN api_token_uses u ON u.token_id = t.id
	                        WHERE t.member_id = m.id AND u.last_used_at >= $2)`

// restStatement is restSQL for the members that the condition among (on
// members m) chooses, ending with final (on idle, the members made dormant).
func restStatement(among, final string) string {
	return `
	WITH idle AS (
	    SELECT m.id FROM members m
	     WHERE ` + among + ` AND ` + idleMember + `
	), dormant AS (
	    INSERT INTO timeline_dormant (member_id) SELECT id FROM idle ON CONFLICT DO NOTHING
	), horizon AS (
	    INSERT INTO timeline_horizons AS th (member_id, created_at, post_id)
	    SELECT id, 'infinity', 0 FROM idle` + raiseHorizon + `
	), cleared AS (
	    DELETE FROM timeline t WHERE t.member_id IN (SELECT id FROM idle)
	)
	` + final
}

// RestAll is Rest in one statement, within the caller's transaction and
// with nothing else running (the synthetic data generator, after it built
// every timeline): it takes no locks first. $1 is unused.
func RestAll(ctx context.Context, ex interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, before time.Time) (int64, error) {
	var n int64
	if err := ex.QueryRowContext(ctx, restAllSQL, nil, before).Scan(&n); err != nil {
		return 0, fmt.Errorf("make idle members dormant: %w", err)
	}
	return n, nil
}

var restAllSQL = restStatement("$1::bigint IS NULL", "SELECT count(*) FROM idle")

// restLockSQL locks the members rows of $1 that no one else holds (the
// follow toggle, a Wake); the others are looked at next time.
const restLockSQL = `SELECT id FROM members WHERE id = ANY ($1::bigint[]) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`

// restCandidatesSQL lists, after member $1, up to $3 members who are not
// dormant and have used no token since $2: the candidates restSQL checks
// again under their locks.
const restCandidatesSQL = `
	SELECT m.id FROM members m
	 WHERE m.id > $1 AND ` + idleMember + `
	 ORDER BY m.id
	 LIMIT $3`

// restChunk is how many members one transaction of Rest makes dormant at
// most, so that it holds few locks for little time.
const restChunk = 200

// Rest makes every member who has used no token since before (and joined
// before it) dormant, in chunks of restChunk, and reports how many. A member
// whose row is locked (a follow, a wake under way) is left for the next
// time.
func Rest(ctx context.Context, db *sqlx.DB, before time.Time) (int, error) {
	rested := 0
	after := int64(0)
	for {
		var ids []int64
		if err := db.SelectContext(ctx, &ids, restCandidatesSQL, after, before, restChunk); err != nil {
			return rested, pg.Classify(ctx, fmt.Errorf("find idle members: %w", err))
		}
		if len(ids) == 0 {
			return rested, nil
		}
		after = ids[len(ids)-1]
		err := pg.WithTx(ctx, db, func(tx *sqlx.Tx) error {
			var locked []int64
			if err := tx.SelectContext(ctx, &locked, restLockSQL, pq.Array(ids)); err != nil {
				return err
			}
			var done []int64
			if err := tx.SelectContext(ctx, &done, restSQL, pq.Array(locked), before); err != nil {
				return err
			}
			rested += len(done)
			return nil
		})
		if err != nil {
			return rested, pg.Classify(ctx, fmt.Errorf("make idle members dormant: %w", err))
		}
	}
}

// wakeSQL is Wake's first step: the member is fanned out to from now on.
const wakeSQL = `DELETE FROM timeline_dormant WHERE member_id = $1`

// wakeLockSQL holds the member's row for the rebuild: a follow or unfollow
// of theirs, or Rest, runs before it or after it, never during it.
const wakeLockSQL = `SELECT id FROM members WHERE id = $1 FOR NO KEY UPDATE`

// rebuildSQL is Wake's second step, for member $1 and Cap $2, when the
// member is waking (horizon 'infinity', not dormant): the newest $2 posts of
// the member's home feed as fan-out on read chooses them (their own posts
// and their followees' non-private ones, as timeline_rebuild does) go into
// the timeline, and the horizon comes down to the oldest of them, or goes
// when there are fewer (the timeline then holds the whole feed). It returns
// whether it rebuilt.
const rebuildSQL = `
	WITH waking AS (
	    SELECT 1 FROM timeline_horizons h
	     WHERE h.member_id = $1 AND NOT isfinite(h.created_at)
	       AND NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = $1)
	), top AS MATERIALIZED (
	    SELECT x.id, x.created_at, x.author_id
	      FROM (SELECT f.followee_id AS author_id FROM follows f WHERE f.follower_id = $1
	            UNION ALL
	            SELECT $1::bigint) a
	     CROSS JOIN LATERAL (
	          SELECT p.id, p.created_at, p.author_id
	            FROM posts p
	           WHERE p.author_id = a.author_id AND (p.visibility <> 'private' OR p.author_id = $1)
	           ORDER BY p.created_at DESC, p.id DESC
	           LIMIT $2
	     ) x
	     WHERE EXISTS (SELECT 1 FROM waking)
	     ORDER BY x.created_at DESC, x.id DESC
	     LIMIT $2
	), rows AS (
	    INSERT INTO timeline (member_id, created_at, post_id, author_id)
	    SELECT $1, created_at, id, author_id FROM top
	    ON CONFLICT DO NOTHING
	), lowered AS (
	    UPDATE timeline_horizons h SET created_at = o.created_at, post_id = o.id
	      FROM (SELECT created_at, id FROM top ORDER BY created_at, id LIMIT 1) o
	     WHERE h.member_id = $1 AND EXISTS (SELECT 1 FROM waking) AND (SELECT count(*) FROM top) >= $2
	), complete AS (
	    DELETE FROM timeline_horizons h
	     WHERE h.member_id = $1 AND EXISTS (SELECT 1 FROM waking) AND (SELECT count(*) FROM top) < $2
	)
	SELECT EXISTS (SELECT 1 FROM waking)`

// Wake makes a dormant or waking member's timeline active again and
// rebuilds it, and reports whether it did (false: the member is not waking,
// or was made dormant again meanwhile; reads then stay on fan-out on read).
// Feed reads call it when they meet an 'infinity' horizon. It costs a
// fan-out-on-read walk of the Cap newest posts of the member's feed, once.
func Wake(ctx context.Context, db *sqlx.DB, memberID int64) (bool, error) {
	// Committed on its own before the rebuild's snapshot: see the states above.
	if _, err := db.ExecContext(ctx, wakeSQL, memberID); err != nil {
		return false, pg.Classify(ctx, fmt.Errorf("wake timeline: %w", err))
	}
	var rebuilt bool
	err := pg.WithTx(ctx, db, func(tx *sqlx.Tx) error {
		var id int64
		if err := tx.GetContext(ctx, &id, wakeLockSQL, memberID); err != nil {
			return err
		}
		// A statement of its own: its snapshot comes after the lock, so it
		// sees every follow, unfollow and Rest that held the row before.
		return tx.GetContext(ctx, &rebuilt, rebuildSQL, memberID, Cap)
	})
	if err != nil {
		return false, pg.Classify(ctx, fmt.Errorf("rebuild timeline: %w", err))
	}
	return rebuilt, nil
}
