// Package relations writes and lists the blocks and mutes one member places
// on another. What they hide is not decided here but in package visibility,
// the one rule every read applies; this package keeps the rows that rule
// reads, and a block's one write beyond its row: the follow edges it cuts.
package relations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Kind is what one member places on another.
type Kind int

const (
	Block Kind = iota
	Mute
)

// Relationship is the caller's relationship with a member, as a profile's
// viewer object shows it.
type Relationship struct {
	IsSelf     bool `db:"is_self"`
	Following  bool `db:"following"`
	FollowedBy bool `db:"followed_by"`
	Blocking   bool `db:"blocking"`
	Muting     bool `db:"muting"`
}

// Store writes and lists blocks and mutes.
type Store struct {
	db   *sqlx.DB
	prep *pg.Prepared
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db, prep: pg.NewPrepared(db)} }

// targetSQL resolves the handle $2 to a member the caller $1 may see
// (visibility.MemberRow): a member who blocks the caller is answered like an
// unknown one. $3 is the token check (auth.GuardSQL).
var targetSQL = `SELECT m.id FROM members m
	 WHERE lower(m.handle) = lower($2) AND ` + visibility.MemberRow("m", "$1") + ` AND ` + auth.GuardSQL("$3")

// lockSQL locks both members' rows in id order, as a follow write does
// (internal/follows): a follow of the pair either committed before the
// block's write statement takes its snapshot, or waits and then sees the
// block (the blocker's block_count moved under its lock).
const lockSQL = `SELECT id FROM members WHERE id IN ($1, $2) ORDER BY id FOR NO KEY UPDATE`

// blockSQL writes the block of $2 by $1 (once: blocking again changes
// nothing), removes both follow edges of the pair with their counters,
// timeline rows and follow notifications, and bumps the blocker's
// block_count when the block is new.
const blockSQL = `
	WITH ins AS (
	    INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES ($1, $2, date_trunc('second', now()))
	    ON CONFLICT DO NOTHING
	    RETURNING blocker_id
	), del AS (
	    DELETE FROM follows f
	     WHERE (f.follower_id = $1 AND f.followee_id = $2) OR (f.follower_id = $2 AND f.followee_id = $1)
	    RETURNING f.follower_id, f.followee_id
	), counted AS (
	    UPDATE members m
	       SET following_count = m.following_count - (SELECT count(*) FROM del WHERE del.follower_id = m.id),
	           follower_count  = m.follower_count  - (SELECT count(*) FROM del WHERE del.followee_id = m.id),
	           block_count     = m.block_count + CASE WHEN m.id = $1 THEN (SELECT count(*) FROM ins) ELSE 0 END
	     WHERE m.id IN ($1, $2) AND (EXISTS (SELECT 1 FROM del) OR EXISTS (SELECT 1 FROM ins))
	    RETURNING m.id
	), unmerged AS (
	    DELETE FROM timeline t
	     USING del
	     WHERE t.member_id = del.follower_id AND t.author_id = del.followee_id
	), unnotified AS (
	    DELETE FROM notifications n
	     USING del
	     WHERE n.recipient_id = del.followee_id AND n.actor_id = del.follower_id AND n.type = 'follow'
	)
	SELECT (SELECT count(*) FROM counted) AS n`

// unblockSQL lifts the block of $2 by $1, if any.
const unblockSQL = `
	WITH del AS (
	    DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING blocker_id
	)
	UPDATE members SET block_count = block_count - 1 WHERE id = $1 AND EXISTS (SELECT 1 FROM del)`

const (
	muteSQL   = `INSERT INTO mutes (muter_id, muted_id, created_at) VALUES ($1, $2, date_trunc('second', now())) ON CONFLICT DO NOTHING`
	unmuteSQL = `DELETE FROM mutes WHERE muter_id = $1 AND muted_id = $2`
)

