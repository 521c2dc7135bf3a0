package posts

import (
	"context"

	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
)

// Get returns post id as viewerID sees it; a post that does not exist or
// that viewerID may not see is NotFound.
func (s *Store) Get(ctx context.Context, viewerID, id int64) (hydrate.Post, error) {
	return hydrate.GetPost(ctx, s.db, viewerID, id, false)
}

// View is Get for a fetch of the single post: a viewer other than the
// author adds one to its views.
// On a read-only database (a standby, maintenance) the view is not counted
// and the post is still served.
func (s *Store) View(ctx context.Context, viewerID, id int64) (hydrate.Post, error) {
	p, err := hydrate.GetPost(ctx, s.db, viewerID, id, true)
	if pg.IsReadOnly(err) {
		return hydrate.GetPost(ctx, s.db, viewerID, id, false)
	}
	return p, err
}

// Visible reports whether post id exists and viewerID may see it (nil) or
// not (NotFound).
func (s *Store) Visible(ctx context.Context, viewerID, id int64) error {
	return hydrate.Visible(ctx, s.db, viewerID, id)
}
