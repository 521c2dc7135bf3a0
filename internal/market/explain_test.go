package market_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestListPlansUseIndexes loads 100k listings and checks that every shape of
// the market list query is served by its index, never a sequential scan of
// listings. Run with -v to see the plans.
func TestListPlansUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100k rows")
	}
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	seller, err := members.CreateTx(ctx, db, members.New{Handle: "seller", Name: "Seller"})
	if err != nil {
		t.Fatal(err)
	}
	// Every title has a common word (c0..c99: one listing in a hundred) and
	// a rare one (w0..w4999: twenty listings each).
	const load = `
		INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition,
		                      city, country, created_at)
		SELECT $1, c.id,
		       'c' || (g % 100) || ' w' || (g % 5000),
		       'Item number ' || g || ' in ' || (ARRAY['good','fair','mint'])[1 + g % 3] || ' shape',
		       (g * 7919) % 100000, 'EUR', (ARRAY['new','like_new','good','fair','poor'])[1 + g % 5],
		       'Lyon', 'FR', timestamptz '2026-01-01' + g * interval '1 minute'
		  FROM generate_series(1, 100000) AS g
		  JOIN categories c ON c.position = 1 + g % 9`
	if _, err := db.ExecContext(ctx, load, seller.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `ANALYZE listings; ANALYZE members; ANALYZE categories`); err != nil {
		t.Fatal(err)
	}
	s := market.NewStore(db)
	after := &cursor.Position{Time: time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC), ID: 57000, Num: 50000, Rank: 0.05}
	max := int64(20000)
	tests := []struct {
		name  string
		f     market.Filter
		after *cursor.Position
		index string
	}{
		{"newest", market.Filter{}, nil, "listings_created_at_id_idx"},
		{"newest, next page", market.Filter{}, after, "listings_created_at_id_idx"},
		{"category", market.Filter{Category: "books"}, nil, "listings_category_id_created_at_id_idx"},
		{"category, next page", market.Filter{Category: "books"}, after, "listings_category_id_created_at_id_idx"},
		{"category and condition", market.Filter{Category: "books", Condition: "good"}, nil, "listings_category_id_created_at_id_idx"},
		{"q", market.Filter{Q: "w123"}, nil, "listings_search_tsv_idx"},
		{"q, relevance", market.Filter{Q: "w123", Sort: market.SortRelevance}, nil, "listings_search_tsv_idx"},
		{"q, relevance, next page", market.Filter{Q: "w123", Sort: market.SortRelevance}, after, "listings_search_tsv_idx"},
		{"q and category", market.Filter{Q: "w123 c23", Category: "books"}, nil, "listings_search_tsv_idx"},
		{"common word", market.Filter{Q: "c7"}, nil, "listings_search_tsv_idx"},
		{"common word, relevance", market.Filter{Q: "c7", Sort: market.SortRelevance}, nil, "listings_search_tsv_idx"},
		{"common word, price", market.Filter{Q: "c7", Sort: market.SortPriceAsc}, after, "listings_search_tsv_idx"},
		{"price ascending", market.Filter{Sort: market.SortPriceAsc}, nil, "listings_price_minor_id_idx"},
		{"price ascending, next page", market.Filter{Sort: market.SortPriceAsc}, after, "listings_price_minor_id_idx"},
		{"price descending, capped", market.Filter{Sort: market.SortPriceDesc, MaxPrice: &max}, after, "listings_price_minor_id_idx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, args, err := s.ListQuery(ctx, tt.f, tt.after, 21)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			if err := db.SelectContext(ctx, &lines, "EXPLAIN "+q, args...); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			plan := strings.Join(lines, "\n")
			t.Logf("%s:\n%s", tt.name, plan)
			if strings.Contains(plan, "Seq Scan on listings") || !strings.Contains(plan, tt.index) {
				t.Errorf("%s: plan does not use %s:\n%s", tt.name, tt.index, plan)
			}
		})
	}
}
