package users

import (
	"context"
	"net/url"
	"strings"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers GetUser and ListUserPosts.
type Handler struct {
	store *Store
	urls  apiurl.URLs
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// GetUser implements gen.StrictServerInterface.
func (h *Handler) GetUser(ctx context.Context, req gen.GetUserRequestObject) (gen.GetUserResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	p, err := h.store.Profile(ctx, me.MemberID, req.Handle)
	if err != nil {
		return nil, err
	}
	return gen.GetUser200JSONResponse{Body: gen.ProfileResponse{Data: hydrate.ProfileAPI(h.urls, p)}}, nil
}

// ListUserPosts implements gen.StrictServerInterface.
func (h *Handler) ListUserPosts(ctx context.Context, req gen.ListUserPostsRequestObject) (gen.ListUserPostsResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	fp := cursor.Fingerprint("users/"+strings.ToLower(req.Handle)+"/posts", nil)
	after, err := cursor.Decode(fp, cursor.Deref(req.Params.Cursor))
	if err != nil {
		// An unknown member answers 404 before a bad cursor answers 400.
		if xerr := h.store.Exists(ctx, me.MemberID, req.Handle); xerr != nil {
			return nil, xerr
		}
		return nil, err
	}
	perPage := cursor.PerPage(req.Params.PerPage)
	ps, next, err := h.store.Posts(ctx, me.MemberID, req.Handle, after, perPage)
	if err != nil {
		return nil, err
	}
	page := cursor.NewPage(perPage, h.urls.API+"/users/"+url.PathEscape(req.Handle)+"/posts", url.Values{}, fp, next)
	// The page is written from the posts' rendered parts (hydrate.PostList),
	// the body gen.PostList would encode to.
	return hydrate.PostList{URLs: h.urls, Posts: ps, Meta: apiurl.ListMeta(page), Link: page.Link()}, nil
}
