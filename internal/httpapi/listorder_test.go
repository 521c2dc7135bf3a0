package httpapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/seed"
)

// TestListsOrderWithinOneSecond holds every list to the order a client can
// check from what it reads (openapi.yaml, Pagination): the list's time as
// shown, in whole seconds, then id. Pairs of items are imported (the seed
// importer, through the stores' writers) within one second, the one with
// the higher id earlier within it; each list, read whole and then page by
// page (the cursor of a tie), must give them in id order for that second,
// with equal shown times. Under times sorted with their fractions, every
// row fails.
func TestListsOrderWithinOneSecond(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ctx := context.Background()
	sec := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	at := func(s, ms int) string {
		return sec.Add(time.Duration(s)*time.Second + time.Duration(ms)*time.Millisecond).Format("2006-01-02T15:04:05.000-07:00")
	}
	// In fixture order (ids ascending): within each pair, the first is the
	// later within the second.
	fixture := fmt.Sprintf(`{
	  "members": [
	    {"handle": "alice", "name": "Alice", "created_at": %[1]q},
	    {"handle": "bob", "name": "Bob", "created_at": %[1]q},
	    {"handle": "carol", "name": "Carol", "created_at": %[1]q},
	    {"handle": "lanterna", "name": "Lantern Keeper", "created_at": %[2]q},
	    {"handle": "lanternb", "name": "Lantern Keeper", "created_at": %[3]q}
	  ],
	  "follows": [{"follower": "alice", "followee": "bob", "created_at": %[1]q}],
	  "posts": [
	    {"key": "p1", "author": "bob", "body": "lantern festival tonight", "created_at": %[2]q},
	    {"key": "p2", "author": "bob", "body": "lantern festival tonight", "created_at": %[3]q}
	  ],
	  "comments": [
	    {"key": "c1", "post": "p1", "author": "alice", "body": "on my way", "created_at": %[4]q},
	    {"key": "c2", "post": "p1", "author": "carol", "body": "on my way", "created_at": %[5]q}
	  ],
	  "listings": [
	    {"seller": "carol", "category": "sports", "title": "Lantern, brass", "description": "A lantern.", "price_minor": 1000,
	     "currency": "EUR", "condition": "good", "city": "Lyon", "country": "FR", "status": "active", "created_at": %[2]q},
	    {"seller": "carol", "category": "sports", "title": "Lantern, brass", "description": "A lantern.", "price_minor": 1000,
	     "currency": "EUR", "condition": "good", "city": "Lyon", "country": "FR", "status": "active", "created_at": %[3]q}
	  ],
	  "jobs": [
	    {"title": "Lantern maker", "company": {"name": "Lights"}, "workplace": "on_site", "employment_type": "full_time",
	     "description": "Make lanterns.", "posted_at": %[2]q},
	    {"title": "Lantern maker", "company": {"name": "Lights"}, "workplace": "on_site", "employment_type": "full_time",
	     "description": "Make lanterns.", "posted_at": %[3]q}
	  ]
	}`, at(-100, 0), at(0, 900), at(0, 100), at(5, 900), at(5, 100))
	fx, err := seed.Parse([]byte(fixture))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Import(ctx, env.DB, fx); err != nil {
		t.Fatal(err)
	}
	id := func(q string) int64 {
		var v int64
		if err := env.DB.GetContext(ctx, &v, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeRead)
	p1, p2 := id(`SELECT min(id) FROM posts`), id(`SELECT max(id) FROM posts`)
	c1, c2 := id(`SELECT min(id) FROM comments`), id(`SELECT max(id) FROM comments`)
	n1, n2 := id(`SELECT min(id) FROM notifications WHERE comment_id IS NOT NULL`), id(`SELECT max(id) FROM notifications WHERE comment_id IS NOT NULL`)
	followed := id(`SELECT id FROM notifications WHERE type = 'follow'`) // earlier: alice follows bob
	l1, l2 := id(`SELECT min(id) FROM listings`), id(`SELECT max(id) FROM listings`)
	j1, j2 := id(`SELECT min(id) FROM jobs`), id(`SELECT max(id) FROM jobs`)
	m1, m2 := id(`SELECT id FROM members WHERE handle = 'lanterna'`), id(`SELECT id FROM members WHERE handle = 'lanternb'`)

	// Blocks and mutes take the server's time: alice blocks (mutes) the
	// member with the higher id first, both within one second.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	for _, path := range []string{"/block", "/mute"} {
		for _, h := range []string{"lanternb", "lanterna"} {
			if resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/" + h + path, Token: alice}); resp.Status != 200 {
				t.Fatalf("POST %s%s: %d %s", h, path, resp.Status, resp.Body)
			}
		}
	}

	rows := []struct {
		name  string
		path  string
		token string
		items string // where the items are: "data", or "data.<kind>" for search
		time  string // the field of the list's time; "" when the list shows none
		want  []int64
	}{
		{"feed", "/api/v1/feed", alice, "data", "created_at", []int64{p2, p1}},
		{"discover", "/api/v1/feed?tab=discover", alice, "data", "created_at", []int64{p2, p1}},
		{"member's posts", "/api/v1/users/bob/posts", alice, "data", "created_at", []int64{p2, p1}},
		{"comments (oldest first)", fmt.Sprintf("/api/v1/posts/%d/comments", p1), alice, "data", "created_at", []int64{c1, c2}},
		{"notifications", "/api/v1/notifications", bob, "data", "created_at", []int64{n2, n1, followed}},
		{"market", "/api/v1/market", alice, "data", "created_at", []int64{l2, l1}},
		{"jobs", "/api/v1/jobs", alice, "data", "posted_at", []int64{j2, j1}},
		{"search posts", "/api/v1/search?type=posts&q=lantern", alice, "data.posts", "created_at", []int64{p2, p1}},
		{"search listings", "/api/v1/search?type=listings&q=lantern", alice, "data.listings", "created_at", []int64{l2, l1}},
		{"search jobs", "/api/v1/search?type=jobs&q=lantern", alice, "data.jobs", "posted_at", []int64{j2, j1}},
		{"search people", "/api/v1/search?type=people&q=keeper", bob, "data.people", "created_at", []int64{m2, m1}},
		{"blocks", "/api/v1/me/blocks", alice, "data", "", []int64{m2, m1}},
		{"mutes", "/api/v1/me/mutes", alice, "data", "", []int64{m2, m1}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "GET", Path: r.path, Token: r.token})
			if resp.Status != 200 {
				t.Fatalf("GET %s: %d %s", r.path, resp.Status, resp.Body)
			}
			ids, times := listed(t, resp.Body, r.items, r.time)
			if !slices.Equal(ids, r.want) {
				t.Errorf("GET %s: ids %v, want %v (one second, then id)", r.path, ids, r.want)
			}
			if r.time != "" && (len(times) < 2 || times[0] != times[1]) {
				t.Errorf("GET %s: shown times %v, want the first two equal", r.path, times)
			}
			// Page by page: the cursor after the first of the tie goes on
			// with the second.
			sep := "?"
			if strings.Contains(r.path, "?") {
				sep = "&"
			}
			var paged []int64
			for _, page := range env.Walk(t, r.token, r.path+sep+"per_page=1", 10) {
				ids, _ := listed(t, page, r.items, r.time)
				paged = append(paged, ids...)
			}
			if !slices.Equal(paged, r.want) {
				t.Errorf("GET %s page by page: ids %v, want %v", r.path, paged, r.want)
			}
		})
	}

	// A cursor issued while times had their fractions names its item at
	// the time it had then (p2 at .100): the next page goes on after p2
	// where p2 is now, with p1, and repeats nothing.
	t.Run("cursor from before whole seconds", func(t *testing.T) {
		first := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=1", Token: alice})
		var page struct {
			Meta struct {
				NextCursor string `json:"next_cursor"`
			} `json:"meta"`
		}
		first.JSON(t, &page)
		b, err := base64.RawURLEncoding.DecodeString(page.Meta.NextCursor)
		if err != nil {
			t.Fatal(err)
		}
		var w map[string]any
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatal(err)
		}
		w["t"] = w["t"].(float64) + 100000 // microseconds: p2's time before 000028
		b, _ = json.Marshal(w)
		old := base64.RawURLEncoding.EncodeToString(b)
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/feed?per_page=1&cursor=" + url.QueryEscape(old), Token: alice})
		if resp.Status != 200 {
			t.Fatalf("old cursor: %d %s", resp.Status, resp.Body)
		}
		if ids, _ := listed(t, resp.Body, "data", "created_at"); !slices.Equal(ids, []int64{p1}) {
			t.Errorf("old cursor after p2 (%d): ids %v, want [%d]", p2, ids, p1)
		}
	})
}

// listed decodes the ids of a list body's items at path ("data" or
// "data.<kind>") and, when field is not "", the times they show in it.
func listed(t *testing.T, body []byte, path, field string) ([]int64, []string) {
	t.Helper()
	var v struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	raw := v.Data
	if kind, ok := strings.CutPrefix(path, "data."); ok {
		var kinds map[string]json.RawMessage
		if err := json.Unmarshal(raw, &kinds); err != nil {
			t.Fatal(err)
		}
		raw = kinds[kind]
	}
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var times []string
	for _, it := range items {
		ids = append(ids, int64(it["id"].(float64)))
		if field != "" {
			times = append(times, fmt.Sprint(it[field]))
		}
	}
	return ids, times
}
