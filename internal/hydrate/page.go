package hydrate

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Statics says where Page takes the static parts of a page's posts from.
type Statics bool

const (
	// FromCache: the cache, and one more statement for those it lacks; for
	// posts that many read (timelines, discover).
	FromCache Statics = false
	// WithPage: the page's own statement (and into the cache); for posts
	// few read again soon (a member's whole history).
	WithPage Statics = true
)

// Page runs pageSQL, which selects the id and created_at of at most
// perPage+1 posts for viewerID (its $1 is viewerID and its $2 perPage+1, as
// in args), and hydrates the first perPage of them in the same statement
// (plus one for the static parts c does not hold, with FromCache). pageSQL
// may read the WITH items of visibility.For("$1"), which Page and Chosen
// declare around it, and must apply the author part of the rule to the
// posts it chooses (For("$1").AuthorInStream or Author, or the whole rule):
// Page checks them again only for their own setting, Chosen (through
// Posts) for the whole rule. exact is false when a
// chosen post was hidden from the viewer or deleted meanwhile (the caller
// then pages with Chosen, which keeps the cursor on the chosen rows);
// next is the position of the next page (nil: the page query chose no more
// than perPage).
func (c *Cache) Page(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, statics Statics, pageSQL string, args []any) (ps []Post, next *cursor.Position, exact bool, err error) {
	ls, err := c.pageRows(ctx, q, viewerID, perPage, statics, pageSQL, args)
	if err != nil {
		return nil, nil, false, pg.Classify(ctx, fmt.Errorf("feed page: %w", err))
	}
	if len(ls) > 0 {
		auth.Confirm(ctx)
	}
	if len(ls) == 0 {
		// Nothing visible: exact only if nothing was chosen, which one
		// more look tells; the caller's slower path settles it.
		return []Post{}, nil, false, nil
	}
	slots := ls[0].slots
	if len(ls) != min(slots, perPage) {
		return nil, nil, false, nil
	}
	if ps, err = c.attach(ctx, q, ls, nil); err != nil {
		return nil, nil, false, err
	}
	if len(ps) != len(ls) {
		return nil, nil, false, nil
	}
	if slots > perPage {
		last := ls[len(ls)-1]
		next = &cursor.Position{Time: last.createdAt, ID: last.id}
	}
	return ps, next, true, nil
}

// slot is one item a list query chose for a page: its id and its sort key.
type slot struct {
	ID        int64     `db:"id"`
	CreatedAt time.Time `db:"created_at"`
}

// Position implements cursor.Keyed.
func (s slot) Position() cursor.Position { return cursor.Position{Time: s.CreatedAt, ID: s.ID} }

// Chosen runs pageSQL (as Page takes it) for the chosen rows alone, then
// hydrates those viewerID may still see (Posts): two statements, for the
// pages Page could not answer exactly. The next page's position comes from
// the chosen rows, so a post hidden or deleted meanwhile does not move it.
//
// The page runs under LIMIT $2 (perPage+1, which it already honours): a page
// statement may write its own limit into its text and leave $2 to the
// statement around it (discover does, so that PostgreSQL plans it once).
func (c *Cache) Chosen(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, pageSQL string, args []any) ([]Post, *cursor.Position, error) {
	var slots []slot
	chosen := "WITH " + visibility.For("$1").With() + " SELECT id, created_at FROM (" + pageSQL + ") chosen ORDER BY created_at DESC, id DESC LIMIT $2"
	if err := sqlx.SelectContext(ctx, q, &slots, chosen, args...); err != nil {
		return nil, nil, pg.Classify(ctx, fmt.Errorf("list page: %w", err))
	}
	slots, next := cursor.Trim(slots, perPage)
	ids := make([]int64, len(slots))
	for i, s := range slots {
		ids[i] = s.ID
	}
	ps, err := c.Posts(ctx, q, viewerID, ids)
	return ps, next, err
}
