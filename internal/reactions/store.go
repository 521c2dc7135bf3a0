// Package reactions sets and removes a member's one reaction on a post,
// keeping the post's per-type counters and the author's `reaction`
// notification in step.
package reactions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Types are the reaction types, in the order of the API's reaction_counts.
var Types = []string{"like", "love", "haha", "wow", "sad", "angry"}

// Counts are a post's counters after a reaction write.
type Counts struct {
	Like     int64 `db:"like_count"`
	Love     int64 `db:"love_count"`
	Haha     int64 `db:"haha_count"`
	Wow      int64 `db:"wow_count"`
	Sad      int64 `db:"sad_count"`
	Angry    int64 `db:"angry_count"`
	Comments int64 `db:"comment_count"`
	Shares   int64 `db:"share_count"`
	Views    int64 `db:"view_count"`
}

// Reactions is the sum of the six per-type counters.
func (c Counts) Reactions() int64 { return c.Like + c.Love + c.Haha + c.Wow + c.Sad + c.Angry }

// Result is the state after a reaction write: the member's reaction (nil
// when none) and the post's counters.
type Result struct {
	Reaction *string
	Counts   Counts
}

// Store writes reactions.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Set sets memberID's reaction on postID to typ, replacing another type;
// the same type again changes nothing. The post must be visible to the
// member, else NotFound.
func (s *Store) Set(ctx context.Context, memberID, postID int64, typ string) (Result, error) {
	var r Result
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		r, err = SetTx(ctx, tx, memberID, postID, typ, nil)
		return err
	})
	return r, err
}

// counterDelta is the SET list that moves the counters from d.old_type to
// d.new_type (d.new_type NULL: nothing changes).
var counterDelta = func() string {
	var b strings.Builder
	for i, t := range Types {
		if i > 0 {
			b.WriteString(",\n\t\t       ")
		}
		fmt.Fprintf(&b, "%[1]s_count = p.%[1]s_count + CASE WHEN d.new_type IS NULL THEN 0"+
			" ELSE (d.new_type = '%[1]s')::int - (d.old_type IS NOT DISTINCT FROM '%[1]s')::int END", t)
	}
	return b.String()
}()

const returningCounts = `p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count,
		          p.comment_count, p.share_count, p.view_count`

// SetTx is Set within a caller's transaction, at the time at (nil: now);
// ex must be a transaction.
func SetTx(ctx context.Context, ex sqlx.ExtContext, memberID, postID int64, typ string, at *time.Time) (Result, error) {
	authorID, err := lock(ctx, ex, memberID, postID)
	if err != nil {
		return Result{}, err
	}
	// RELIABILITY_NOTES A6, adapted: under the (post, member) lock the old
	// type read here is current, and the upsert and both counters move in
	// one statement; the post row lock serialises concurrent counter updates.
	q := `
		WITH old AS (
		    SELECT type FROM reactions WHERE post_id = $1 AND member_id = $2
		), up AS (
		    INSERT INTO reactions (post_id, member_id, type, created_at, updated_at)
		    VALUES ($1, $2, $3, COALESCE($4, now()), COALESCE($4, now()))
		    ON CONFLICT (post_id, member_id) DO UPDATE SET type = EXCLUDED.type, updated_at = EXCLUDED.updated_at
		     WHERE reactions.type <> EXCLUDED.type
		    RETURNING type
		), d AS (
		    SELECT (SELECT type FROM old) AS old_type, (SELECT type FROM up) AS new_type
		)
		UPDATE posts p
		   SET ` + counterDelta + `
		  FROM d
		 WHERE p.id = $1
		RETURNING d.old_type, d.new_type, ` + returningCounts
	var row struct {
		OldType *string `db:"old_type"`
		NewType *string `db:"new_type"`
		Counts
	}
	if err := sqlx.GetContext(ctx, ex, &row, q, postID, memberID, typ, at); err != nil {
		return Result{}, translate(ctx, "set reaction", err)
	}
	if row.NewType != nil && authorID != memberID {
		if err := notify(ctx, ex, memberID, postID, authorID, *row.NewType, row.OldType == nil, at); err != nil {
			return Result{}, err
		}
	}
	return Result{Reaction: &typ, Counts: row.Counts}, nil
}

