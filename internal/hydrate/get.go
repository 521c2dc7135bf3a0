package hydrate

import (
	"context"
	"fmt"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Single-post reads, coalesced
//
// The single post is one primary-key read, and most of what it cost
// PostgreSQL and the server was the round trip around it, not the read.
// Getter therefore answers the single-post reads that queue for the
// database under load (package coalesce) with one statement for all of
// them: each row carries its reader, post and token check, so the rules are
// those of Posts, row by row.

// DefaultCoalesceSlots is how many coalesced statements (single posts and
// pages together) are in flight at most unless told otherwise: as many as
// the database's two cores in the benchmark (docs/performance-journal.md,
// "Coalesced reads"); DefaultGetBatch bounds how many single-post reads
// share one.
const (
	DefaultCoalesceSlots = 2
	DefaultGetBatch      = 64
)

// getKey is one single-post read: the post id as viewer sees it, under the
// token check of guard (0: none, the principal is confirmed).
type getKey struct{ viewer, id, guard int64 }

// Getter reads single posts (Get), through a Cache, coalescing concurrent
// reads.
//
// Reads routed to a replica (pg.Router) coalesce only with reads routed to
// the same replica, and their batch runs there: each of them may read it.
type Getter struct {
	c      *Cache
	q      sqlx.QueryerContext
	pool   *coalesce.Pool
	size   int
	group  *coalesce.Group[getKey, Post] // the primary's
	groups sync.Map                      // pg.Target → *coalesce.Group[getKey, Post], the replicas'
}

// NewGetter returns a Getter over q and c (nil: no cache) whose statements
// take slots of pool (nil: every read alone), in batches of at most size
// reads.
func NewGetter(c *Cache, q sqlx.QueryerContext, pool *coalesce.Pool, size int) *Getter {
	g := &Getter{c: c, q: q, pool: pool, size: size}
	if pool != nil {
		g.group = coalesce.New(pool, size, g.one, g.many)
	}
	return g
}

// groupOf returns the group of ctx's reads: the primary's, or the one of
// the replica they were routed to, whose batches run there.
func (g *Getter) groupOf(ctx context.Context) *coalesce.Group[getKey, Post] {
	t := pg.TargetOf(ctx)
	if t == (pg.Target{}) {
		return g.group
	}
	if gr, ok := g.groups.Load(t); ok {
		return gr.(*coalesce.Group[getKey, Post])
	}
	gr, _ := g.groups.LoadOrStore(t, coalesce.New(g.pool, g.size, g.one, func(ctx context.Context, keys []getKey) ([]Post, error) {
		return g.many(t.Context(ctx), keys)
	}))
	return gr.(*coalesce.Group[getKey, Post])
}

// Stats returns how many coalesced statements ran and how many reads they
// answered.
func (g *Getter) Stats() (statements, reads int64) {
	if g.group == nil {
		return 0, 0
	}
	statements, reads = g.group.Stats()
	g.groups.Range(func(_, gr any) bool {
		s, r := gr.(*coalesce.Group[getKey, Post]).Stats()
		statements, reads = statements+s, reads+r
		return true
	})
	return statements, reads
}

// Get returns post id as viewerID sees it; a post that does not exist or
// that viewerID may not see is NotFound.
func (g *Getter) Get(ctx context.Context, viewerID, id int64) (Post, error) {
	key := getKey{viewer: viewerID, id: id}
	if tok, ok := auth.Guard(ctx); ok {
		key.guard = tok
	}
	var p Post
	var err error
	if g.group == nil {
		p, err = g.one(ctx, key)
	} else {
		p, err = g.groupOf(ctx).Do(ctx, key)
	}
	if err != nil {
		return Post{}, pg.Classify(ctx, fmt.Errorf("hydrate post: %w", err))
	}
	if p.Static == nil {
		return Post{}, apperr.New(apperr.NotFound, "No such post.")
	}
	auth.Confirm(ctx)
	return p, nil
}

// one reads a post alone, on the reader's context (which holds the token
// check): a Post without Static when there is none to show.
func (g *Getter) one(ctx context.Context, k getKey) (Post, error) {
	ps, err := g.c.Posts(ctx, g.q, k.viewer, []int64{k.id})
	if err != nil || len(ps) == 0 {
		return Post{}, err
	}
	return ps[0], nil
}

// batchColumns are the columns of a batch's list beyond id and ord: each
// read's viewer ($1) and token check ($3, 0 for none).
const batchColumns = `, ($1::bigint[])[i] AS viewer, NULLIF(($3::bigint[])[i], 0) AS guard`

// batchQuery reads the posts $2 for the viewers $1 under the token checks
// $3 (arrays of one element per read), each row as Posts reads it for its
// own viewer, followed by the read's position; the live part, and the
// static part too when withStatic.
func batchQuery(withStatic bool) *cursor.ListQuery {
	cols, join := liveColumnsOf("page.viewer"), ""
	if withStatic {
		cols, join = cols+", "+staticColumns, "JOIN members m ON m.id = p.author_id"
	}
	return cursor.NewListQuery("$2", func(list string) string {
		return `
	SELECT ` + cols + `, page.ord
	  FROM ` + list + `
	  JOIN posts p ON p.id = page.id
	  ` + join + `
	 WHERE ` + visibility.Post("p", "page.viewer") + ` AND ` + auth.GuardSQL("page.guard")
	}).WithColumns(batchColumns)
}

var getBatchQuery, getBatchStaticQuery = batchQuery(false), batchQuery(true)

// many reads a batch of posts in one statement: for each read, its post or
// a Post without Static when there is none to show it.
func (g *Getter) many(ctx context.Context, keys []getKey) ([]Post, error) {
	viewers, ids, guards := make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		viewers[i], ids[i], guards[i] = k.viewer, k.id, k.guard
	}
	known, missing := g.c.lookup(ids)
	withStatic := len(missing) > 0
	query := getBatchQuery.For(len(keys))
	if withStatic {
		query = getBatchStaticQuery.For(len(keys))
	}
	rows, err := g.q.QueryContext(ctx, query, pq.Array(viewers), pq.Array(ids), pq.Array(guards))
	if err != nil {
		return nil, err
	}
	ls, err := scanRows(rows, 0, len(keys), false, withStatic, true)
	if err != nil {
		return nil, err
	}
	for i := range ls {
		if ls[i].ord < 1 || ls[i].ord > len(keys) {
			return nil, fmt.Errorf("batch row for read %d of %d", ls[i].ord, len(keys))
		}
		ls[i].ViewerID = keys[ls[i].ord-1].viewer
	}
	if err := g.c.fill(ctx, g.q, ls, known); err != nil {
		return nil, err
	}
	out := make([]Post, len(keys))
	for _, l := range ls {
		if l.Static != nil {
			out[l.ord-1] = l.Post
		}
	}
	return out, nil
}

// Visible reports whether post id exists and viewerID may see it (nil) or
// not (NotFound).
func Visible(ctx context.Context, q sqlx.QueryerContext, viewerID, id int64) error {
	query := `SELECT EXISTS (SELECT 1 FROM posts p WHERE p.id = $2 AND ` + visibility.PostByKey("p", "$1") + `)`
	var ok bool
	if err := sqlx.GetContext(ctx, q, &ok, query, viewerID, id); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find post: %w", err))
	}
	if !ok {
		return apperr.New(apperr.NotFound, "No such post.")
	}
	return nil
}
