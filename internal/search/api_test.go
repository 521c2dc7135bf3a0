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
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/relations"
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
// text or by tag, on the mixed page or paging posts only. Between members a
// block separates (either way), search answers as if the other member and
// their posts did not exist; a muted member's posts are left out (a search
// is a stream) but the member is found; a suspended member and their posts
// are found by no one. Each search is asked twice: the second is answered
// from the matches kept for every caller, and answers the same.
func TestSearchVisibility(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob", "carol", "dave", "erin", "frank", "gus")
	w.follow(t, "bob", "alice")
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pub := w.post(t, "alice", "public", "zebra canarypublic #opentag", t0)
	fol := w.post(t, "alice", "followers", "zebra canaryfollowers #secrettag", t0.Add(time.Minute))
	prv := w.post(t, "alice", "private", "zebra canaryprivate #privatetag", t0.Add(2*time.Minute))
	// carol's own followers-only post: visible to her, not to bob.
	own := w.post(t, "carol", "followers", "zebra canarycarol", t0.Add(3*time.Minute))
	// carol blocks dave, erin blocks carol, carol mutes frank, gus is
	// suspended; each wrote a public post, and so did carol.
	yak := map[string]int64{}
	for i, h := range []string{"dave", "erin", "frank", "gus", "carol"} {
		yak[h] = w.post(t, h, "public", "yak "+h+"yakcanary #yaktag", t0.Add(time.Duration(4+i)*time.Minute))
	}
	w.relate(t, "carol", "dave", relations.Block, true)
	w.relate(t, "erin", "carol", relations.Block, true)
	w.relate(t, "carol", "frank", relations.Mute, true)
	if _, err := members.NewStore(w.env.DB).Suspend(context.Background(), "gus", "Spam."); err != nil {
		t.Fatal(err)
	}
	ids := func(v ...int64) []int64 { return append([]int64{}, v...) }
	yaks := func(hs ...string) []int64 {
		out := []int64{}
		for _, h := range hs {
			out = append(out, yak[h])
		}
		return out
	}
	tests := []struct {
		viewer, q string
		want      []int64  // newest first: equal ranks
		people    []string // handles, best first
	}{
		{viewer: "alice", q: "zebra", want: ids(prv, fol, pub)},
		{viewer: "bob", q: "zebra", want: ids(fol, pub)},
		{viewer: "carol", q: "zebra", want: ids(own, pub)},
		{viewer: "alice", q: "canaryfollowers", want: ids(fol)},
		{viewer: "bob", q: "canaryfollowers", want: ids(fol)},
		{viewer: "carol", q: "canaryfollowers", want: ids()},
		{viewer: "alice", q: "canaryprivate", want: ids(prv)},
		{viewer: "bob", q: "canaryprivate", want: ids()},
		{viewer: "carol", q: "canaryprivate", want: ids()},
		{viewer: "bob", q: "canarycarol", want: ids()},
		{viewer: "carol", q: "canarycarol", want: ids(own)},
		{viewer: "alice", q: "#secrettag", want: ids(fol)},
		{viewer: "bob", q: "#secrettag", want: ids(fol)},
		{viewer: "carol", q: "#secrettag", want: ids()},
		{viewer: "alice", q: "#privatetag", want: ids(prv)},
		{viewer: "bob", q: "#privatetag", want: ids()},
		{viewer: "carol", q: "#privatetag", want: ids()},
		{viewer: "carol", q: "canaryprivate OR canaryfollowers OR canarypublic", want: ids(pub)},
		// Blocks, mutes and suspension, by words (a walk), by tag, by a
		// text no walk serves (every post without "zebra": the yak posts)
		// and by "or".
		{viewer: "carol", q: "yak", want: yaks("carol")},
		{viewer: "bob", q: "yak", want: yaks("carol", "frank", "erin", "dave")},
		{viewer: "dave", q: "yak", want: yaks("frank", "erin", "dave")},
		{viewer: "erin", q: "yak", want: yaks("frank", "erin", "dave")},
		{viewer: "frank", q: "yak", want: yaks("carol", "frank", "erin", "dave")},
		{viewer: "carol", q: "#yaktag", want: yaks("carol")},
		{viewer: "dave", q: "#yaktag", want: yaks("frank", "erin", "dave")},
		{viewer: "bob", q: "#yaktag", want: yaks("carol", "frank", "erin", "dave")},
		{viewer: "carol", q: "-zebra", want: yaks("carol")},
		{viewer: "erin", q: "-zebra", want: yaks("frank", "erin", "dave")},
		{viewer: "bob", q: "-zebra", want: yaks("carol", "frank", "erin", "dave")},
		{viewer: "carol", q: "daveyakcanary or erinyakcanary or frankyakcanary or gusyakcanary or carolyakcanary", want: yaks("carol")},
		{viewer: "carol", q: "frankyakcanary", want: ids()},
		{viewer: "bob", q: "gusyakcanary", want: ids()},
		// People: a block hides both ways, a mute does not, a suspension
		// hides from everyone.
		{viewer: "carol", q: "dave", want: ids()},
		{viewer: "carol", q: "erin", want: ids()},
		{viewer: "carol", q: "frank", want: ids(), people: []string{"frank"}},
		{viewer: "carol", q: "gus", want: ids()},
		{viewer: "dave", q: "carol", want: ids()},
		{viewer: "erin", q: "carol", want: ids()},
		{viewer: "frank", q: "carol", want: ids(), people: []string{"carol"}},
		{viewer: "bob", q: "dave", want: ids(), people: []string{"dave"}},
		{viewer: "bob", q: "erin", want: ids(), people: []string{"erin"}},
		{viewer: "bob", q: "gus", want: ids()},
	}
	for _, tt := range tests {
		t.Run(tt.viewer+" "+tt.q, func(t *testing.T) {
			q := url.Values{"q": {tt.q}}.Encode()
			all := w.checkSearch(t, tt.viewer, q, tt.want, tt.people)
			walked, totals := w.walk(t, tt.viewer, q+"&type=posts&per_page=1")
			if diff := cmp.Diff(tt.want, append([]int64{}, walked...)); diff != "" {
				t.Errorf("posts walked one by one (-want +got):\n%s", diff)
			}
			if totals.Posts != len(tt.want) {
				t.Errorf("type=posts: totals.posts = %d, want %d", totals.Posts, len(tt.want))
			}
			people := []int64{}
			for _, h := range tt.people {
				people = append(people, w.ids[h])
			}
			walked, totals = w.walk(t, tt.viewer, q+"&type=people&per_page=1")
			if diff := cmp.Diff(people, append([]int64{}, walked...)); diff != "" {
				t.Errorf("people walked one by one (-want +got):\n%s", diff)
			}
			if totals.People != len(people) {
				t.Errorf("type=people: totals.people = %d, want %d", totals.People, len(people))
			}
			// The canary words of the posts the viewer may not see never
			// appear in the results (meta echoes q).
			body, err := json.Marshal(all.Data)
			if err != nil {
				t.Fatal(err)
			}
			canaries := map[int64]string{fol: "canaryfollowers", prv: "canaryprivate", own: "canarycarol"}
			for h, id := range yak {
				canaries[id] = h + "yakcanary"
			}
			for id, word := range canaries {
				if !contains(tt.want, id) && bytes.Contains(body, []byte(word)) {
					t.Errorf("the answer to %s shows %q:\n%s", tt.viewer, word, body)
				}
			}
		})
	}

	// Changes after searches kept their matches: from the next search on,
	// a mute and a block (placed by the viewer or on the viewer) hide posts
	// and members, their lifting shows them again, and a suspension hides
	// posts and never shows the member (the total of people follows within
	// the ttl, as the contract says of every change of matches).
	check := func(step, viewer, q string, want []int64, people []string) {
		t.Helper()
		t.Run(step+": "+viewer+" "+q, func(t *testing.T) {
			w.checkSearch(t, viewer, url.Values{"q": {q}}.Encode(), want, people)
		})
	}
	check("before", "bob", "yak", yaks("carol", "frank", "erin", "dave"), nil)
	check("before", "alice", "yak", yaks("carol", "frank", "erin", "dave"), nil)
	check("before", "alice", "#yaktag", yaks("carol", "frank", "erin", "dave"), nil)
	w.relate(t, "bob", "frank", relations.Mute, true)
	w.relate(t, "bob", "dave", relations.Block, true)
	w.relate(t, "erin", "bob", relations.Block, true)
	check("muted, blocked, blocked by", "bob", "yak", yaks("carol"), nil)
	check("muted, blocked, blocked by", "bob", "#yaktag", yaks("carol"), nil)
	check("muted", "bob", "frank", ids(), []string{"frank"})
	check("blocked", "bob", "dave", ids(), nil)
	check("blocked by", "bob", "erin", ids(), nil)
	check("others unchanged", "alice", "yak", yaks("carol", "frank", "erin", "dave"), nil)
	w.relate(t, "bob", "frank", relations.Mute, false)
	w.relate(t, "bob", "dave", relations.Block, false)
	w.relate(t, "erin", "bob", relations.Block, false)
	check("lifted", "bob", "yak", yaks("carol", "frank", "erin", "dave"), nil)
	check("lifted", "bob", "dave", ids(), []string{"dave"})
	check("lifted", "bob", "erin", ids(), []string{"erin"})
	ms := members.NewStore(w.env.DB)
	if _, err := ms.Suspend(context.Background(), "erin", "Spam."); err != nil {
		t.Fatal(err)
	}
	check("suspended", "alice", "yak", yaks("carol", "frank", "dave"), nil)
	check("suspended", "alice", "#yaktag", yaks("carol", "frank", "dave"), nil)
	t.Run("suspended: bob erin", func(t *testing.T) {
		r, _ := w.search(t, "bob", "q=erin")
		if len(r.Data.People) != 0 {
			t.Errorf("people = %+v, want none", r.Data.People)
		}
	})
	if _, err := ms.Unsuspend(context.Background(), "erin", "Lifted."); err != nil {
		t.Fatal(err)
	}
	check("unsuspended", "alice", "yak", yaks("carol", "frank", "erin", "dave"), nil)
	check("unsuspended", "bob", "erin", ids(), []string{"erin"})
}

