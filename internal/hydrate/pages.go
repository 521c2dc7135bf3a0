package hydrate

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// Page reads, coalesced
//
// A page statement costs PostgreSQL far more to start than a single post
// (its CTEs and subplans are set up at every execution, run or not), and
// under load many readers run the same statement with their own arguments.
// Pages answers the page reads that queue for the database (package
// coalesce) with one statement: a list of the reads' arguments, and for
// each, LATERAL, the page statement itself with its parameters read from
// the list. Each read thus runs exactly its own statement, under its own
// token check; only the round trip and the set-up are shared, which makes a
// batch far cheaper than its statements run alone
// (docs/performance-journal.md, "Coalesced reads").

// pageRead is one page read: its page statement's arguments (viewer, page
// size + 1, then the statement's own) and token check (0: none).
type pageRead struct {
	viewer  int64
	perPage int
	args    []any
	guard   int64
}

// pageGroupKey identifies the reads that can share a statement: the same
// page statement, over the same database handle and routed to the same
// database (pg.Router: the batch runs there, which each of them may read),
// with arguments of the same types.
type pageGroupKey struct {
	q       sqlx.QueryerContext
	target  pg.Target
	statics Statics
	pageSQL string
	types   string
}

// CoalescePages makes c's Page coalesce the reads of each page statement,
// its statements taking slots of pool (nil: every read alone). Set it
// before c is used.
func (c *Cache) CoalescePages(pool *coalesce.Pool) *Cache {
	if c != nil {
		c.pool = pool
	}
	return c
}

// DefaultPageBatch bounds how many page reads share a statement.
const DefaultPageBatch = 32

// pageRows returns the rows of a page read, alone or with others.
func (c *Cache) pageRows(ctx context.Context, q sqlx.QueryerContext, viewerID int64, perPage int, statics Statics, pageSQL string, args []any) ([]live, error) {
	var types string
	if c != nil && c.pool != nil {
		types = argTypes(args)
	}
	if types == "" {
		return pageRowsAlone(ctx, q, viewerID, perPage, statics, pageSQL, args)
	}
	k := pageGroupKey{q: q, target: pg.TargetOf(ctx), statics: statics, pageSQL: pageSQL, types: types}
	g, ok := c.pages.Load(k)
	if !ok {
		g, _ = c.pages.LoadOrStore(k, newPageGroup(k, c.pool))
	}
	r := pageRead{viewer: viewerID, perPage: perPage, args: args}
	if tok, ok := auth.Guard(ctx); ok {
		r.guard = tok
	}
	return g.(*coalesce.Group[pageRead, []live]).Do(ctx, r)
}

// argTypes is the SQL element types of args, one letter each (i: bigint,
// t: timestamptz, s: text), or "" when one has no array form here (the
// read then runs alone).
func argTypes(args []any) string {
	var b strings.Builder
	for _, a := range args {
		switch a.(type) {
		case int64, int:
			b.WriteByte('i')
		case time.Time:
			b.WriteByte('t')
		case string:
			b.WriteByte('s')
		default:
			return ""
		}
	}
	return b.String()
}

func newPageGroup(k pageGroupKey, pool *coalesce.Pool) *coalesce.Group[pageRead, []live] {
	one := func(ctx context.Context, r pageRead) ([]live, error) {
		return pageRowsAlone(ctx, k.q, r.viewer, r.perPage, k.statics, k.pageSQL, r.args)
	}
	return coalesce.New(pool, DefaultPageBatch, one, func(ctx context.Context, reads []pageRead) ([][]live, error) {
		return manyPages(k.target.Context(ctx), k, reads)
	})
}

