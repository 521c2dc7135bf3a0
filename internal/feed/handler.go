package feed

import (
	"context"
	"net/url"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers ListFeed.
type Handler struct {
	store *Store
	urls  apiurl.URLs
}

// NewHandler returns a Handler.
func NewHandler(s *Store, urls apiurl.URLs) *Handler { return &Handler{store: s, urls: urls} }

// ListFeed implements gen.StrictServerInterface.
func (h *Handler) ListFeed(ctx context.Context, req gen.ListFeedRequestObject) (gen.ListFeedResponseObject, error) {
	me, _ := auth.FromContext(ctx)
	tab, query := gen.ListFeedParamsTabHome, url.Values{}
	if req.Params.Tab != nil {
		tab = *req.Params.Tab
		query.Set("tab", string(tab))
	}
	// The fingerprint names the effective tab, so ?tab=home and no tab share cursors.
	fp := cursor.Fingerprint("feed", url.Values{"tab": {string(tab)}})
	after, err := cursor.Decode(fp, cursor.Deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	perPage := cursor.PerPage(req.Params.PerPage)
	list := h.store.Home
	if tab == gen.ListFeedParamsTabDiscover {
		list = h.store.Discover
	}
	ps, next, err := list(ctx, me.MemberID, after, perPage)
	if err != nil {
		return nil, err
	}
	page := cursor.NewPage(perPage, h.urls.API+"/feed", query, fp, next)
	// The page is written from the posts' rendered parts (hydrate.PostList),
	// the body gen.PostList would encode to.
	return hydrate.PostList{URLs: h.urls, Posts: ps, Meta: apiurl.ListMeta(page), Link: page.Link()}, nil
}
