package hydrate

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Many reads a batch of single posts in one statement, as coalesced reads
// are: keys are viewer, post id and token check (0: none).
func (g *Getter) Many(ctx context.Context, keys [][3]int64) ([]Post, error) {
	ks := make([]getKey, len(keys))
	for i, k := range keys {
		ks[i] = getKey{viewer: k[0], id: k[1], guard: k[2]}
	}
	return g.many(ctx, ks)
}

// PageBatch runs page reads of pageSQL (arguments: viewer, page size + 1,
// then pageSQL's own) in one coalesced statement, with the token checks
// guards (0: none), and returns how many rows each read got.
func PageBatch(ctx context.Context, q sqlx.QueryerContext, statics Statics, pageSQL string, reads [][]any, guards []int64) ([]int, error) {
	rs := make([]pageRead, len(reads))
	for i, args := range reads {
		rs[i] = pageRead{viewer: args[0].(int64), perPage: args[1].(int) - 1, args: args, guard: guards[i]}
	}
	out, err := manyPages(ctx, pageGroupKey{q: q, statics: statics, pageSQL: pageSQL, types: argTypes(reads[0])}, rs)
	if err != nil {
		return nil, err
	}
	n := make([]int, len(out))
	for i := range out {
		n[i] = len(out[i])
	}
	return n, nil
}
