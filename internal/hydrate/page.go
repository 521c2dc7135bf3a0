package hydrate

import (
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/cursor"
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

// ListMeta renders the page metadata.
func ListMeta(p cursor.Page) gen.ListMeta {
	return gen.ListMeta{PerPage: p.PerPage, HasMore: p.HasMore, NextCursor: p.NextCursor, NextURL: p.NextURL}
}
