package search_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/posts"
)

type world struct {
	env  *apitest.Env
	ids  map[string]int64
	toks map[string]string
}

func newWorld(t *testing.T, handles ...string) *world {
	t.Helper()
	w := &world{env: apitest.New(t), ids: map[string]int64{}, toks: map[string]string{}}
	for _, h := range handles {
		w.ids[h] = w.env.Member(t, h)
		w.toks[h] = w.env.Token(t, h, auth.ScopeRead)
	}
	return w
}

func (w *world) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := w.env.DB.Exec(q, args...); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
}

func (w *world) follow(t *testing.T, follower, followee string) {
	t.Helper()
	if _, _, err := follows.NewStore(w.env.DB).Toggle(context.Background(), w.ids[follower], followee); err != nil {
		t.Fatal(err)
	}
}

// post stores a post by author at the time at (zero: now).
func (w *world) post(t *testing.T, author, vis, body string, at time.Time) int64 {
	t.Helper()
	np := posts.NewPost{Body: body, Visibility: &vis}
	if !at.IsZero() {
		np.CreatedAt = &at
	}
	p, err := posts.NewStore(w.env.DB, nil).Create(context.Background(), w.ids[author], np)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// listing stores a listing by seller and returns its id.
func (w *world) listing(t *testing.T, seller, title, description string, priceMinor int64, currency string, at time.Time) int64 {
	t.Helper()
	var id int64
	const q = `
		INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition, city, country, created_at)
		SELECT $1, id, $2, $3, $4, $5, 'good', 'Lyon', 'FR', $6 FROM categories WHERE slug = 'books'
		RETURNING id`
	if err := w.env.DB.Get(&id, q, w.ids[seller], title, description, priceMinor, currency, at); err != nil {
		t.Fatal(err)
	}
	return id
}

// job stores a job and returns its id; closed and expired make it not open.
func (w *world) job(t *testing.T, title, description string, at time.Time, closed, expired bool) int64 {
	t.Helper()
	var closedAt, expiresAt *time.Time
	if closed {
		closedAt = &at
	}
	if expired {
		v := at.Add(time.Hour)
		expiresAt = &v
	}
	var id int64
	const q = `
		INSERT INTO jobs (title, company_name, company_logo_url, city, country, workplace, employment_type,
		                  salary_min_minor, salary_currency, salary_period, description, posted_at, closed_at, expires_at)
		VALUES ($1, 'Acme', '/media/logos/acme.png', 'Berlin', 'DE', 'hybrid', 'full_time', 6000000, 'EUR', 'year', $2, $3, $4, $5)
		RETURNING id`
	if err := w.env.DB.Get(&id, q, title, description, at, closedAt, expiresAt); err != nil {
		t.Fatal(err)
	}
	return id
}

// search runs GET /api/v1/search?<query> as viewer; the response is checked
// against the spec.
func (w *world) search(t *testing.T, viewer, query string) (gen.SearchResponse, []byte) {
	t.Helper()
	resp := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?" + query, Token: w.toks[viewer]})
	if resp.Status != 200 {
		t.Fatalf("GET /api/v1/search?%s: status %d: %s", query, resp.Status, resp.Body)
	}
	var r gen.SearchResponse
	resp.JSON(t, &r)
	return r, resp.Body
}

// walk follows next_url from the first page of one kind to the last and
// returns the ids in order, with the totals of the first page.
func (w *world) walk(t *testing.T, viewer, query string) ([]int64, gen.SearchTotals) {
	t.Helper()
	var ids []int64
	var totals *gen.SearchTotals
	for _, body := range w.env.Walk(t, w.toks[viewer], "/api/v1/search?"+query, 100) {
		var r gen.SearchResponse
		resp := apitest.Response{Body: body}
		resp.JSON(t, &r)
		if totals == nil {
			totals = &r.Meta.Totals
		}
		for _, p := range r.Data.People {
			ids = append(ids, p.ID)
		}
		for _, p := range r.Data.Posts {
			ids = append(ids, p.ID)
		}
		for _, l := range r.Data.Listings {
			ids = append(ids, l.ID)
		}
		for _, j := range r.Data.Jobs {
			ids = append(ids, j.ID)
		}
	}
	return ids, *totals
}

func postIDs(r gen.SearchResponse) []int64 {
	ids := []int64{}
	for _, p := range r.Data.Posts {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestSearchVisibility: search never returns nor counts a followers-only
// post to a non-follower, nor a private post to anyone but its author, by
// text or by tag, on the mixed page or paging posts only.
func TestSearchVisibility(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob", "carol")
	w.follow(t, "bob", "alice")
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pub := w.post(t, "alice", "public", "zebra canarypublic #opentag", t0)
	fol := w.post(t, "alice", "followers", "zebra canaryfollowers #secrettag", t0.Add(time.Minute))
	prv := w.post(t, "alice", "private", "zebra canaryprivate #privatetag", t0.Add(2*time.Minute))
	// carol's own followers-only post: visible to her, not to bob.
	own := w.post(t, "carol", "followers", "zebra canarycarol", t0.Add(3*time.Minute))
	ids := func(v ...int64) []int64 { return append([]int64{}, v...) }
	tests := []struct {
		viewer, q string
		want      []int64 // newest first: equal ranks
	}{
		{"alice", "zebra", ids(prv, fol, pub)},
		{"bob", "zebra", ids(fol, pub)},
		{"carol", "zebra", ids(own, pub)},
		{"alice", "canaryfollowers", ids(fol)},
		{"bob", "canaryfollowers", ids(fol)},
		{"carol", "canaryfollowers", ids()},
		{"alice", "canaryprivate", ids(prv)},
		{"bob", "canaryprivate", ids()},
		{"carol", "canaryprivate", ids()},
		{"bob", "canarycarol", ids()},
		{"carol", "canarycarol", ids(own)},
		{"alice", "#secrettag", ids(fol)},
		{"bob", "#secrettag", ids(fol)},
		{"carol", "#secrettag", ids()},
		{"alice", "#privatetag", ids(prv)},
		{"bob", "#privatetag", ids()},
		{"carol", "#privatetag", ids()},
		{"carol", "canaryprivate OR canaryfollowers OR canarypublic", ids(pub)},
	}
	for _, tt := range tests {
		t.Run(tt.viewer+" "+tt.q, func(t *testing.T) {
			q := url.Values{"q": {tt.q}}.Encode()
			all, _ := w.search(t, tt.viewer, q)
			if diff := cmp.Diff(tt.want, postIDs(all)); diff != "" {
				t.Errorf("posts without type (-want +got):\n%s", diff)
			}
			if all.Meta.Totals.Posts != len(tt.want) {
				t.Errorf("totals.posts = %d, want %d", all.Meta.Totals.Posts, len(tt.want))
			}
			walked, totals := w.walk(t, tt.viewer, q+"&type=posts&per_page=1")
			if diff := cmp.Diff(tt.want, append([]int64{}, walked...)); diff != "" {
				t.Errorf("posts walked one by one (-want +got):\n%s", diff)
			}
			if totals.Posts != len(tt.want) {
				t.Errorf("type=posts: totals.posts = %d, want %d", totals.Posts, len(tt.want))
			}
			// The canary words of the posts the viewer may not see never
			// appear in the results (meta echoes q).
			body, err := json.Marshal(all.Data)
			if err != nil {
				t.Fatal(err)
			}
			for id, word := range map[int64]string{fol: "canaryfollowers", prv: "canaryprivate", own: "canarycarol"} {
				if !contains(tt.want, id) && bytes.Contains(body, []byte(word)) {
					t.Errorf("the answer to %s shows %q:\n%s", tt.viewer, word, body)
				}
			}
		})
	}
}

func contains(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

// TestSearchTags: a text of hashtags matches posts carrying all those tags
// exactly (case-insensitively); a word matches the text.
func TestSearchTags(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice")
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	golang := w.post(t, "alice", "public", "I love #golang", t0)
	news := w.post(t, "alice", "public", "#golangnews daily", t0.Add(time.Minute))
	plain := w.post(t, "alice", "public", "golang without a hash", t0.Add(2*time.Minute))
	both := w.post(t, "alice", "public", "#GoLang and #rust", t0.Add(3*time.Minute))
	tests := []struct {
		q    string
		want []int64
	}{
		{"#golang", []int64{both, golang}},
		{"#GOLANG", []int64{both, golang}},
		{"#golangnews", []int64{news}},
		{"#golang #rust", []int64{both}},
		{"#gola", []int64{}},
		{"golang", []int64{both, plain, golang}},
		{"#golang daily", []int64{}}, // not only tags: full text, both words needed
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			r, _ := w.search(t, "alice", url.Values{"q": {tt.q}}.Encode())
			if diff := cmp.Diff(tt.want, postIDs(r)); diff != "" {
				t.Errorf("q=%q (-want +got):\n%s", tt.q, diff)
			}
			if r.Meta.Totals.Posts != len(tt.want) {
				t.Errorf("q=%q: totals.posts = %d, want %d", tt.q, r.Meta.Totals.Posts, len(tt.want))
			}
		})
	}
}

// TestSearchAllKinds: without type, the top few of each kind, no cursor,
// totals of everything the caller may find; suspended members, their
// listings, and closed or expired jobs are not found.
func TestSearchAllKinds(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "viewer", "otter_fan", "otterly", "zed", "gone")
	w.exec(t, `UPDATE members SET name = 'Olivia Otter' WHERE handle = 'zed'`)
	w.exec(t, `UPDATE members SET name = 'Otter Gone' WHERE handle = 'gone'`)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var ps []int64
	for i := range 7 {
		ps = append(ps, w.post(t, "zed", "public", fmt.Sprintf("otter post %d", i), t0.Add(time.Duration(i)*time.Minute)))
	}
	bike := w.listing(t, "zed", "Otter plush", "Soft toy", 1234, "KWD", t0)
	w.listing(t, "gone", "Otter lamp", "From a suspended seller", 500, "EUR", t0)
	open := w.job(t, "Otter keeper", "Feed the otters", t0, false, false)
	w.job(t, "Otter trainer", "Closed", t0.Add(-48*time.Hour), true, false)
	w.job(t, "Otter vet", "Expired", t0.Add(-48*time.Hour), false, true)
	w.exec(t, `UPDATE members SET suspended_at = now() WHERE handle = 'gone'`)

	r, _ := w.search(t, "viewer", "q=otter")
	wantTotals := gen.SearchTotals{People: 3, Posts: 7, Listings: 1, Jobs: 1}
	if diff := cmp.Diff(wantTotals, r.Meta.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if r.Meta.Type != nil || r.Meta.PerPage != 5 || r.Meta.HasMore || r.Meta.NextCursor != nil || r.Meta.NextURL != nil || r.Meta.Q != "otter" {
		t.Errorf("meta = %+v, want q otter, no type, per_page 5, no next page", r.Meta)
	}
	var handles []string
	for _, p := range r.Data.People {
		handles = append(handles, p.Handle)
	}
	// Handles that start with the text first (the one with the very word
	// first), then the name match.
	if diff := cmp.Diff([]string{"otter_fan", "otterly", "zed"}, handles); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}
	wantPosts := []int64{ps[6], ps[5], ps[4], ps[3], ps[2]}
	if diff := cmp.Diff(wantPosts, postIDs(r)); diff != "" {
		t.Errorf("posts: top 5, newest first among equal ranks (-want +got):\n%s", diff)
	}
	if len(r.Data.Listings) != 1 || r.Data.Listings[0].ID != bike {
		t.Fatalf("listings = %+v, want only %d", r.Data.Listings, bike)
	}
	l := r.Data.Listings[0]
	if l.Price != (gen.Money{AmountMinor: 1234, Amount: "1.234", Currency: "KWD"}) || l.Seller.Handle != "zed" ||
		l.URL != fmt.Sprintf("%s/market/%d", apitest.PublicURL, bike) || l.Images == nil {
		t.Errorf("listing = %+v", l)
	}
	if len(r.Data.Jobs) != 1 || r.Data.Jobs[0].ID != open {
		t.Fatalf("jobs = %+v, want only %d", r.Data.Jobs, open)
	}
	j := r.Data.Jobs[0]
	if j.Company.Logo == nil || *j.Company.Logo != apitest.PublicURL+"/media/logos/acme.png" || j.Location == nil || j.Salary == nil {
		t.Errorf("job = %+v", j)
	}

	r, _ = w.search(t, "viewer", "q=otter&per_page=2")
	if len(r.Data.People) != 2 || len(r.Data.Posts) != 2 || r.Meta.PerPage != 2 || r.Meta.Totals != wantTotals {
		t.Errorf("per_page=2: %d people, %d posts, meta %+v", len(r.Data.People), len(r.Data.Posts), r.Meta)
	}
	r, _ = w.search(t, "viewer", "q=%40OTTERLY") // "@OTTERLY"
	if len(r.Data.People) == 0 || r.Data.People[0].Handle != "otterly" {
		t.Errorf("@OTTERLY: people = %+v, want otterly first", r.Data.People)
	}
}

// TestSearchPaging walks each kind page by page: the pages join into the
// one-page answer, in rank order with ties broken newest first then by id,
// and the count of items is the total.
func TestSearchPaging(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "viewer", "walker", "walkman", "walkabout")
	w.exec(t, `UPDATE members SET name = 'Walk Er' WHERE handle = 'walker'`)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	t1, t2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	p1 := w.post(t, "walker", "public", "walkword", t0)
	p2 := w.post(t, "walker", "public", "walkword", t0) // same rank and time as p1: id breaks the tie
	p3 := w.post(t, "walker", "public", "walkword walkword", t1)
	p4 := w.post(t, "walker", "public", "walkword", t2)
	p5 := w.post(t, "walker", "public", "walkword walkword", t1)
	w.post(t, "walker", "private", "walkword walkword walkword", t2) // not for viewer
	wantPosts := []int64{p5, p3, p4, p2, p1}
	var listings, jobs []int64
	for i := range 5 {
		listings = append(listings, w.listing(t, "walker", "walkword item", "", 100, "EUR", t0.Add(time.Duration(i%2)*time.Hour)))
		jobs = append(jobs, w.job(t, "walkword job", "walkword", t0.Add(time.Duration(i%3)*time.Hour), false, false))
	}
	for _, tt := range []struct {
		kind string
		want []int64 // nil: not spelled out, only checked against the one-page answer
	}{
		{"posts", wantPosts},
		{"people", nil},
		{"listings", []int64{listings[3], listings[1], listings[4], listings[2], listings[0]}},
		{"jobs", []int64{jobs[2], jobs[4], jobs[1], jobs[3], jobs[0]}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			base := "q=walk&type=" + tt.kind
			if tt.kind != "people" {
				base = "q=walkword&type=" + tt.kind
			}
			one, totals := w.walk(t, "viewer", base+"&per_page=50")
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, one); diff != "" {
					t.Errorf("one page (-want +got):\n%s", diff)
				}
			}
			if len(one) < 3 {
				t.Fatalf("only %d results: %v", len(one), one)
			}
			for _, per := range []int{1, 2} {
				walked, _ := w.walk(t, "viewer", fmt.Sprintf("%s&per_page=%d", base, per))
				if diff := cmp.Diff(one, walked); diff != "" {
					t.Errorf("walk with per_page=%d (-want +got):\n%s", per, diff)
				}
			}
			var total int
			switch tt.kind {
			case "posts":
				total = totals.Posts
			case "people":
				total = totals.People
			case "listings":
				total = totals.Listings
			case "jobs":
				total = totals.Jobs
			}
			if total != len(one) {
				t.Errorf("total = %d, want %d", total, len(one))
			}
		})
	}
	// A page of one kind leaves the other arrays empty and says its type.
	r, _ := w.search(t, "viewer", "q=walkword&type=posts&per_page=2")
	if r.Meta.Type == nil || *r.Meta.Type != gen.Posts || len(r.Data.People)+len(r.Data.Listings)+len(r.Data.Jobs) != 0 ||
		!r.Meta.HasMore || r.Meta.NextURL == nil || !strings.Contains(*r.Meta.NextURL, "type=posts") {
		t.Errorf("type=posts page: %+v", r)
	}
}

