package market

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// The orders a listing list can take.
const (
	SortNewest    = "newest"
	SortPriceAsc  = "price_asc"
	SortPriceDesc = "price_desc"
	SortRelevance = "relevance"
)

// Filter selects and orders listings.
type Filter struct {
	Q         string // websearch syntax over title and description; "" matches all
	Category  string // a category slug; "" for all
	MinPrice  *int64 // inclusive, minor units
	MaxPrice  *int64 // inclusive, minor units
	Condition string // "" for all
	Sort      string // one of the Sort constants; "" is newest
}

// Validate checks the rules the spec cannot express.
func (f Filter) Validate() error {
	if f.MinPrice != nil && f.MaxPrice != nil && *f.MinPrice > *f.MaxPrice {
		return paramError("max_price", "max_price must not be below min_price")
	}
	if f.Sort == SortRelevance && f.Q == "" {
		return paramError("sort", "sort=relevance needs q")
	}
	return nil
}

func paramError(name, detail string) error {
	return &apperr.Error{Code: apperr.InvalidParameter, Detail: detail,
		Fields: []apperr.FieldError{{Parameter: name, Code: apperr.FieldInvalid, Detail: detail}}}
}

// Item is a listing as lists show it, with its seller and images.
type Item struct {
	ID           int64         `db:"id"`
	Title        string        `db:"title"`
	Description  string        `db:"description"`
	PriceMinor   int64         `db:"price_minor"`
	Currency     string        `db:"currency"`
	Condition    string        `db:"condition"`
	CategorySlug string        `db:"category_slug"`
	CategoryName string        `db:"category_name"`
	City         string        `db:"city"`
	Region       *string       `db:"region"`
	Country      string        `db:"country"`
	Status       string        `db:"status"`
	CreatedAt    time.Time     `db:"created_at"`
	Rank         float64       `db:"rank"`   // text relevance; 0 without q
	Seller       apiurl.Author `db:"seller"` // the member who sells it
	Images       []Image       `db:"-"`
}

// Position is the keyset position of it in a list ordered by sort.
func (it Item) Position() cursor.Position {
	return cursor.Position{Time: it.CreatedAt, ID: it.ID, Num: it.PriceMinor, Rank: it.Rank}
}

// itemColumns is the select list of an Item over listings l, categories c
// and members m; rank is the relevance expression.
func itemColumns(rank string) string {
	return `l.id, l.title, l.description, l.price_minor, l.currency, l.condition,
	        c.slug AS category_slug, c.name AS category_name, l.city, l.region, l.country, l.status,
	        l.created_at, ` + rank + ` AS rank,
	        m.id AS "seller.author_id", m.handle AS "seller.author_handle", m.name AS "seller.author_name",
	        m.avatar_url AS "seller.author_avatar_url", m.verified AS "seller.author_verified"`
}

// Rank is the relevance of listing l to the tsquery expression query:
// title matches (weight A) count more than description matches (B).
func Rank(l, query string) string { return "ts_rank(" + l + ".search_tsv, " + query + ")::float8" }

// List returns up to limit listings matching f after the position after (nil:
// from the start), in f's order. Listings of sellers suspended now are left
// out, and come back when the suspension is lifted: the seller's row is
// joined anyway, and its own column plans better here than the anti-join
// of visibility.NotSuspended (TestListPlansUseIndexes).
// An unknown category is an invalid_parameter error.
func (s *Store) List(ctx context.Context, f Filter, after *cursor.Position, limit int) ([]Item, error) {
	q, args, err := s.listQuery(ctx, f, after, limit)
	if err != nil {
		return nil, err
	}
	items := []Item{}
	if err := sqlx.SelectContext(ctx, pg.Reader(ctx, s.db), &items, q, args...); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list listings: %w", err))
	}
	if err := LoadImages(ctx, pg.Reader(ctx, s.db), items); err != nil {
		return nil, err
	}
	return items, nil
}

