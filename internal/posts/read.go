package posts

import (
	"context"

	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Get returns post id as viewerID sees it; a post that does not exist or
// that viewerID may not see is NotFound.
func (s *Store) Get(ctx context.Context, viewerID, id int64) (hydrate.Post, error) {
	return s.get.Get(ctx, viewerID, id)
}

// View is Get for a fetch of the single post: a viewer other than the
// author adds one to its views, at most once per views.Window and only once
// the 200 that shows it is sent (views.Counter.View). Views are counted in
// memory and written in batches (package views), never by the read itself;
// the post shows the views this instance has counted and not yet written,
// and this read's own view when it counts.
//
// A flush of this instance that overlaps the read makes the two parts
// disagree (views.Counter.Stable): the read runs again, at most
// maxViewReads times in all (flushes are milliseconds, seconds apart).
func (s *Store) View(ctx context.Context, viewerID, id int64) (hydrate.Post, error) {
	for attempt := 1; ; attempt++ {
		e := s.views.Epoch()
		p, err := s.get.Get(ctx, viewerID, id)
		if err != nil {
			return p, err
		}
		if p.Author.ID != viewerID {
			p.Views += s.views.View(ctx, viewerID, id) // counts once however often it is asked
		} else {
			p.Views += s.views.Unflushed(id)
		}
		if s.views.Stable(e) || attempt == maxViewReads {
			return p, nil
		}
	}
}

// maxViewReads bounds View's reads when flushes keep overlapping them.
const maxViewReads = 3

// WithCache makes s keep the static parts of posts in c.
func (s *Store) WithCache(c *hydrate.Cache) *Store {
	s.cache = c
	s.get = s.getter()
	return s
}

// WithCoalescing makes single-post reads that find every slot of pool busy
// wait and share a statement (nil: every read alone, the default).
func (s *Store) WithCoalescing(pool *coalesce.Pool) *Store {
	s.pool = pool
	s.get = s.getter()
	return s
}

func (s *Store) getter() *hydrate.Getter {
	return hydrate.NewGetter(s.cache, s.prep, s.pool, hydrate.DefaultGetBatch)
}

// Visible reports whether post id exists and viewerID may see it (nil) or
// not (NotFound).
func (s *Store) Visible(ctx context.Context, viewerID, id int64) error {
	return hydrate.Visible(ctx, s.db, viewerID, id)
}
