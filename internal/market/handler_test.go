package market_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/members"
)

// marketFixture stores seven listings by bob (and one by a suspended member)
// and returns their ids in creation order.
func marketFixture(t *testing.T, env *apitest.Env) []int64 {
	t.Helper()
	bob := env.Member(t, "bob")
	carol := env.Member(t, "carol")
	s := market.NewStore(env.DB)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(h int) *time.Time { v := t0.Add(time.Duration(h) * time.Hour); return &v }
	alt := "Blue road bike"
	in := []market.NewListing{
		{Category: "sports", Title: "Road bike", Description: "Aluminium frame, new tyres", PriceMinor: 45000, Currency: "EUR", Condition: "good",
			Images: []market.Image{{URL: "/media/listings/1.jpg", Width: 1200, Height: 900, Alt: &alt}}, CreatedAt: at(0)},
		{Category: "sports", Title: "Bike helmet", Description: "Fits any road bike rider", PriceMinor: 3000, Currency: "EUR", Condition: "like_new", CreatedAt: at(1)},
		{Category: "furniture", Title: "Sofa", Description: "Comfy, bike not included", PriceMinor: 20000, Currency: "EUR", Condition: "fair", CreatedAt: at(2)},
		{Category: "electronics", Title: "Camera", Description: "Mirrorless", PriceMinor: 150000, Currency: "JPY", Condition: "new", CreatedAt: at(3)},
		{Category: "furniture", Title: "Lamp", PriceMinor: 1234, Currency: "KWD", Condition: "good", CreatedAt: at(4)},
		{Category: "books", Title: "Pen", PriceMinor: 5, Currency: "EUR", Condition: "poor", CreatedAt: at(5)},
		{Category: "books", Title: "Notebook", PriceMinor: 5, Currency: "EUR", Condition: "poor", CreatedAt: at(5)},
	}
	var ids []int64
	for _, nl := range in {
		nl.City, nl.Country = "Lyon", "FR"
		l, err := s.Create(context.Background(), bob, nl)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	if _, err := s.Create(context.Background(), carol, market.NewListing{Category: "sports", Title: "Stolen bike", PriceMinor: 1,
		Currency: "EUR", Condition: "good", City: "Lyon", Country: "FR", CreatedAt: at(6)}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`UPDATE members SET suspended_at = now() WHERE id = $1`, carol); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestListListings(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ids := marketFixture(t, env)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	l := func(n ...int) []int64 {
		out := []int64{}
		for _, i := range n {
			out = append(out, ids[i-1])
		}
		return out
	}
	tests := []struct {
		query string
		want  []int64
	}{
		{"", l(7, 6, 5, 4, 3, 2, 1)},
		{"sort=newest", l(7, 6, 5, 4, 3, 2, 1)},
		{"sort=price_asc", l(6, 7, 5, 2, 3, 1, 4)},
		{"sort=price_desc", l(4, 1, 3, 2, 5, 7, 6)},
		{"q=bike", l(3, 2, 1)},
		{"q=bike&sort=relevance", l(2, 1, 3)}, // title and description > title > description
		{"q=BIKE+-sofa&sort=relevance", l(2, 1)},
		{"q=%22road+bike%22&sort=price_asc", l(2, 1)},
		{"q=nothing-matches", l()},
		{"category=furniture", l(5, 3)},
		{"condition=poor", l(7, 6)},
		{"min_price=1000&max_price=30000", l(5, 3, 2)},
		{"min_price=5&max_price=5&sort=price_desc", l(7, 6)},
		{"category=sports&q=bike&min_price=10000", l(1)},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			path := "/api/v1/market?" + tt.query
			one := env.Walk(t, tok, path+"&per_page=50", 1)
			if diff := cmp.Diff(tt.want, apitest.IDs(t, one[0])); diff != "" {
				t.Errorf("one page (-want +got):\n%s", diff)
			}
			var walked []int64
			for _, p := range env.Walk(t, tok, path+"&per_page=2", 10) {
				walked = append(walked, apitest.IDs(t, p)...)
			}
			if diff := cmp.Diff(tt.want, append([]int64{}, walked...)); len(tt.want) > 0 && diff != "" {
				t.Errorf("walk with per_page=2 (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListingRendering(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ids := marketFixture(t, env)
	tok := env.Token(t, "bob", auth.ScopeRead)
	resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/market?per_page=50", Token: tok})
	var got gen.ListingList
	resp.JSON(t, &got)
	byID := map[int64]gen.Listing{}
	for _, it := range got.Data {
		byID[it.ID] = it
	}
	for i, want := range []gen.Money{
		{AmountMinor: 45000, Amount: "450.00", Currency: "EUR"},
		{AmountMinor: 3000, Amount: "30.00", Currency: "EUR"},
		{AmountMinor: 20000, Amount: "200.00", Currency: "EUR"},
		{AmountMinor: 150000, Amount: "150000", Currency: "JPY"},
		{AmountMinor: 1234, Amount: "1.234", Currency: "KWD"},
		{AmountMinor: 5, Amount: "0.05", Currency: "EUR"},
	} {
		if diff := cmp.Diff(want, byID[ids[i]].Price); diff != "" {
			t.Errorf("listing %d price (-want +got):\n%s", i+1, diff)
		}
	}
	first := byID[ids[0]]
	alt := "Blue road bike"
	wantImages := []gen.Media{{Kind: "image", URL: apitest.PublicURL + "/media/listings/1.jpg", Width: 1200, Height: 900, Alt: &alt}}
	if diff := cmp.Diff(wantImages, first.Images); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	if first.URL != fmt.Sprintf("%s/market/%d", apitest.PublicURL, ids[0]) || first.Seller.Handle != "bob" ||
		first.Category != (gen.ListingCategory{Slug: "sports", Name: "Sports"}) || first.Seller.URL != apitest.PublicURL+"/@bob" {
		t.Errorf("listing = %+v", first)
	}
	if imgs := byID[ids[1]].Images; imgs == nil || len(imgs) != 0 {
		t.Errorf("listing without images: images = %#v, want []", imgs)
	}
}

func TestListListingsErrors(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	marketFixture(t, env)
	tok := env.Token(t, "bob", auth.ScopeRead)
	first := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/market?sort=price_asc&per_page=2", Token: tok})
	var page gen.ListingList
	first.JSON(t, &page)
	if page.Meta.NextCursor == nil {
		t.Fatal("no next cursor")
	}
	c := *page.Meta.NextCursor
	tests := []struct {
		query, code, param string
	}{
		{"category=boats", "invalid_parameter", "category"},
		{"category=Bikes", "invalid_parameter", "category"},
		{"min_price=10&max_price=9", "invalid_parameter", "max_price"},
		{"sort=relevance", "invalid_parameter", "sort"},
		{"sort=cheapest", "invalid_parameter", "sort"},
		{"condition=mint", "invalid_parameter", "condition"},
		{"min_price=-1", "invalid_parameter", "min_price"},
		{"q=", "invalid_parameter", "q"},
		{"per_page=51", "invalid_parameter", "per_page"},
		{"sort=price_desc&cursor=" + c, "invalid_cursor", "cursor"},
		{"cursor=" + c, "invalid_cursor", "cursor"},
		{"cursor=bm9wZQ", "invalid_cursor", "cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/market?" + tt.query, Token: tok})
			if resp.Status != 400 {
				t.Errorf("%s: status %d, want 400: %s", tt.query, resp.Status, resp.Body)
				return
			}
			p := resp.Problem(t)
			if p.Code != tt.code || len(p.Errors) == 0 || p.Errors[0].Parameter == nil || *p.Errors[0].Parameter != tt.param {
				t.Errorf("%s: problem = %s, want %s on %s", tt.query, resp.Body, tt.code, tt.param)
			}
		})
	}
}

func TestMoney(t *testing.T) {
	t.Parallel()
	tests := []struct {
		minor    int64
		currency string
		want     string
	}{
		{0, "EUR", "0.00"}, {7, "USD", "0.07"}, {123456789, "EUR", "1234567.89"}, {500, "JPY", "500"},
		{1, "BHD", "0.001"}, {100, "XXQ", "1.00"}, {9007199254740991, "EUR", "90071992547409.91"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d %s", tt.minor, tt.currency), func(t *testing.T) {
			if got := apiurl.Money(tt.minor, tt.currency).Amount; got != tt.want {
				t.Errorf("Money(%d, %s) = %q, want %q", tt.minor, tt.currency, got, tt.want)
			}
		})
	}
}

// TestListListingsSuspendedSeller: the listings of a suspended seller are
// left out of every list (order, text, category, price) as if they did not
// exist, from the request after the suspension on, and come back when it is
// lifted.
func TestListListingsSuspendedSeller(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ids := marketFixture(t, env) // carol, suspended, sells the newest and cheapest listing
	var stolen int64
	if err := env.DB.Get(&stolen, `SELECT id FROM listings WHERE title = 'Stolen bike'`); err != nil {
		t.Fatal(err)
	}
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	queries := []string{"", "sort=price_asc", "sort=price_desc", "q=bike", "q=stolen&sort=relevance", "category=sports", "max_price=10", "condition=good"}
	list := func(query string) []int64 {
		t.Helper()
		var all []int64
		for _, p := range env.Walk(t, tok, "/api/v1/market?"+query+"&per_page=2", 10) {
			all = append(all, apitest.IDs(t, p)...)
		}
		return all
	}
	without := map[string][]int64{}
	for _, q := range queries {
		without[q] = list(q)
		if slices.Contains(without[q], stolen) {
			t.Errorf("%q: a suspended seller's listing is listed", q)
		}
	}
	ctx := context.Background()
	ms := members.NewStore(env.DB)
	if _, err := ms.Unsuspend(ctx, "carol", "Lifted."); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		got := list(q)
		if !slices.Contains(got, stolen) {
			t.Errorf("%q: the listing is not back once the suspension is lifted: %v", q, got)
		}
		if others := slices.DeleteFunc(got, func(id int64) bool { return id == stolen }); !slices.Equal(others, without[q]) {
			t.Errorf("%q: the other listings changed: %v while suspended, %v once lifted", q, without[q], others)
		}
	}
	if got := list(""); got[0] != stolen || len(got) != len(ids)+1 {
		t.Errorf("newest first once lifted: %v, want %d first", got, stolen)
	}
	// Every query finds carol's listing; with bob suspended, only it.
	if _, err := ms.Suspend(ctx, "bob", "Spam."); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if got := list(q); !slices.Equal(got, []int64{stolen}) {
			t.Errorf("%q with bob suspended: %v, want only carol's %d", q, got, stolen)
		}
	}
}
