// Package comments writes comments and replies: the parent rule, depth,
// the post's and parent's counters, mentions and the notifications of the
// post author, the parent's author and the mentioned members; and it reads
// a post's thread.
//
// Blocks, mutes and suspension: a thread is a stream, so it leaves out the
// comments whose author is suspended, separated from the reader by a block
// either way, or muted by the reader (visibility.AuthorInStream). A reply
// by an author the reader may see stays in the thread under a hidden
// parent, its parent_id unchanged: the reply is its author's own words,
// which one member's block, mute or suspension must not take from everyone
// else in the thread (hiding a hidden comment's replies would let one
// suspension silence a whole subthread), and deciding it costs no walk up
// each comment's ancestors. A reply to a comment hidden from its author
// answers as a reply to a missing comment does. Comment and reply counts
// count rows, hidden ones too: a count is the same for every reader, so it
// never tells one member what another hides.
package comments

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/hydrate"
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
	// MentionIDs are the members mentioned in Body that the author may see
	// (visibility.MemberRow), in order of first appearance.
	MentionIDs []int64 `db:"-"`
	// View is the comment as its author reads it right after the write, as
	// the write statement tells it.
	View View `db:"-"`
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
// is a validation error on /parent_id. It is one statement, so it needs no
// transaction.
func (s *Store) Create(ctx context.Context, authorID, postID int64, nc NewComment) (Comment, error) {
	return create(ctx, s.prep, authorID, postID, nc)
}

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, authorID, postID int64, nc NewComment) (Comment, error) {
	return create(ctx, ex, authorID, postID, nc)
}

// createSQL is Create's statement: $1 the post, $2 the author, $3 the
// parent (NULL: top level), $4 the body, $5 its hashtags, $6 the time
// (NULL: now), $7 the handles it mentions, $8 the token to check, if any
// (auth.GuardSQL).
//
// Locking the post row first serialises the comment_count updates (the new
// count is computed from the locked, latest row) and keeps the post (and so
// its visibility) in place until the comment is stored. The depth is read
// from the parent whatever its post, so that a parent of another post
// reaches comments_parent_id_fkey (and a missing parent too, through the
// COALESCE) rather than the depth check. A parent whose author the
// commenter's threads hide (visibility.AuthorInStream) is stored as parent
// 0, which names no comment: the reply fails on comments_parent_id_fkey
// exactly as a reply to a missing parent does. The mentioned members the
// author may see (visibility.MemberRow: existing, not suspended, not blocking
// the author) are recorded in order of first appearance; any other handle
// is text, as an unknown one. The parent's author (reply), the post's author
// (comment) and the mentioned members (mention) are notified: only those
// who can see the post and whose streams do not hide the comment's author
// (visibility.Notifies: no block either way, no mute, neither suspended),
// never the comment's author, and each recipient once, with
// that precedence. A suspended member is never a recipient: their posts
// and comments cannot be commented on or replied to and they cannot be
// mentioned.
var createSQL = `
	WITH post AS (
	    SELECT p.id, p.author_id, p.visibility, p.comment_count
	      FROM posts p
	     WHERE p.id = $1 AND ` + visibility.PostByKey("p", "$2") + ` AND ` + auth.GuardSQL("$8") + `
	       FOR NO KEY UPDATE OF p
	), c AS (
	    INSERT INTO comments (post_id, author_id, parent_id, depth, body, tags, created_at)
	    SELECT post.id, $2,
	           CASE WHEN $3::bigint IS NULL OR EXISTS (SELECT 1 FROM comments pc
	                                                   WHERE pc.id = $3 AND ` + visibility.AuthorInStream("pc.author_id", "$2") + `)
	                THEN $3 ELSE 0 END,
	           CASE WHEN $3::bigint IS NULL THEN 0
	                ELSE COALESCE((SELECT depth + 1 FROM comments WHERE id = $3), 1) END,
	           $4, $5, date_trunc('second', COALESCE($6, now()))
	      FROM post
	    RETURNING id, post_id, author_id, parent_id, depth, body, created_at
	), counted AS (
	    UPDATE posts p SET comment_count = post.comment_count + 1
	      FROM post, c
	     WHERE p.id = post.id
	), parent AS (
	    UPDATE comments pc SET reply_count = pc.reply_count + 1
	      FROM c
	     WHERE pc.id = $3 AND pc.post_id = c.post_id
	), mentions AS (
	    INSERT INTO comment_mentions (comment_id, member_id, position)
	    SELECT c.id, m.id, (row_number() OVER (ORDER BY h.ord)) - 1
	      FROM c
	     CROSS JOIN unnest($7::text[]) WITH ORDINALITY AS h(handle, ord)
	      JOIN members m ON lower(m.handle) = lower(h.handle) AND ` + visibility.MemberRow("m", "$2") + `
	    RETURNING member_id, position
	), notified AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, post_id, comment_id, created_at)
	    SELECT DISTINCT ON (r.recipient_id) r.recipient_id, r.type, c.author_id, c.post_id, c.id, c.created_at
	      FROM c, post, (
	            SELECT author_id, 'reply', 1 FROM comments WHERE id = $3
	            UNION ALL
	            SELECT author_id, 'comment', 2 FROM post
	            UNION ALL
	            SELECT member_id, 'mention', 3 FROM mentions
	           ) AS r(recipient_id, type, rank)
	     WHERE r.recipient_id <> $2 AND ` + visibility.PostByKey("post", "r.recipient_id") + `
	       AND ` + visibility.Notifies("$2", "r.recipient_id") + `
	     ORDER BY r.recipient_id, r.rank
	)
	SELECT c.id, c.post_id, c.author_id, c.parent_id, c.depth, c.body, c.created_at,
	       ` + hydrate.WrittenColumns("u", "mentions") + `,
	       pa.handle AS post_author_handle
	  FROM c
	  JOIN members u ON u.id = c.author_id
	  JOIN post ON true
	  JOIN members pa ON pa.id = post.author_id`

