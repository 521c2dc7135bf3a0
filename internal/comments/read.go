package comments

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// View is a comment with everything the API shows of it.
type View struct {
	ID        int64          `db:"id"`
	PostID    int64          `db:"post_id"`
	ParentID  *int64         `db:"parent_id"`
	Depth     int            `db:"depth"`
	Body      string         `db:"body"`
	Tags      pq.StringArray `db:"tags"`
	Replies   int            `db:"reply_count"`
	CreatedAt time.Time      `db:"created_at"`
	apiurl.Author
	PostAuthorHandle string                       `db:"post_author_handle"`
	Mentions         pg.JSON[[]apiurl.MentionRef] `db:"mentions"`
}

// viewColumns selects a View from comments c, members u (its author), posts
// p and members pa (the post's author).
const viewColumns = `
	c.id, c.post_id, c.parent_id, c.depth, c.body, c.tags, c.reply_count, c.created_at,
	u.id AS author_id, u.handle AS author_handle, u.name AS author_name,
	u.avatar_url AS author_avatar_url, u.verified AS author_verified,
	pa.handle AS post_author_handle,
	COALESCE((SELECT json_agg(json_build_object('id', mm.id, 'handle', mm.handle) ORDER BY x.position)
	            FROM comment_mentions x JOIN members mm ON mm.id = x.member_id
	           WHERE x.comment_id = c.id AND mm.suspended_at IS NULL), '[]') AS mentions`

// List returns one page of the comments of post postID, oldest first, after
// the position after (nil: from the oldest), flat with each comment's parent
// and depth, and the position of the next page (nil: none). The post must be
// visible to viewerID, else NotFound. A thread is a stream: the comments of
// authors it hides from viewerID (visibility.AuthorInStream) are left out,
// and their replies by others stay (package doc). One query, which checks
// visibility itself; an empty page costs a second one, to tell a hidden or
// missing post from a post without (more) comments or with hidden ones only.
func (s *Store) List(ctx context.Context, viewerID, postID int64, after *cursor.Position, perPage int) ([]View, *cursor.Position, error) {
	q, args := listPage(viewerID, postID, after, perPage, auth.GuardArg(ctx))
	vs := []View{}
	if err := sqlx.SelectContext(ctx, s.prep, &vs, q, args...); err != nil {
		return nil, nil, pg.Classify(ctx, fmt.Errorf("list comments: %w", err))
	}
	if len(vs) > 0 {
		auth.Confirm(ctx)
	}
	if len(vs) == 0 {
		if err := hydrate.Visible(ctx, s.prep, viewerID, postID); err != nil {
			return nil, nil, err
		}
	}
	var next *cursor.Position
	if len(vs) > perPage {
		vs = vs[:perPage]
		last := vs[len(vs)-1]
		next = &cursor.Position{Time: last.CreatedAt, ID: last.ID}
	}
	return vs, next, nil
}

// listPage is the page query of List, served by
// comments_post_id_created_at_id_idx; guard is the token check's argument
// (auth.GuardArg).
func listPage(viewerID, postID int64, after *cursor.Position, perPage int, guard any) (string, []any) {
	args := []any{viewerID, postID, perPage + 1}
	keyset := ""
	if after != nil {
		args = append(args, after.Time, after.ID)
		keyset = "AND (c.created_at, c.id) > ($4, $5)"
	}
	args = append(args, guard)
	keyset += " AND " + auth.GuardSQL("$"+strconv.Itoa(len(args)))
	// The post is read and checked once, on the outer side: joined per
	// comment, the planner probed the post and its author for every row
	// the page read. The rule is in its shared form (visibility.For): the
	// viewer's hidden members are read once, where the inline form probed
	// blocks and mutes for each comment of a viewer who has a block or a
	// mute.
	q := `
		WITH ` + visibility.For("$1").With() + `
		SELECT ` + viewColumns + `
		  FROM posts p
		  JOIN members pa ON pa.id = p.author_id
		 CROSS JOIN LATERAL (
		       SELECT c.*
		         FROM comments c
		        WHERE c.post_id = p.id
		          AND ` + visibility.For("$1").AuthorInStream("c.author_id") + ` ` + keyset + `
		        ORDER BY c.created_at, c.id
		        LIMIT $3) c
		  JOIN members u ON u.id = c.author_id
		 WHERE p.id = $2 AND ` + visibility.For("$1").Post("p") + `
		 ORDER BY c.created_at, c.id`
	return q, args
}

// PostVisible reports whether post postID exists and viewerID may see it
// (nil) or not (NotFound).
func (s *Store) PostVisible(ctx context.Context, viewerID, postID int64) error {
	return hydrate.Visible(ctx, s.prep, viewerID, postID)
}