// relationshipSQL reads the relationship of $1 with $2.
const relationshipSQL = `SELECT $1::bigint = $2::bigint AS is_self,
	EXISTS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = $2) AS following,
	EXISTS (SELECT 1 FROM follows WHERE follower_id = $2 AND followee_id = $1) AS followed_by,
	EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2) AS blocking,
	EXISTS (SELECT 1 FROM mutes WHERE muter_id = $1 AND muted_id = $2) AS muting`

// Set places (on: true) or lifts a block or mute by memberID on the member
// with handle, and returns the relationship afterwards. Setting what is
// already set, or lifting what is not, changes nothing. An unknown handle,
// or one of a member memberID may not see, is NotFound; memberID's own is
// CannotBlockSelf or CannotMuteSelf.
func (s *Store) Set(ctx context.Context, memberID int64, handle string, kind Kind, on bool) (Relationship, error) {
	var rel Relationship
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var target int64
		err := tx.GetContext(ctx, &target, targetSQL, memberID, handle, auth.GuardArg(ctx))
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "No member with this handle.")
		}
		if err != nil {
			return err
		}
		auth.Confirm(ctx)
		if target == memberID {
			if kind == Block {
				return apperr.New(apperr.CannotBlockSelf, "You cannot block yourself.")
			}
			return apperr.New(apperr.CannotMuteSelf, "You cannot mute yourself.")
		}
		switch {
		case kind == Block && on:
			if _, err := tx.ExecContext(ctx, lockSQL, memberID, target); err != nil {
				return err
			}
			var n int
			if err := tx.GetContext(ctx, &n, blockSQL, memberID, target); err != nil {
				return err
			}
		case kind == Block:
			if _, err := tx.ExecContext(ctx, unblockSQL, memberID, target); err != nil {
				return err
			}
		case on:
			if _, err := tx.ExecContext(ctx, muteSQL, memberID, target); err != nil {
				return err
			}
		default:
			if _, err := tx.ExecContext(ctx, unmuteSQL, memberID, target); err != nil {
				return err
			}
		}
		return tx.GetContext(ctx, &rel, relationshipSQL, memberID, target)
	})
	if err != nil {
		if apperr.CodeOf(err) != "" {
			return Relationship{}, err
		}
		return Relationship{}, pg.Classify(ctx, fmt.Errorf("set relation: %w", err))
	}
	return rel, nil
}

// Item is one member of a list of blocks or mutes: the member and when the
// relation was placed (the list's sort key).
type Item struct {
	MemberID  int64     `db:"member_id"`
	CreatedAt time.Time `db:"created_at"`
}

// Position implements cursor.Keyed.
func (it Item) Position() cursor.Position {
	return cursor.Position{Time: it.CreatedAt, ID: it.MemberID}
}

// listSQL lists, for each kind, the members $1 places it on, newest first,
// after the position ($2, $3) when $2 is not null, at most $4 rows. The
// members the caller may not see now (suspended) are left out by
// hydrate.Profiles, which renders the page.
var listSQL = map[Kind]string{
	Block: `SELECT blocked_id AS member_id, created_at FROM blocks
	         WHERE blocker_id = $1 AND ($2::timestamptz IS NULL OR (created_at, blocked_id) < ($2, $3))
	         ORDER BY created_at DESC, blocked_id DESC LIMIT $4`,
	Mute: `SELECT muted_id AS member_id, created_at FROM mutes
	        WHERE muter_id = $1 AND ($2::timestamptz IS NULL OR (created_at, muted_id) < ($2, $3))
	        ORDER BY created_at DESC, muted_id DESC LIMIT $4`,
}

// List returns at most limit members memberID places kind on, newest first,
// after the position after (nil: from the newest).
func (s *Store) List(ctx context.Context, memberID int64, kind Kind, after *cursor.Position, limit int) ([]Item, error) {
	var at *time.Time
	var id int64
	if after != nil {
		at, id = &after.Time, after.ID
	}
	items := []Item{}
	if err := sqlx.SelectContext(ctx, s.prep, &items, listSQL[kind], memberID, at, id, limit); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list relations: %w", err))
	}
	return items, nil
}
