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
	"github.com/socialnet/socialapi/internal/auth"
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
type Store struct {
	db   *sqlx.DB
	prep *pg.Prepared // the write statements, prepared once per connection
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db, prep: pg.NewPrepared(db)} }

// Set sets memberID's reaction on postID to typ, replacing another type;
// the same type again changes nothing. The post must be visible to the
// member, else NotFound. It is one statement, so it needs no transaction.
func (s *Store) Set(ctx context.Context, memberID, postID int64, typ string) (Result, error) {
	return set(ctx, s.prep, memberID, postID, typ, nil)
}

// counterDelta is the SET list that moves the counters of the locked post
// row d from d.old_type to d.new_type (d.new_type NULL: nothing changes).
var counterDelta = func() string {
	var b strings.Builder
	for i, t := range Types {
		if i > 0 {
			b.WriteString(",\n\t\t       ")
		}
		fmt.Fprintf(&b, "%[1]s_count = d.%[1]s_count + CASE WHEN d.new_type IS NULL THEN 0"+
			" ELSE (d.new_type = '%[1]s')::int - (d.old_type IS NOT DISTINCT FROM '%[1]s')::int END", t)
	}
	return b.String()
}()

const returningCounts = `p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count,
		          p.comment_count, p.share_count, p.view_count`

// maxAttempts bounds the re-runs of a write that lost a race (see setSQL).
// Each lost race means another write of the same pair committed, so a
// second attempt nearly always succeeds; past the bound the request answers
// 503 unavailable with Retry-After, never 500.
const maxAttempts = 10

// setSQL is Set's statement: $1 the post, $2 the member, $3 the type, $4
// the time (NULL: now). Race-free under concurrent writes, in one statement:
//
//   - the post row is locked first (FOR NO KEY UPDATE), which serialises
//     every reaction write on the post and returns the post's latest
//     counters, from which the new ones are computed (the statement's
//     snapshot may predate a write it waited for, and a CHECK constraint is
//     checked on the first computed row, before PostgreSQL re-reads a row
//     updated meanwhile);
//   - the member's current reaction is read with FOR UPDATE, which returns
//     its latest version, so the counters move from the type really replaced;
//   - a reaction inserted by a concurrent Set after the snapshot was taken
//     is invisible to it: the insert meets the conflict and does nothing, the
//     statement changes nothing and reports lost, and the caller runs it
//     again (a fresh snapshot sees the row).
//
// The author's notification (never a self-notification) is created with the
// reaction, or pointed at its new type. None is created for an author who
// would not see it in their notifications (visibility.Notifies: they
// mute the member, or a block separates them) or who is suspended.
var setSQL = `
	WITH post AS (
	    SELECT p.id, p.author_id, ` + counters + `
	      FROM posts p
	     WHERE p.id = $1 AND ` + visibility.PostByKey("p", "$2") + ` AND ` + auth.GuardSQL("$5") + `
	       FOR NO KEY UPDATE OF p
	), old AS (
	    SELECT r.type FROM reactions r
	     WHERE r.post_id = (SELECT id FROM post) AND r.member_id = $2
	       FOR UPDATE OF r
	), upd AS (
	    UPDATE reactions r SET type = $3, updated_at = COALESCE($4, now())
	      FROM old
	     WHERE r.post_id = $1 AND r.member_id = $2 AND old.type <> $3
	    RETURNING r.type
	), ins AS (
	    INSERT INTO reactions (post_id, member_id, type, created_at, updated_at)
	    SELECT $1, $2, $3, COALESCE($4, now()), COALESCE($4, now()) FROM post
	     WHERE NOT EXISTS (SELECT 1 FROM old)
	    ON CONFLICT (post_id, member_id) DO NOTHING
	    RETURNING type
	), d AS MATERIALIZED (
	    SELECT post.*,
	           (SELECT type FROM old) AS old_type,
	           COALESCE((SELECT type FROM upd), (SELECT type FROM ins)) AS new_type,
	           NOT EXISTS (SELECT 1 FROM old) AND NOT EXISTS (SELECT 1 FROM ins) AS lost
	      FROM post
	), created AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, post_id, reaction, created_at)
	    SELECT d.author_id, 'reaction', $2, $1, d.new_type, date_trunc('second', COALESCE($4, now())) FROM d
	     WHERE d.new_type IS NOT NULL AND d.old_type IS NULL AND d.author_id <> $2
	       AND ` + visibility.Notifies("$2", "d.author_id") + `
	), changed AS (
	    UPDATE notifications n SET reaction = d.new_type
	      FROM d
	     WHERE n.type = 'reaction' AND n.post_id = $1 AND n.actor_id = $2
	       AND d.new_type IS NOT NULL AND d.old_type IS NOT NULL AND d.author_id <> $2
	)
	UPDATE posts p
	   SET ` + counterDelta + `
	  FROM d
	 WHERE p.id = d.id
	RETURNING d.lost, ` + returningCounts