// TestSearchErrors: the answers 400 of the spec.
func TestSearchErrors(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice")
	for i := range 3 {
		w.post(t, "alice", "public", fmt.Sprintf("kiwi %d", i), time.Time{})
	}
	r, _ := w.search(t, "alice", "q=kiwi&type=posts&per_page=1")
	if r.Meta.NextCursor == nil {
		t.Fatal("no next cursor")
	}
	cur := url.QueryEscape(*r.Meta.NextCursor)
	tests := []struct {
		name, query, code string
	}{
		{"missing q", "", "invalid_parameter"},
		{"empty q", "q=", "invalid_parameter"},
		{"blank q", "q=%20%20%09", "invalid_parameter"},
		{"oversized q", "q=" + strings.Repeat("a", 201), "invalid_parameter"},
		{"unknown type", "q=kiwi&type=cats", "invalid_parameter"},
		{"per_page 0", "q=kiwi&per_page=0", "invalid_parameter"},
		{"per_page 51", "q=kiwi&type=posts&per_page=51", "invalid_parameter"},
		{"cursor without type", "q=kiwi&cursor=" + cur, "invalid_parameter"},
		{"cursor with another q", "q=kiwis&type=posts&cursor=" + cur, "invalid_cursor"},
		{"cursor with another type", "q=kiwi&type=people&cursor=" + cur, "invalid_cursor"},
		{"malformed cursor", "q=kiwi&type=posts&cursor=bm9wZQ", "invalid_cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?" + tt.query, Token: w.toks["alice"]})
			if resp.Status != 400 {
				t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
			}
			if p := resp.Problem(t); p.Code != tt.code {
				t.Errorf("code %q, want %q: %s", p.Code, tt.code, resp.Body)
			}
		})
	}
	// The same cursor with its own query and a new page size is fine.
	resp := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=kiwi&type=posts&per_page=2&cursor=" + cur, Token: w.toks["alice"]})
	if resp.Status != 200 {
		t.Errorf("cursor with its own query: status %d: %s", resp.Status, resp.Body)
	}
	// 200 characters is the limit, not an error.
	resp = w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=" + strings.Repeat("é", 200), Token: w.toks["alice"]})
	if resp.Status != 200 {
		t.Errorf("q of 200 characters: status %d: %s", resp.Status, resp.Body)
	}
	// Unauthenticated.
	resp = w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=kiwi"})
	if resp.Status != 401 {
		t.Errorf("no token: status %d", resp.Status)
	}
}
