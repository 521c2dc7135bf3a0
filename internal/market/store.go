// Package market writes and lists marketplace listings: filters, full-text
// relevance, price orders and keyset pages, money in minor units.
package market

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// MaxImages is how many images a listing may carry.
const MaxImages = 10

// Image is one picture of a listing.
type Image struct {
	URL    string  `json:"url"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Alt    *string `json:"alt"`
}

// NewListing describes a listing to publish.
type NewListing struct {
	Category    string // a category slug
	Title       string
	Description string
	PriceMinor  int64  // in the currency's minor unit
	Currency    string // ISO 4217
	Condition   string // new, like_new, good, fair or poor
	City        string
	Region      *string
	Country     string // ISO 3166-1 alpha-2
	Status      string // active (""), pending or sold
	Images      []Image
	CreatedAt   *time.Time // nil: now (fixtures set it)
}

// Listing is a stored listing as Create returns it.
type Listing struct {
	ID         int64     `db:"id"`
	SellerID   int64     `db:"seller_id"`
	CategoryID int64     `db:"category_id"`
	Status     string    `db:"status"`
	CreatedAt  time.Time `db:"created_at"`
}

// Store writes listings.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Create publishes a listing by sellerID. An unknown category slug is a
// validation error on /category.
func (s *Store) Create(ctx context.Context, sellerID int64, nl NewListing) (Listing, error) {
	var l Listing
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		l, err = CreateTx(ctx, tx, sellerID, nl)
		return err
	})
	return l, err
}

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, sellerID int64, nl NewListing) (Listing, error) {
	if len(nl.Images) > MaxImages {
		return Listing{}, apperr.Field("/images", apperr.FieldTooMany, fmt.Sprintf("a listing carries at most %d images", MaxImages))
	}
	status := nl.Status
	if status == "" {
		status = "active"
	}
	const q = `
		INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition,
		                      city, region, country, status, created_at)
		SELECT $1, c.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, date_trunc('second', COALESCE($12::timestamptz, now()))
		  FROM categories c WHERE c.slug = $2
		RETURNING id, seller_id, category_id, status, created_at`
	var l Listing
	err := sqlx.GetContext(ctx, ex, &l, q, sellerID, nl.Category, nl.Title, nl.Description, nl.PriceMinor,
		nl.Currency, nl.Condition, nl.City, nl.Region, nl.Country, status, nl.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Listing{}, apperr.Field("/category", apperr.FieldUnknown, fmt.Sprintf("no category %q", nl.Category))
	}
	if err != nil {
		return Listing{}, translate(ctx, "", err)
	}
	const img = `
		INSERT INTO listing_images (listing_id, position, url, width, height, alt)
		VALUES ($1, $2, $3, $4, $5, $6)`
	for i, im := range nl.Images {
		if _, err := ex.ExecContext(ctx, img, l.ID, i, im.URL, im.Width, im.Height, im.Alt); err != nil {
			return Listing{}, translate(ctx, fmt.Sprintf("/images/%d", i), err)
		}
	}
	return l, nil
}

// fields maps the constraints a client's input can violate to the field
// (relative to the listing, or to one image) and the message.
var fields = map[string][2]string{
	"listings_title_check":          {"/title", "title must be 1 to 200 characters"},
	"listings_description_check":    {"/description", "description must be at most 5000 characters"},
	"listings_price_minor_check":    {"/price_minor", "price_minor must not be negative"},
	"listings_currency_check":       {"/currency", "currency must be an ISO 4217 code"},
	"listings_condition_check":      {"/condition", "condition must be new, like_new, good, fair or poor"},
	"listings_city_check":           {"/city", "city must be 1 to 100 characters"},
	"listings_region_check":         {"/region", "region must be 1 to 100 characters"},
	"listings_country_check":        {"/country", "country must be an ISO 3166-1 alpha-2 code"},
	"listings_status_check":         {"/status", "status must be active, pending or sold"},
	"listings_seller_id_fkey":       {"/seller", "no such member"},
	"listing_images_url_check":      {"/url", "url must be 1 to 2048 characters"},
	"listing_images_width_check":    {"/width", "width must be positive"},
	"listing_images_height_check":   {"/height", "height must be positive"},
	"listing_images_alt_check":      {"/alt", "alt must be at most 1500 characters"},
	"listing_images_position_check": {"", "a listing has at most 10 images"},
}

func translate(ctx context.Context, prefix string, err error) error {
	if f, ok := fields[pg.ConstraintOf(err)]; ok {
		return apperr.Field(prefix+f[0], apperr.FieldInvalid, f[1])
	}
	return pg.Classify(ctx, fmt.Errorf("create listing: %w", err))
}