// counters are the reaction counters of posts p, as selected into the
// post CTEs.
const counters = `p.like_count, p.love_count, p.haha_count, p.wow_count, p.sad_count, p.angry_count`

// SetTx is Set within a caller's transaction, at the time at (nil: now).
func SetTx(ctx context.Context, ex sqlx.ExtContext, memberID, postID int64, typ string, at *time.Time) (Result, error) {
	return set(ctx, ex, memberID, postID, typ, at)
}

func set(ctx context.Context, q sqlx.QueryerContext, memberID, postID int64, typ string, at *time.Time) (Result, error) {
	for range maxAttempts {
		var row struct {
			Lost bool `db:"lost"`
			Counts
		}
		if err := sqlx.GetContext(ctx, q, &row, setSQL, postID, memberID, typ, at, auth.GuardArg(ctx)); err != nil {
			return Result{}, translate(ctx, "set reaction", err)
		}
		auth.Confirm(ctx)
		if !row.Lost {
			return Result{Reaction: &typ, Counts: row.Counts}, nil
		}
	}
	return Result{}, apperr.Wrap(apperr.Unavailable, "The service is busy. Retry later.", fmt.Errorf("set reaction: lost %d races in a row", maxAttempts))
}

// Remove removes memberID's reaction on postID (none: nothing changes) and
// the author's notification about it. The post must be visible to the
// member, else NotFound. It is one statement: the DELETE waits for a
// concurrent write of the reaction and removes its latest version.
func (s *Store) Remove(ctx context.Context, memberID, postID int64) (Result, error) {
	return remove(ctx, s.prep, memberID, postID)
}

// RemoveTx is Remove within a caller's transaction.
func RemoveTx(ctx context.Context, ex sqlx.ExtContext, memberID, postID int64) (Result, error) {
	return remove(ctx, ex, memberID, postID)
}

// removeSQL is Remove's statement: $1 the post, $2 the member. As in
// setSQL, the post row is locked first and the counters are computed from
// its latest version; the DELETE waits for a concurrent write of the
// reaction and removes its latest version.
var removeSQL = func() string {
	sets := make([]string, len(Types))
	for i, t := range Types {
		sets[i] = fmt.Sprintf("%[1]s_count = d.%[1]s_count - (d.old_type IS NOT DISTINCT FROM '%[1]s')::int", t)
	}
	return `
	WITH post AS (
	    SELECT p.id, ` + counters + `
	      FROM posts p
	     WHERE p.id = $1 AND ` + visibility.PostByKey("p", "$2") + ` AND ` + auth.GuardSQL("$3") + `
	       FOR NO KEY UPDATE OF p
	), del AS (
	    DELETE FROM reactions r
	     WHERE r.post_id = (SELECT id FROM post) AND r.member_id = $2
	    RETURNING r.type
	), d AS MATERIALIZED (
	    SELECT post.*, (SELECT type FROM del) AS old_type FROM post
	), unnotify AS (
	    DELETE FROM notifications n USING d
	     WHERE n.type = 'reaction' AND n.post_id = $1 AND n.actor_id = $2
	)
	UPDATE posts p
	   SET ` + strings.Join(sets, ", ") + `
	  FROM d
	 WHERE p.id = d.id
	RETURNING ` + returningCounts
}()

func remove(ctx context.Context, q sqlx.QueryerContext, memberID, postID int64) (Result, error) {
	var c Counts
	if err := sqlx.GetContext(ctx, q, &c, removeSQL, postID, memberID, auth.GuardArg(ctx)); err != nil {
		return Result{}, translate(ctx, "remove reaction", err)
	}
	auth.Confirm(ctx)
	return Result{Counts: c}, nil
}

func translate(ctx context.Context, what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) { // deleted after the visibility check
		return apperr.New(apperr.NotFound, "No such post.")
	}
	switch pg.ConstraintOf(err) {
	case "reactions_type_check":
		return apperr.Field("/type", apperr.FieldInvalid, "type must be one of like, love, haha, wow, sad, angry")
	case "reactions_post_id_fkey":
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return pg.Classify(ctx, fmt.Errorf("%s: %w", what, err))
}
