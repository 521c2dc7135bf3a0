package search_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/httpapi"
)

// boundsWorld is a world whose server's search bounds are serve's defaults
// as bound changes them.
func boundsWorld(t *testing.T, bound func(*httpapi.SearchBounds), handles ...string) *world {
	t.Helper()
	// Matches are kept an hour, so that a test's repeated text finds them
	// kept however slowly the machine runs it.
	w := &world{env: apitest.NewWith(t, apitest.Options{Configure: func(c *httpapi.Config) {
		bound(&c.SearchBounds)
		c.SearchCache = time.Hour
	}}), ids: map[string]int64{}, toks: map[string]string{}}
	for _, h := range handles {
		w.ids[h] = w.env.Member(t, h)
		w.toks[h] = w.env.Token(t, h, auth.ScopeRead)
	}
	w.post(t, handles[0], "public", "coffee and tea", time.Time{})
	return w
}

// hold locks table until release is called (or the test ends), so that
// every search that reads it waits there, holding its place.
func hold(t *testing.T, w *world, table string) (release func()) {
	t.Helper()
	tx, err := w.env.DB.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.Exec(`LOCK TABLE ` + table + ` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	return func() { _ = tx.Rollback() }
}

// waitBlocked waits until n statements of the test's database wait for a
// lock (the searches hold stopped). Each search must have a text of its
// own: searches of one text share one statement.
func waitBlocked(t *testing.T, w *world, n int) {
	t.Helper()
	for start := time.Now(); ; {
		if time.Since(start) > time.Minute {
			t.Fatalf("%d statements never waited for the lock", n)
		}
		var waiting int
		if err := w.env.DB.Get(&waiting, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			t.Fatal(err)
		}
		if waiting == n {
			return
		}
		if waiting > n {
			t.Fatalf("%d statements wait for a lock, want %d", waiting, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pending is a search sent in the background.
type pending struct {
	req  apitest.Request
	resp chan *apitest.Response
}

func (w *world) searchLater(viewer, q string) pending {
	p := pending{req: apitest.Request{Method: "GET", Path: "/api/v1/search?q=" + url.QueryEscape(q), Token: w.toks[viewer]},
		resp: make(chan *apitest.Response, 1)}
	go func() { p.resp <- w.env.Send(p.req) }()
	return p
}

// wait returns the background search's response, checked against the spec.
func (p pending) wait(t *testing.T) *apitest.Response {
	t.Helper()
	r := <-p.resp
	if err := apitest.Check(p.req, r); err != nil {
		t.Fatalf("response violates openapi.yaml: %v\n%s", err, r.Body)
	}
	return r
}

// refusedSearch asserts a search's 429 for a bound of scope and size limit.
func refusedSearch(t *testing.T, r *apitest.Response, scope string, limit int) {
	t.Helper()
	if r.Status != 429 || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("status %d, Retry-After %q, want 429 and 1: %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	var p struct {
		Code             string `json:"code"`
		Policy           string `json:"policy"`
		RetryAfter       int    `json:"retry_after"`
		ConcurrencyScope string `json:"concurrency_scope"`
		ConcurrencyLimit int    `json:"concurrency_limit"`
	}
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Code != "rate_limited" || p.Policy != "read" || p.RetryAfter != 1 || p.ConcurrencyScope != scope || p.ConcurrencyLimit != limit {
		t.Fatalf("problem %+v, want rate_limited, read, 1, %s, %d", p, scope, limit)
	}
	if r.Header.Get("RateLimit-Policy") == "" {
		t.Fatal("no RateLimit-Policy on the 429")
	}
}

// A member's third search while two run answers 429 at once; another
// member's search runs; when one of the two ends, the member searches again.
func TestSearchBoundPerMember(t *testing.T) {
	w := boundsWorld(t, func(b *httpapi.SearchBounds) { b.PerMember, b.Active, b.Timeout = 2, 10, time.Minute }, "alice", "bob")
	release := hold(t, w, "posts")
	a1, a2 := w.searchLater("alice", "coffee"), w.searchLater("alice", "tea")
	waitBlocked(t, w, 2)
	refusedSearch(t, w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=morning", Token: w.toks["alice"]}), "member", 2)
	b := w.searchLater("bob", "garden")
	waitBlocked(t, w, 3) // bob's search runs: it waits at the posts too
	release()
	for _, p := range []pending{a1, a2, b} {
		if r := p.wait(t); r.Status != 200 {
			t.Fatalf("a held search: %d %s", r.Status, r.Body)
		}
	}
	if r := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=morning", Token: w.toks["alice"]}); r.Status != 200 {
		t.Fatalf("after the held searches: %d %s", r.Status, r.Body)
	}
}

// When the searches running reach the server's bound, any member's next
// search answers 429 (scope service), and searches run again once the
// running ones end.
func TestSearchBoundActive(t *testing.T) {
	w := boundsWorld(t, func(b *httpapi.SearchBounds) { b.PerMember, b.Active, b.Timeout = 2, 3, time.Minute }, "alice", "bob", "carol")
	release := hold(t, w, "posts")
	held := []pending{w.searchLater("alice", "coffee"), w.searchLater("alice", "tea"), w.searchLater("bob", "garden")}
	waitBlocked(t, w, 3)
	refusedSearch(t, w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=morning", Token: w.toks["carol"]}), "service", 3)
	release()
	for _, p := range held {
		if r := p.wait(t); r.Status != 200 {
			t.Fatalf("a held search: %d %s", r.Status, r.Body)
		}
	}
	if r := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=morning", Token: w.toks["carol"]}); r.Status != 200 {
		t.Fatalf("after the held searches: %d %s", r.Status, r.Body)
	}
}

// The default bound of all members' searches is half the places of the
// request gate (apitest's 8, below its pool of 16): 4.
func TestSearchBoundActiveDefault(t *testing.T) {
	w := boundsWorld(t, func(b *httpapi.SearchBounds) { b.Timeout = time.Minute }, "alice", "bob", "carol")
	release := hold(t, w, "posts")
	var held []pending
	for _, h := range []string{"alice", "bob"} {
		held = append(held, w.searchLater(h, h+" coffee"), w.searchLater(h, h+" tea"))
	}
	waitBlocked(t, w, 4)
	refusedSearch(t, w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=morning", Token: w.toks["carol"]}), "service", 4)
	release()
	for _, p := range held {
		p.wait(t)
	}
}

// A search that runs past its own timeout is stopped and answers 503
// unavailable with Retry-After and a detail that says so, not a 500.
func TestSearchTimeout(t *testing.T) {
	w := boundsWorld(t, func(b *httpapi.SearchBounds) { b.Timeout = 50 * time.Millisecond }, "alice")
	hold(t, w, "posts") // held until the test ends: the search can only time out
	r := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=coffee", Token: w.toks["alice"]})
	if r.Status != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q: %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	if p := r.Problem(t); p.Code != "unavailable" || !strings.Contains(p.Detail, "took longer than the 50ms a search may run") {
		t.Fatalf("problem %+v", p)
	}
}

// A search whose matches are kept takes no place: it runs while every place
// is taken, where a text not searched lately answers 429.
func TestSearchBoundKeptMatchesFree(t *testing.T) {
	w := boundsWorld(t, func(b *httpapi.SearchBounds) { b.PerMember, b.Active, b.Timeout = 1, 1, time.Minute }, "alice", "bob")
	const kept = "/api/v1/search?q=alice&type=people"
	if r := w.env.Do(t, apitest.Request{Method: "GET", Path: kept, Token: w.toks["alice"]}); r.Status != 200 {
		t.Fatalf("first search: %d %s", r.Status, r.Body)
	}
	// The search of people reads no listings: only bob's search, which
	// searches them, waits.
	release := hold(t, w, "listings")
	held := w.searchLater("bob", "garden")
	waitBlocked(t, w, 1)
	if r := w.env.Do(t, apitest.Request{Method: "GET", Path: kept, Token: w.toks["alice"]}); r.Status != 200 {
		t.Fatalf("the same search again, its matches kept: %d %s", r.Status, r.Body)
	}
	refusedSearch(t, w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/search?q=zebra&type=people", Token: w.toks["alice"]}), "service", 1)
	release()
	held.wait(t)
}
