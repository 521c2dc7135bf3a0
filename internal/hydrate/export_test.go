package hydrate

import "context"

// Many reads a batch of single posts in one statement, as coalesced reads
// are: keys are viewer, post id and token check (0: none).
func (g *Getter) Many(ctx context.Context, keys [][3]int64) ([]Post, error) {
	ks := make([]getKey, len(keys))
	for i, k := range keys {
		ks[i] = getKey{viewer: k[0], id: k[1], guard: k[2]}
	}
	return g.many(ctx, ks)
}