func create(ctx context.Context, q sqlx.QueryerContext, authorID, postID int64, nc NewComment) (Comment, error) {
	if !richtext.HasContent(nc.Body) {
		// A hidden or missing post answers 404 before a blank body 422.
		if err := hydrate.Visible(ctx, q, authorID, postID); err != nil {
			return Comment{}, err
		}
		return Comment{}, apperr.Field("/body", apperr.FieldTooShort, "body must contain at least one visible character")
	}
	parsed := richtext.Parse(nc.Body)
	handles := parsed.Mentions
	if handles == nil {
		handles = []string{}
	}
	var row struct {
		Comment
		hydrate.Written
		PostAuthorHandle string `db:"post_author_handle"`
	}
	err := sqlx.GetContext(ctx, q, &row, createSQL, postID, authorID, nnc(nc.ParentID), nc.Body,
		pq.Array(parsed.Tags), nc.CreatedAt, pq.Array(handles), auth.GuardArg(ctx))
	if errors.Is(err, sql.ErrNoRows) {
		return Comment{}, apperr.New(apperr.NotFound, "No such post.")
	}
	if err != nil {
		return Comment{}, translate(ctx, err)
	}
	auth.Confirm(ctx)
	c := row.Comment
	c.Tags = parsed.Tags
	c.MentionIDs = []int64(row.Written.MentionIDs)
	// As its author reads it now: no reply can exist yet.
	c.View = View{ID: c.ID, PostID: c.PostID, ParentID: c.ParentID, Depth: c.Depth, Body: c.Body, Tags: c.Tags,
		CreatedAt: c.CreatedAt, PostAuthorHandle: row.PostAuthorHandle, Author: row.Author(authorID),
		Mentions: pg.JSON[[]apiurl.MentionRef]{V: row.Mentions()}}
	return c, nil
}

// nnc turns a nil *int64 into a typed NULL.
func nnc(p *int64) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: *p, Valid: true}
}

func translate(ctx context.Context, err error) error {
	switch pg.ConstraintOf(err) {
	case "comments_parent_id_fkey":
		return apperr.Field("/parent_id", apperr.FieldInvalid, "parent_id must be a comment of the same post")
	case "comments_body_check":
		return apperr.Field("/body", apperr.FieldInvalid, "body must be 1 to 2000 characters")
	case "comments_post_id_fkey":
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return pg.Classify(ctx, fmt.Errorf("create comment: %w", err))
}