// listQuery builds the query of List; filters build where and args side by
// side, so no value is ever formatted into the SQL.
func (s *Store) listQuery(ctx context.Context, f Filter, after *cursor.Position, limit int) (string, []any, error) {
	if err := f.Validate(); err != nil {
		return "", nil, err
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"m.suspended_at IS NULL"}
	rank := "0::float8"
	with, from := "", "listings l"
	if f.Q != "" {
		// The matches are fetched through the GIN index first, behind a
		// fence: ANALYZE keeps no frequency for rare terms, and with the
		// default estimate the planner would walk the created_at or price
		// index filtering every row, reading the whole table for a term
		// that matches a handful of listings. This way the cost is bounded
		// by the number of matches.
		tsq := "websearch_to_tsquery('simple', " + arg(f.Q) + ")"
		with = `WITH l AS MATERIALIZED (
		    SELECT id, seller_id, category_id, title, description, price_minor, currency, condition,
		           city, region, country, status, created_at, search_tsv
		      FROM listings
		     WHERE search_tsv @@ ` + tsq + `) `
		from = "l"
		rank = Rank("l", tsq)
	}
	if f.Category != "" {
		id, err := s.categoryID(ctx, f.Category)
		if err != nil {
			return "", nil, err
		}
		where = append(where, "l.category_id = "+arg(id))
	}
	if f.MinPrice != nil {
		where = append(where, "l.price_minor >= "+arg(*f.MinPrice))
	}
	if f.MaxPrice != nil {
		where = append(where, "l.price_minor <= "+arg(*f.MaxPrice))
	}
	if f.Condition != "" {
		where = append(where, "l.condition = "+arg(f.Condition))
	}
	var order string
	switch f.Sort {
	case SortPriceAsc:
		order = "l.price_minor, l.id"
		if after != nil {
			where = append(where, fmt.Sprintf("(l.price_minor, l.id) > (%s, %s)", arg(after.Num), arg(after.ID)))
		}
	case SortPriceDesc:
		order = "l.price_minor DESC, l.id DESC"
		if after != nil {
			where = append(where, fmt.Sprintf("(l.price_minor, l.id) < (%s, %s)", arg(after.Num), arg(after.ID)))
		}
	case SortRelevance:
		order = "rank DESC, l.created_at DESC, l.id DESC"
		if after != nil {
			r, t, id := arg(after.Rank), arg(after.Time), arg(after.ID)
			where = append(where, fmt.Sprintf("(%[1]s < %[2]s::float8 OR (%[1]s = %[2]s::float8 AND (l.created_at, l.id) < (%[3]s, %[4]s)))",
				rank, r, t, id))
		}
	default:
		order = "l.created_at DESC, l.id DESC"
		if after != nil {
			where = append(where, fmt.Sprintf("(l.created_at, l.id) < (%s, %s)", arg(after.Time), arg(after.ID)))
		}
	}
	q := with + `SELECT ` + itemColumns(rank) + `
		  FROM ` + from + `
		  JOIN categories c ON c.id = l.category_id
		  JOIN members m ON m.id = l.seller_id
		 WHERE ` + strings.Join(where, " AND ") + `
		 ORDER BY ` + order + `
		 LIMIT ` + arg(limit)
	return q, args, nil
}

func (s *Store) categoryID(ctx context.Context, slug string) (int64, error) {
	const q = `SELECT id FROM categories WHERE slug = $1`
	var id int64
	err := sqlx.GetContext(ctx, pg.Reader(ctx, s.db), &id, q, slug)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, paramError("category", fmt.Sprintf("no category %q", slug))
	}
	if err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("find category: %w", err))
	}
	return id, nil
}

// LoadImages fills the Images of items in one query.
func LoadImages(ctx context.Context, ex sqlx.QueryerContext, items []Item) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]int64, len(items))
	at := make(map[int64]int, len(items))
	for i := range items {
		ids[i] = items[i].ID
		at[items[i].ID] = i
		items[i].Images = []Image{}
	}
	const q = `
		SELECT listing_id, url, width, height, alt
		  FROM listing_images
		 WHERE listing_id = ANY($1)
		 ORDER BY listing_id, position`
	var rows []struct {
		ListingID int64   `db:"listing_id"`
		URL       string  `db:"url"`
		Width     int     `db:"width"`
		Height    int     `db:"height"`
		Alt       *string `db:"alt"`
	}
	if err := sqlx.SelectContext(ctx, ex, &rows, q, pq.Array(ids)); err != nil {
		return pg.Classify(ctx, fmt.Errorf("list listing images: %w", err))
	}
	for _, r := range rows {
		i := at[r.ListingID]
		items[i].Images = append(items[i].Images, Image{URL: r.URL, Width: r.Width, Height: r.Height, Alt: r.Alt})
	}
	return nil
}
