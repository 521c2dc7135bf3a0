// Package comments writes comments and replies: the parent rule, depth,
// the post's and parent's counters, mentions and the notifications of the
// post author, the parent's author and the mentioned members.
package comments

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/richtext"
	"github.com/socialnet/socialapi/internal/visibility"
)

// NewComment describes a comment to add to a post.
type NewComment struct {
	Body      string
	ParentID  *int64     // a comment of the same post, or nil for a top-level comment
	CreatedAt *time.Time // nil: now (fixtures set it)
}

// Comment is a stored comment as Create returns it.
type Comment struct {
	ID        int64     `db:"id"`
	PostID    int64     `db:"post_id"`
	AuthorID  int64     `db:"author_id"`
	ParentID  *int64    `db:"parent_id"`
	Depth     int       `db:"depth"`
	Body      string    `db:"body"`
	Tags      []string  `db:"-"`
	CreatedAt time.Time `db:"created_at"`
	// MentionIDs are the members mentioned in Body that exist and are not
	// suspended, in order of first appearance.
	MentionIDs []int64 `db:"-"`
}

// Store writes comments.
type Store struct {
	db   *sqlx.DB
	prep *pg.Prepared // the reads
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db, prep: pg.NewPrepared(db)} }

// Create adds a comment by authorID to postID. The post must be visible to
// the author, else NotFound; a parent that is not a comment of the same post
// is a validation error on /parent_id.
func (s *Store) Create(ctx context.Context, authorID, postID int64, nc NewComment) (Comment, error) {
	var c Comment
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		c, err = CreateTx(ctx, tx, authorID, postID, nc)
		return err
	})
	return c, err
}

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, authorID, postID int64, nc NewComment) (Comment, error) {
	// Locking the post row serialises the comment_count updates and keeps the
	// post (and so its visibility) in place until the comment is stored.
	find := `SELECT p.id FROM posts p WHERE p.id = $1 AND ` + visibility.Post("p", "$2") + ` FOR NO KEY UPDATE`
	var id int64
	err := sqlx.GetContext(ctx, ex, &id, find, postID, authorID)
	if errors.Is(err, sql.ErrNoRows) {
		return Comment{}, apperr.New(apperr.NotFound, "No such post.")
	}
	if err != nil {
		return Comment{}, pg.Classify(ctx, fmt.Errorf("find post: %w", err))
	}
	parsed := richtext.Parse(nc.Body)
	// The depth is read from the parent whatever its post, so that a parent
	// of another post reaches comments_parent_id_fkey (and a missing parent
	// too, through the COALESCE) rather than the depth check.
	const q = `
		WITH c AS (
		    INSERT INTO comments (post_id, author_id, parent_id, depth, body, tags, created_at)
		    VALUES ($1, $2, $3,
		            CASE WHEN $3::bigint IS NULL THEN 0
		                 ELSE COALESCE((SELECT depth + 1 FROM comments WHERE id = $3), 1) END,
		            $4, $5, COALESCE($6, now()))
		    RETURNING id, post_id, author_id, parent_id, depth, body, created_at
		), post AS (
		    UPDATE posts SET comment_count = comment_count + 1 WHERE id = $1
		), parent AS (
		    UPDATE comments SET reply_count = reply_count + 1 WHERE id = $3 AND post_id = $1
		)
		SELECT id, post_id, author_id, parent_id, depth, body, created_at FROM c`
	var c Comment
	err = sqlx.GetContext(ctx, ex, &c, q, postID, authorID, nnc(nc.ParentID), nc.Body, pq.Array(parsed.Tags), nc.CreatedAt)
	if err != nil {
		return Comment{}, translate(ctx, err)
	}
	c.Tags = parsed.Tags
	if c.MentionIDs, err = insertMentions(ctx, ex, c.ID, parsed.Mentions); err != nil {
		return Comment{}, err
	}
	if err := notify(ctx, ex, c); err != nil {
		return Comment{}, err
	}
	return c, nil
}

// nnc turns a nil *int64 into a typed NULL.
func nnc(p *int64) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *p, Valid: true}
}

func insertMentions(ctx context.Context, ex sqlx.ExtContext, commentID int64, handles []string) ([]int64, error) {
	ids := []int64{}
	if len(handles) == 0 {
		return ids, nil
	}
	const q = `
		INSERT INTO comment_mentions (comment_id, member_id, position)
		SELECT $1, m.id, (row_number() OVER (ORDER BY h.ord)) - 1
		  FROM unnest($2::text[]) WITH ORDINALITY AS h(handle, ord)
		  JOIN members m ON lower(m.handle) = lower(h.handle) AND m.suspended_at IS NULL
		RETURNING member_id, position`
	var rows []struct {
		MemberID int64 `db:"member_id"`
		Position int   `db:"position"`
	}
	if err := sqlx.SelectContext(ctx, ex, &rows, q, commentID, pq.Array(handles)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("add comment mentions: %w", err))
	}
	ids = make([]int64, len(rows))
	for _, r := range rows {
		ids[r.Position] = r.MemberID
	}
	return ids, nil
}

// notify tells the parent's author (reply), the post's author (comment) and
// the mentioned members (mention) about c: only those who can see the post,
// never its author, and each recipient once, with that precedence.
func notify(ctx context.Context, ex sqlx.ExtContext, c Comment) error {
	q := `
		INSERT INTO notifications (recipient_id, type, actor_id, post_id, comment_id, created_at)
		SELECT DISTINCT ON (r.recipient_id) r.recipient_id, r.type, $2::bigint, p.id, $1::bigint, $4::timestamptz
		  FROM (
		        SELECT author_id, 'reply', 1 FROM comments WHERE id = $5::bigint
		        UNION ALL
		        SELECT author_id, 'comment', 2 FROM posts WHERE id = $3
		        UNION ALL
		        SELECT member_id, 'mention', 3 FROM comment_mentions WHERE comment_id = $1
		       ) AS r(recipient_id, type, rank)
		  JOIN posts p ON p.id = $3
		 WHERE r.recipient_id <> $2 AND ` + visibility.Post("p", "r.recipient_id") + `
		 ORDER BY r.recipient_id, r.rank`
	if _, err := ex.ExecContext(ctx, q, c.ID, c.AuthorID, c.PostID, c.CreatedAt, nnc(c.ParentID)); err != nil {
		return pg.Classify(ctx, fmt.Errorf("notify comment: %w", err))
	}
	return nil
}

func translate(ctx context.Context, err error) error {
	switch pg.ConstraintOf(err) {
	case "comments_parent_id_fkey":
		return apperr.Field("/parent_id", "invalid", "parent_id must be a comment of the same post")
	case "comments_body_check":
		return apperr.Field("/body", "invalid", "body must be 1 to 2000 characters")
	case "comments_post_id_fkey":
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return pg.Classify(ctx, fmt.Errorf("create comment: %w", err))
}