// relate places (on) or lifts a block or mute by member on other.
func (w *world) relate(t *testing.T, member, other string, kind relations.Kind, on bool) {
	t.Helper()
	if _, err := relations.NewStore(w.env.DB).Set(context.Background(), w.ids[member], other, kind, on); err != nil {
		t.Fatal(err)
	}
}

// checkSearch searches query (without type) as viewer twice, the second
// answered from the kept matches, and fails t unless both answers show the
// posts want and the people (handles) and count them, and are the same.
func (w *world) checkSearch(t *testing.T, viewer, query string, want []int64, people []string) gen.SearchResponse {
	t.Helper()
	first, _ := w.search(t, viewer, query)
	again, _ := w.search(t, viewer, query)
	for i, r := range []gen.SearchResponse{first, again} {
		if diff := cmp.Diff(want, postIDs(r)); diff != "" {
			t.Errorf("search %d: posts without type (-want +got):\n%s", i+1, diff)
		}
		if r.Meta.Totals.Posts != len(want) {
			t.Errorf("search %d: totals.posts = %d, want %d", i+1, r.Meta.Totals.Posts, len(want))
		}
		handles := []string{}
		for _, p := range r.Data.People {
			handles = append(handles, p.Handle)
		}
		if diff := cmp.Diff(append([]string{}, people...), handles); diff != "" {
			t.Errorf("search %d: people (-want +got):\n%s", i+1, diff)
		}
		if r.Meta.Totals.People != len(people) {
			t.Errorf("search %d: totals.people = %d, want %d", i+1, r.Meta.Totals.People, len(people))
		}
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the second search answers otherwise (-first +second):\n%s", diff)
	}
	return first
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
