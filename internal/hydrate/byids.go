package hydrate

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// byIDs reads the posts $2 (an array of ids) for the viewer $1, in the
// order of $2, by primary key: the live part, and the static part too when
// withStatic; $3 is the token check (auth.GuardSQL).
func byIDs(withStatic bool) *cursor.ListQuery {
	cols, join := columns(withStatic)
	return cursor.NewListQuery("$2", func(list string) string {
		return `
	SELECT ` + cols + `
	  FROM ` + list + `
	  JOIN posts p ON p.id = page.id
	  ` + join + `
	 WHERE ` + visibility.Post("p", "$1") + ` AND ` + auth.GuardSQL("$3") + `
	 ORDER BY page.ord`
	})
}

var postsQuery, postsStaticQuery = byIDs(false), byIDs(true)

// Posts returns the posts ids that viewerID may see, hydrated, in the order
// of ids, in one query: the live part alone when c holds every static part,
// else both. Posts deleted or hidden since ids were chosen are left out.
func (c *Cache) Posts(ctx context.Context, q sqlx.QueryerContext, viewerID int64, ids []int64) ([]Post, error) {
	if len(ids) == 0 {
		return []Post{}, nil
	}
	known, missing := c.lookup(ids)
	query, list := postsQuery.Query(ids)
	withStatic := len(missing) > 0
	if withStatic {
		query, list = postsStaticQuery.Query(ids)
	}
	rows, err := q.QueryContext(ctx, query, viewerID, list, auth.GuardArg(ctx))
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	ls, err := scanLive(rows, viewerID, len(ids), false, withStatic)
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	if len(ls) > 0 {
		auth.Confirm(ctx)
	}
	return c.attach(ctx, q, ls, known)
}

// profilesQuery reads the members $2 (an array of ids) for the viewer $1, in
// the order of $2, by primary key.
var profilesQuery = cursor.NewListQuery("$2", func(list string) string {
	return `
	SELECT ` + profileColumns + `
	  FROM ` + list + `
	  JOIN members m ON m.id = page.id
	 WHERE ` + visibility.MemberRow("m", "$1") + `
	 ORDER BY page.ord`
})

// Profiles returns the members ids as viewerID sees them, in the order of
// ids, in one query. Members the viewer may no longer see (visibility.MemberRow:
// suspended, or blocking the viewer since ids were chosen) are left out.
func Profiles(ctx context.Context, q sqlx.QueryerContext, viewerID int64, ids []int64) ([]Profile, error) {
	out := []Profile{}
	if len(ids) == 0 {
		return out, nil
	}
	query, list := profilesQuery.Query(ids)
	if err := sqlx.SelectContext(ctx, q, &out, query, viewerID, list); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate profiles: %w", err))
	}
	return out, nil
}
