package posts_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestViewsCountOncePerViewer: a view counts once per viewer and post
// within views.Window, only with a 200 body: repeated plain GETs, 304s,
// HEADs and the author's reads add nothing more. Each body shows the count with its
// own view in it.
func TestViewsCountOncePerViewer(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	for _, h := range []string{"alice", "bob", "carol", "dave"} {
		env.Member(t, h)
	}
	alice := env.Token(t, "alice", auth.ScopeRead)
	bob, carol, dave := env.Token(t, "bob", auth.ScopeRead), env.Token(t, "carol", auth.ScopeRead), env.Token(t, "dave", auth.ScopeRead)
	p := post(t, env, env.Token(t, "alice", auth.ScopeWrite), `{"body":"look"}`)
	path := fmt.Sprintf("/api/v1/posts/%d", p.ID)
	get := func(tok, inm string) *apitest.Response {
		t.Helper()
		req := apitest.Request{Method: "GET", Path: path, Token: tok}
		if inm != "" {
			req.Header = http.Header{"If-None-Match": {inm}}
		}
		return env.Do(t, req)
	}
	views := func(resp *apitest.Response) int {
		t.Helper()
		if resp.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
		}
		var r gen.PostResponse
		resp.JSON(t, &r)
		return int(r.Data.Counts.Views)
	}
	// The author's reads count nothing.
	for range 5 {
		if v := views(get(alice, "")); v != 0 {
			t.Fatalf("author's read: views = %d, want 0", v)
		}
	}
	// A 304 counts nothing, even for a viewer who has not viewed the post.
	for range 100 {
		if resp := get(dave, "*"); resp.Status != http.StatusNotModified {
			t.Fatalf("dave's conditional GET: %d, want 304", resp.Status)
		}
	}
	// Nor does a HEAD, which sends no body.
	if resp := env.Do(t, apitest.Request{Method: "HEAD", Path: path, Token: dave}); resp.Status != http.StatusOK {
		t.Fatalf("dave's HEAD: %d, want 200", resp.Status)
	}
	if v := views(get(alice, "")); v != 0 {
		t.Fatalf("after 100 × 304 and a HEAD for a viewer who never got the post: views = %d, want 0", v)
	}
	// Bob's first read counts and shows his view; 100 conditional GETs
	// after it add nothing.
	first := get(bob, "")
	if v := views(first); v != 1 {
		t.Fatalf("bob's first read: views = %d, want 1", v)
	}
	tag := first.Header.Get("ETag")
	for range 100 {
		if resp := get(bob, tag); resp.Status != http.StatusNotModified {
			t.Fatalf("bob's conditional GET: %d, want 304", resp.Status)
		}
	}
	// Carol's 100 plain reads count one view, each showing it.
	for i := range 100 {
		if v := views(get(carol, "")); v != 2 {
			t.Fatalf("carol's read %d: views = %d, want 2", i+1, v)
		}
	}
	if v := views(get(bob, "")); v != 2 {
		t.Errorf("bob's read after: views = %d, want 2", v)
	}
	if v := views(get(alice, "")); v != 2 {
		t.Errorf("author sees views = %d, want 2 (bob and carol, once each)", v)
	}
}
