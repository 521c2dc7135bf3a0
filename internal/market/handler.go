package market

import (
	"context"
	"net/url"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers ListListings.
type Handler struct {
	store     *Store
	publicURL string
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{store: s, publicURL: publicURL}
}

// ListListings implements gen.StrictServerInterface.
func (h *Handler) ListListings(ctx context.Context, req gen.ListListingsRequestObject) (gen.ListListingsResponseObject, error) {
	f, query := filterOf(req.Params)
	r := cursor.Request{Scope: "market", Self: h.publicURL + "/api/v1/market", Query: query, PerPage: req.Params.PerPage, Cursor: req.Params.Cursor}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) ([]Item, error) {
		return h.store.List(ctx, f, after, limit)
	})
	if err != nil {
		return nil, err
	}
	return gen.ListListings200JSONResponse{
		Body:    gen.ListingList{Data: ToAPI(hydrate.URLs{Public: h.publicURL}, items), Meta: hydrate.ListMeta(page)},
		Headers: gen.ListListings200ResponseHeaders{Link: page.Link()},
	}, nil
}

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

// ToAPI converts listings to their API form (the market's and search's).
func ToAPI(urls hydrate.URLs, items []Item) []gen.Listing {
	out := make([]gen.Listing, len(items))
	for i, it := range items {
		images := make([]gen.Media, len(it.Images))
		for j, im := range it.Images {
			images[j] = gen.Media{Kind: "image", URL: urls.Media(im.URL), Width: im.Width, Height: im.Height, Alt: im.Alt}
		}
		out[i] = gen.Listing{
			ID:          it.ID,
			Title:       it.Title,
			Description: it.Description,
			Price:       hydrate.Money(it.PriceMinor, it.Currency),
			Condition:   gen.ListingCondition(it.Condition),
			Category:    gen.ListingCategory{Slug: it.CategorySlug, Name: it.CategoryName},
			Location:    gen.Location{City: it.City, Region: it.Region, Country: it.Country},
			Images:      images,
			Seller:      urls.UserSummary(it.Seller),
			Status:      gen.ListingStatus(it.Status),
			CreatedAt:   apitime.New(it.CreatedAt),
			URL:         urls.Public + "/market/" + strconv.FormatInt(it.ID, 10),
		}
	}
	return out
}
