// Package feed reads the timelines: home (the caller's own posts and those of
// the members the caller follows, as far as the caller may see them) and
// discover (every public post), newest first. Both are streams: they leave
// out the posts of suspended members, of members a block separates from the
// caller either way, and of members the caller mutes
// (visibility.PostInStream; the timeline's page statement applies
// visibility.AuthorInStream to its rows).
package feed

import (
	"context"
	"strconv"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/timeline"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Store reads timelines.
type Store struct {
	db    *pg.Prepared
	raw   *sqlx.DB // timeline.Wake's transaction
	posts *hydrate.Cache
}

// NewStore returns a Store; its statements are prepared once. It caches no
// posts until WithCache gives it a cache.
func NewStore(db *sqlx.DB) *Store { return &Store{db: pg.NewPrepared(db), raw: db} }

// WithCache makes s keep the static parts of posts in c.
func (s *Store) WithCache(c *hydrate.Cache) *Store { s.posts = c; return s }

// Home returns one page of viewerID's home timeline after the position
// after (nil: from the newest) and the position of the next page (nil:
// none). A page is one statement from the fanned-out timeline (package
// timeline) hydrated in place; the last page of a timeline costs a look at
// the member's horizon, and pages below it come from fan-out on read. A
// dormant member's first read wakes their timeline (timeline.Wake).
func (s *Store) Home(ctx context.Context, viewerID int64, after *cursor.Position, perPage int) ([]hydrate.Post, *cursor.Position, error) {
	return s.home(ctx, viewerID, after, perPage, true)
}

func (s *Store) home(ctx context.Context, viewerID int64, after *cursor.Position, perPage int, wake bool) ([]hydrate.Post, *cursor.Position, error) {
	q, args := timeline.PageSQL(after, []any{viewerID, perPage + 1})
	ps, next, exact, err := s.posts.Page(ctx, s.db, viewerID, perPage, hydrate.FromCache, q, args)
	if err != nil || (exact && next != nil) {
		return ps, next, err
	}
	// The timeline ran out: the end of the feed, the member's horizon, or a
	// dormant timeline.
	h, asleep, err := timeline.State(ctx, s.db, viewerID)
	if err != nil {
		return nil, nil, err
	}
	if asleep && wake {
		// Woken, the page is read again from the rebuilt timeline; not
		// woken (made dormant again meanwhile, a read-only database), it
		// is read on fan-out, which is always exact.
		woken, err := timeline.Wake(ctx, s.raw, viewerID)
		if err == nil && woken {
			return s.home(pg.OnPrimary(ctx), viewerID, after, perPage, false)
		}
		if err != nil && ctx.Err() != nil {
			return nil, nil, err
		}
	}
	if h == nil && !asleep {
		if exact {
			return ps, next, nil
		}
		return s.posts.Chosen(ctx, s.db, viewerID, perPage, q, args)
	}
	q, args = homePage(viewerID, after, perPage)
	return s.hydrated(ctx, viewerID, perPage, q, args)
}

// Discover returns one page of every public post, as Home does.
func (s *Store) Discover(ctx context.Context, viewerID int64, after *cursor.Position, perPage int) ([]hydrate.Post, *cursor.Position, error) {
	q, args := discoverPage(viewerID, after, perPage)
	return s.hydrated(ctx, viewerID, perPage, q, args)
}

// hydrated chooses and hydrates a page in one statement, or in two when a
// chosen post turned out hidden.
func (s *Store) hydrated(ctx context.Context, viewerID int64, perPage int, q string, args []any) ([]hydrate.Post, *cursor.Position, error) {
	ps, next, exact, err := s.posts.Page(ctx, s.db, viewerID, perPage, hydrate.FromCache, q, args)
	if err != nil || exact {
		return ps, next, err
	}
	return s.posts.Chosen(ctx, s.db, viewerID, perPage, q, args)
}

// homePage is fan-out on read with a LATERAL top-N per author
// (internal/timeline/DESIGN.md), the ground truth the timeline is an index of:
// for the viewer and each followee, at most perPage+1 visible posts from a
// backward index-only scan of posts_author_id_created_at_id_idx, then a
// merge of those. Its cost is
// bounded by followees × page size, never by how much the followees wrote.
func homePage(viewerID int64, after *cursor.Position, perPage int) (string, []any) {
	args := []any{viewerID, perPage + 1}
	keyset := ""
	if after != nil {
		args = append(args, after.Time, after.ID)
		keyset = "AND (p.created_at, p.id) < ($3, $4)"
	}
	q := `
		SELECT x.id, x.created_at
		  FROM (SELECT f.followee_id AS author_id FROM follows f WHERE f.follower_id = $1
		        UNION ALL
		        SELECT $1::bigint) a
		 CROSS JOIN LATERAL (
		      SELECT p.id, p.created_at
		        FROM posts p
		       WHERE p.author_id = a.author_id AND ` + visibility.PostInStream("p", "$1") + ` ` + keyset + `
		       ORDER BY p.created_at DESC, p.id DESC
		       LIMIT $2
		 ) x
		 ORDER BY x.created_at DESC, x.id DESC
		 LIMIT $2`
	return q, args
}

// discoverPage walks posts_public_created_at_id_idx backwards. Its limit is
// written into the text (a number we computed, one prepared statement per
// page size): with LIMIT $2, PostgreSQL costs the generic plan for an
// unknown limit, finds it dearer than a plan for 21 rows and plans the
// statement again on every execution (docs/performance-journal.md, "Limits
// written into the text").
func discoverPage(viewerID int64, after *cursor.Position, perPage int) (string, []any) {
	args := []any{viewerID, perPage + 1}
	keyset := ""
	if after != nil {
		args = append(args, after.Time, after.ID)
		keyset = "AND (p.created_at, p.id) < ($3, $4)"
	}
	q := `
		SELECT p.id, p.created_at
		  FROM posts p
		 WHERE p.visibility = 'public' AND ` + visibility.PostInStream("p", "$1") + ` ` + keyset + `
		 ORDER BY p.created_at DESC, p.id DESC
		 LIMIT ` + strconv.Itoa(perPage+1)
	return q, args
}
