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
	fp := cursor.Fingerprint("market", query)
	after, err := cursor.Decode(fp, deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	per := cursor.PerPage(req.Params.PerPage)
	items, err := h.store.List(ctx, f, after, per+1)
	if err != nil {
		return nil, err
	}
	items, next := trim(items, per)
	page := cursor.NewPage(per, h.publicURL+"/api/v1/market", query, fp, next)
	return gen.ListListings200JSONResponse{
		Body:    gen.ListingList{Data: h.ToAPI(items), Meta: hydrate.ListMeta(page)},
		Headers: gen.ListListings200ResponseHeaders{Link: page.Link()},
	}, nil
}

// filterOf turns the request parameters into a Filter and the query values
// the cursor is bound to.
func filterOf(p gen.ListListingsParams) (Filter, url.Values) {
	f := Filter{Q: deref(p.Q), Category: deref(p.Category), MinPrice: p.MinPrice, MaxPrice: p.MaxPrice, Sort: SortNewest}
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

// trim cuts a page fetched with one extra row to per rows and returns the
// position of its last row when there are more.
func trim(items []Item, per int) ([]Item, *cursor.Position) {
	if len(items) <= per {
		return items, nil
	}
	items = items[:per]
	p := items[per-1].Position()
	return items, &p
}

// ToAPI converts listings to their API form.
func (h *Handler) ToAPI(items []Item) []gen.Listing {
	urls := hydrate.URLs{Public: h.publicURL}
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
			Seller: urls.UserSummary(hydrate.Author{ID: it.Seller.ID, Handle: it.Seller.Handle, Name: it.Seller.Name,
				AvatarURL: it.Seller.AvatarURL, Verified: it.Seller.Verified}),
			Status:    gen.ListingStatus(it.Status),
			CreatedAt: apitime.New(it.CreatedAt),
			URL:       h.publicURL + "/market/" + strconv.FormatInt(it.ID, 10),
		}
	}
	return out
}

func deref[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