// Remove removes memberID's reaction on postID (none: nothing changes) and
// the author's notification about it. The post must be visible to the
// member, else NotFound.
func (s *Store) Remove(ctx context.Context, memberID, postID int64) (Result, error) {
	var r Result
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		r, err = RemoveTx(ctx, tx, memberID, postID)
		return err
	})
	return r, err
}

// RemoveTx is Remove within a caller's transaction; ex must be a transaction.
func RemoveTx(ctx context.Context, ex sqlx.ExtContext, memberID, postID int64) (Result, error) {
	if _, err := lock(ctx, ex, memberID, postID); err != nil {
		return Result{}, err
	}
	sets := make([]string, len(Types))
	for i, t := range Types {
		sets[i] = fmt.Sprintf("%[1]s_count = p.%[1]s_count - (d.old_type IS NOT DISTINCT FROM '%[1]s')::int", t)
	}
	q := `
		WITH del AS (
		    DELETE FROM reactions WHERE post_id = $1 AND member_id = $2 RETURNING type
		), d AS (
		    SELECT (SELECT type FROM del) AS old_type
		)
		UPDATE posts p
		   SET ` + strings.Join(sets, ", ") + `
		  FROM d
		 WHERE p.id = $1
		RETURNING ` + returningCounts
	var c Counts
	if err := sqlx.GetContext(ctx, ex, &c, q, postID, memberID); err != nil {
		return Result{}, translate(ctx, "remove reaction", err)
	}
	const unnotify = `DELETE FROM notifications WHERE type = 'reaction' AND post_id = $1 AND actor_id = $2`
	if _, err := ex.ExecContext(ctx, unnotify, postID, memberID); err != nil {
		return Result{}, pg.Classify(ctx, fmt.Errorf("delete reaction notification: %w", err))
	}
	return Result{Counts: c}, nil
}

// lock checks that the post exists and memberID can see it, returns its
// author, and takes the transaction-scoped lock of the (post, member) pair.
func lock(ctx context.Context, ex sqlx.ExtContext, memberID, postID int64) (authorID int64, err error) {
	find := `SELECT p.author_id FROM posts p WHERE p.id = $1 AND ` + visibility.Post("p", "$2")
	err = sqlx.GetContext(ctx, ex, &authorID, find, postID, memberID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.New(apperr.NotFound, "No such post.")
	}
	if err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("find post: %w", err))
	}
	const q = `SELECT pg_advisory_xact_lock(hashtextextended('reaction:' || $1::bigint || ':' || $2::bigint, 0))`
	if _, err := ex.ExecContext(ctx, q, postID, memberID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("lock reaction: %w", err))
	}
	return authorID, nil
}

// notify creates the author's notification about a new reaction, or points
// the existing one at the new type.
func notify(ctx context.Context, ex sqlx.ExtContext, memberID, postID, authorID int64, typ string, created bool, at *time.Time) error {
	if !created {
		const q = `UPDATE notifications SET reaction = $3 WHERE type = 'reaction' AND post_id = $1 AND actor_id = $2`
		if _, err := ex.ExecContext(ctx, q, postID, memberID, typ); err != nil {
			return pg.Classify(ctx, fmt.Errorf("update reaction notification: %w", err))
		}
		return nil
	}
	const q = `
		INSERT INTO notifications (recipient_id, type, actor_id, post_id, reaction, created_at)
		VALUES ($1, 'reaction', $2, $3, $4, COALESCE($5, now()))`
	if _, err := ex.ExecContext(ctx, q, authorID, memberID, postID, typ, at); err != nil {
		return pg.Classify(ctx, fmt.Errorf("create reaction notification: %w", err))
	}
	return nil
}

func translate(ctx context.Context, what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) { // deleted after the visibility check
		return apperr.New(apperr.NotFound, "No such post.")
	}
	switch pg.ConstraintOf(err) {
	case "reactions_type_check":
		return apperr.Field("/type", "invalid", "type must be one of like, love, haha, wow, sad, angry")
	case "reactions_post_id_fkey":
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return pg.Classify(ctx, fmt.Errorf("%s: %w", what, err))
}
