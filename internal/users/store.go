// Package users reads members' profiles and their posts as the caller may
// see them. A member who is suspended or blocks the caller is, to the
// caller, exactly a member that does not exist (visibility.MemberRow); a member
// the caller blocks keeps a profile, to be unblocked, and shows no posts.
package users

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Store reads members and their posts.
type Store struct {
	prep  *pg.Prepared // the reads
	posts *hydrate.Cache
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{prep: pg.NewPrepared(db)} }

// WithCache makes s keep the static parts of posts in c.
func (s *Store) WithCache(c *hydrate.Cache) *Store { s.posts = c; return s }

// Profile returns the member with handle as viewerID sees it. A member
// viewerID may not see (Exists) is NotFound.
func (s *Store) Profile(ctx context.Context, viewerID int64, handle string) (hydrate.Profile, error) {
	return hydrate.GetProfile(ctx, s.prep, viewerID, handle)
}

// Exists reports whether viewerID may see the member with handle (nil) or
// not (NotFound): an unknown member, a suspended one and one who blocks
// viewerID answer alike (visibility.MemberRow), as the profile does.
func (s *Store) Exists(ctx context.Context, viewerID int64, handle string) error {
	var ok bool
	if err := sqlx.GetContext(ctx, s.prep, &ok, existsSQL, viewerID, handle); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find member: %w", err))
	}
	if !ok {
		return apperr.New(apperr.NotFound, "No member with this handle.")
	}
	return nil
}

// existsSQL is Exists' statement: $1 the viewer, $2 the handle.
var existsSQL = `SELECT EXISTS (SELECT 1 FROM members m WHERE lower(m.handle) = lower($2) AND ` + visibility.MemberRow("m", "$1") + `)`

// Posts returns one page of the posts of the member with handle that
// viewerID may see, newest first, after the position after (nil: from the
// newest), and the position of the next page (nil: none). A member viewerID
// may not see (Exists) is NotFound. A member's posts list is not a stream: a
// mute hides nothing there, and a member viewerID blocks has an empty list
// (visibility.Post). A page is one statement (hydrate.Page); an
// empty one, or one with a post deleted meanwhile, is read again as the
// chosen rows, then their hydration (hydrate.Chosen), and an empty page
// costs a look for the member.
func (s *Store) Posts(ctx context.Context, viewerID int64, handle string, after *cursor.Position, perPage int) ([]hydrate.Post, *cursor.Position, error) {
	q, args := authoredPage(viewerID, handle, after, perPage)
	ps, next, exact, err := s.posts.Page(ctx, s.prep, viewerID, perPage, hydrate.WithPage, q, args)
	if err != nil || (exact && len(ps) > 0) {
		return ps, next, err
	}
	if ps, next, err = s.posts.Chosen(ctx, s.prep, viewerID, perPage, q, args); err != nil || len(ps) > 0 || next != nil {
		return ps, next, err
	}
	// Nothing to show: a member without visible posts, or no such member.
	if err := s.Exists(ctx, viewerID, handle); err != nil {
		return nil, nil, err
	}
	return []hydrate.Post{}, nil, nil
}

// authoredPage selects up to perPage+1 visible posts of the member with
// handle for hydrate.Page ($1 the viewer, $2 perPage+1), served backwards by
// posts_author_id_created_at_id_idx. Every post has the one author m: the
// author part of visibility.Post is checked once, on m (it reads the WITH
// items hydrate's page statements declare), and each post only for its own
// setting (visibility.Setting). The author part holds only where
// visibility.MemberRow does (not suspended, no block either way), so the
// rows it chooses never depend on more than the rule.
func authoredPage(viewerID int64, handle string, after *cursor.Position, perPage int) (string, []any) {
	args := []any{viewerID, perPage + 1, handle}
	keyset := ""
	if after != nil {
		args = append(args, after.Time, after.ID)
		keyset = "AND (p.created_at, p.id) < ($4, $5)"
	}
	q := `
		SELECT x.id, x.created_at
		  FROM members m
		 CROSS JOIN LATERAL (
		      SELECT p.id, p.created_at
		        FROM posts p
		       WHERE p.author_id = m.id AND ` + visibility.Setting("p", "$1") + ` ` + keyset + `
		       ORDER BY p.created_at DESC, p.id DESC
		       LIMIT $2
		 ) x
		 WHERE lower(m.handle) = lower($3) AND ` + visibility.For("$1").Author("m.id") + `
		 ORDER BY x.created_at DESC, x.id DESC`
	return q, args
}
