package hydrate

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// staticQuery reads the static parts of the posts $1 (an array of ids).
var staticQuery = cursor.NewListQuery("$1", func(list string) string {
	return `
	SELECT p.id, p.created_at, ` + staticColumns + `
	  FROM ` + list + `
	  JOIN posts p ON p.id = page.id
	  JOIN members m ON m.id = p.author_id`
})

// statics returns the static parts of ids, by id, from c or (the rest) from
// the database; a post deleted meanwhile is missing.
func (c *Cache) statics(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]*Static, error) {
	found, missing := c.lookup(ids)
	if len(missing) == 0 {
		return found, nil
	}
	fetched, err := fetchStatics(ctx, q, missing)
	if err != nil {
		return nil, err
	}
	c.put(fetched, false)
	if found == nil {
		return fetched, nil
	}
	for id, s := range fetched {
		found[id] = s
	}
	return found, nil
}

// fetchStatics reads the static parts of ids; deleted posts are missing.
func fetchStatics(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]*Static, error) {
	query, list := staticQuery.Query(ids)
	rows, err := q.QueryContext(ctx, query, list)
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	defer rows.Close()
	found := make(map[int64]*Static, len(ids))
	for rows.Next() {
		st := staticScan{s: &Static{}}
		if err := rows.Scan(st.appendDest([]any{&st.s.ID, &st.s.CreatedAt})...); err != nil {
			return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
		}
		if err := st.finish(); err != nil {
			return nil, err
		}
		found[st.s.ID] = st.s
	}
	if err := rows.Err(); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("hydrate posts: %w", err))
	}
	return found, nil
}

// attach completes ls with their static parts: those read with them go into
// c, the others come from known (parts the caller already looked up), c or
// one more statement. A post deleted since its live part was read is left
// out. A cached part whose author or creation time differs from the live
// row's (post ids reused: the database was reset under a running server) is
// read again and replaced.
func (c *Cache) attach(ctx context.Context, q sqlx.QueryerContext, ls []live, known map[int64]*Static) ([]Post, error) {
	if err := c.fill(ctx, q, ls, known); err != nil {
		return nil, err
	}
	ps := make([]Post, 0, len(ls))
	for _, l := range ls {
		if l.Static != nil {
			ps = append(ps, l.Post)
		}
	}
	return ps, nil
}

// fill is attach in place: a post deleted since its live part was read is
// left without a static part.
func (c *Cache) fill(ctx context.Context, q sqlx.QueryerContext, ls []live, known map[int64]*Static) error {
	var need []int64
	read := map[int64]*Static{}
	for i := range ls {
		switch l := &ls[i]; {
		case l.Static != nil:
			read[l.id] = l.Static
		case known[l.id] != nil:
			l.Static = known[l.id]
		default:
			need = append(need, l.id)
		}
	}
	c.put(read, true)
	if len(need) > 0 {
		found, err := c.statics(ctx, q, need)
		if err != nil {
			return err
		}
		for i := range ls {
			if ls[i].Static == nil {
				ls[i].Static = found[ls[i].id]
			}
		}
	}
	var stale []int64
	for i := range ls {
		if s := ls[i].Static; s != nil && (s.Author.ID != ls[i].authorID || !s.CreatedAt.Equal(ls[i].createdAt)) {
			stale = append(stale, ls[i].id)
			ls[i].Static = nil
		}
	}
	if len(stale) > 0 {
		fresh, err := fetchStatics(ctx, q, stale)
		if err != nil {
			return err
		}
		c.put(fresh, true)
		for i := range ls {
			if ls[i].Static == nil {
				ls[i].Static = fresh[ls[i].id]
			}
		}
	}
	return nil
}