// manyPages runs reads in one statement and returns each read's rows, in
// the page statement's order.
func manyPages(ctx context.Context, k pageGroupKey, reads []pageRead) ([][]live, error) {
	n := len(k.types)
	cols := make([]any, 0, n+1)
	for j := range n {
		switch k.types[j] {
		case 'i':
			a := make([]int64, len(reads))
			for i, r := range reads {
				switch v := r.args[j].(type) {
				case int64:
					a[i] = v
				case int:
					a[i] = int64(v)
				}
			}
			cols = append(cols, pq.Array(a))
		case 't':
			a := make([]string, len(reads))
			for i, r := range reads {
				a[i] = r.args[j].(time.Time).Format(time.RFC3339Nano)
			}
			cols = append(cols, pq.Array(a))
		case 's':
			a := make([]string, len(reads))
			for i, r := range reads {
				a[i] = r.args[j].(string)
			}
			cols = append(cols, pq.Array(a))
		}
	}
	guards := make([]int64, len(reads))
	perPage := 0
	for i, r := range reads {
		guards[i] = r.guard
		perPage = max(perPage, r.perPage)
	}
	cols = append(cols, pq.Array(guards))
	rows, err := k.q.QueryContext(ctx, batchPageStatement(k, len(reads)), cols...)
	if err != nil {
		return nil, err
	}
	ls, err := scanRows(rows, 0, len(reads)*(perPage+1), true, bool(k.statics), true)
	if err != nil {
		return nil, err
	}
	out := make([][]live, len(reads))
	for i := range ls {
		l := &ls[i]
		if l.ord < 1 || l.ord > len(reads) {
			return nil, fmt.Errorf("page batch row for read %d of %d", l.ord, len(reads))
		}
		l.ViewerID = reads[l.ord-1].viewer
		out[l.ord-1] = append(out[l.ord-1], *l)
	}
	for _, page := range out {
		// The order of the page statement (newest first), which the rows
		// of one read keep in a nested loop but which SQL does not promise
		// across a join.
		slices.SortStableFunc(page, func(a, b live) int {
			return cmp.Or(b.createdAt.Compare(a.createdAt), cmp.Compare(b.id, a.id))
		})
	}
	return out, nil
}

// batchPages memoizes batchPageStatement's texts.
var batchPages sync.Map // batchPageKey → string

type batchPageKey struct {
	statics Statics
	pageSQL string
	types   string
	class   int
}

var paramRE = regexp.MustCompile(`\$([0-9]+)`)

// batchPageStatement is the statement of a batch of n reads of k: the
// list b of the reads' arguments (one array parameter per argument of the
// page statement, then the token checks), and for each read, LATERAL, the
// page statement with $i read from b.pi, followed by the read's position.
// The list walks the arrays' subscripts under a LIMIT of the size class,
// for the reason cursor.ListQuery does.
func batchPageStatement(k pageGroupKey, n int) string {
	class := cursor.SizeClass(n)
	bk := batchPageKey{k.statics, k.pageSQL, k.types, class}
	if s, ok := batchPages.Load(bk); ok {
		return s.(string)
	}
	guard := len(k.types) + 1
	inner := paramRE.ReplaceAllString(pageStatement(k.statics, k.pageSQL, guard), "b.p$1")
	var list strings.Builder
	list.WriteString("SELECT ")
	for j := range len(k.types) {
		typ := map[byte]string{'i': "bigint", 't': "timestamptz", 's': "text"}[k.types[j]]
		fmt.Fprintf(&list, "($%d::%s[])[i] AS p%d, ", j+1, typ, j+1)
	}
	fmt.Fprintf(&list, "NULLIF(($%d::bigint[])[i], 0) AS p%d, i AS ord FROM generate_subscripts($%d::bigint[], 1) AS g(i) LIMIT %d",
		guard, guard, guard, class)
	s := `
	SELECT x.*, b.ord
	  FROM (` + list.String() + `) AS b
	 CROSS JOIN LATERAL (` + inner + `) AS x`
	s2, _ := batchPages.LoadOrStore(bk, s)
	return s2.(string)
}

// CoalescedPages returns how many coalesced page statements ran and how
// many page reads they answered.
func (c *Cache) CoalescedPages() (statements, reads int64) {
	if c == nil {
		return 0, 0
	}
	c.pages.Range(func(_, g any) bool {
		s, r := g.(*coalesce.Group[pageRead, []live]).Stats()
		statements, reads = statements+s, reads+r
		return true
	})
	return statements, reads
}
