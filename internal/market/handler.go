package market

import (
	"context"
	"net/url"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/cursor"
)

// filterOf turns the request parameters into a Filter and the query values
// the cursor is bound to.
func filterOf(p gen.ListListingsParams) (Filter, url.Values) {
	f := Filter{Q: cursor.Deref(p.Q), Category: cursor.Deref(p.Category), MinPrice: p.MinPrice, MaxPrice: p.MaxPrice, Sort: SortNewest}
	if p.Condition != nil {
		f.Condition = string(*p.Condition)
	}
	if p.Sort != nil {
		f.Sort = string(*p.Sort)
	}
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", f.Q)
	set("category", f.Category)
	set("condition", f.Condition)
	if p.Sort != nil {
		v.Set("sort", f.Sort)
	}
	if p.MinPrice != nil {
		v.Set("min_price", strconv.FormatInt(*p.MinPrice, 10))
	}
	if p.MaxPrice != nil {
		v.Set("max_price", strconv.FormatInt(*p.MaxPrice, 10))
	}
	return f, v
}

// Handler answers ListListings.
type Handler struct {
	listings apiurl.Lister[Filter, Item, gen.ListListingsResponseObject]
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{listings: apiurl.NewLister("market", publicURL, s.List, respond)}
}

// ListListings implements gen.StrictServerInterface.
func (h *Handler) ListListings(ctx context.Context, req gen.ListListingsRequestObject) (gen.ListListingsResponseObject, error) {
	f, query := filterOf(req.Params)
	return h.listings.Answer(ctx, f, query, req.Params.PerPage, req.Params.Cursor)
}

// respond is ListListings' 200 response to a page of listings.
func respond(urls apiurl.URLs, items []Item, page cursor.Page) gen.ListListingsResponseObject {
	return gen.ListListings200JSONResponse{
		Body:    gen.ListingList{Data: ToAPI(urls, items), Meta: apiurl.ListMeta(page)},
		Headers: gen.ListListings200ResponseHeaders{Link: page.Link()},
	}
}
