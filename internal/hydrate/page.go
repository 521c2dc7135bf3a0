package hydrate

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// Slot is one item a list query chose for a page: its id and its sort key.
type Slot struct {
	ID        int64     `db:"id"`
	CreatedAt time.Time `db:"created_at"`
}

// Trim cuts slots, fetched with perPage+1 rows so that a further row tells
// that another page follows, to perPage. It returns their ids and, when
// another page follows, the position of the last one kept.
func Trim(slots []Slot, perPage int) (ids []int64, next *cursor.Position) {
	if len(slots) > perPage {
		slots = slots[:perPage]
		last := slots[len(slots)-1]
		next = &cursor.Position{Time: last.CreatedAt, ID: last.ID}
	}
	ids = make([]int64, len(slots))
	for i, s := range slots {
		ids[i] = s.ID
	}
	return ids, next
}

// Chosen runs pageSQL (as Page takes it) for the chosen rows alone, then
// hydrates those viewerID may still see (Posts): two statements, for the
// pages Page could not answer exactly. The next page's position comes from
// the chosen rows, so a post hidden or deleted meanwhile does not move it.
//
// The page runs under LIMIT $2 (perPage+1, which it already honours): a page
// statement may write its own limit into its text and leave $2 to the
// statement around it (discover does, so that PostgreSQL plans it once).
func (c *Cache) Chosen(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, pageSQL string, args []any) ([]Post, *cursor.Position, error) {
	var slots []Slot
	chosen := "SELECT id, created_at FROM (" + pageSQL + ") chosen ORDER BY created_at DESC, id DESC LIMIT $2"
	if err := sqlx.SelectContext(ctx, q, &slots, chosen, args...); err != nil {
		return nil, nil, pg.Classify(ctx, fmt.Errorf("list page: %w", err))
	}
	ids, next := Trim(slots, perPage)
	ps, err := c.Posts(ctx, q, viewerID, ids)
	return ps, next, err
}

// ListMeta renders the page metadata.
func ListMeta(p cursor.Page) gen.ListMeta {
	return gen.ListMeta{PerPage: p.PerPage, HasMore: p.HasMore, NextCursor: p.NextCursor, NextURL: p.NextURL}
}
