package market

import (
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
)

// ToAPI converts listings to their API form (the market's and search's).
func ToAPI(urls apiurl.URLs, items []Item) []gen.Listing {
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
			Price:       apiurl.Money(it.PriceMinor, it.Currency),
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
