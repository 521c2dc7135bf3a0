package httpapi_test

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestIndexDescribesContract: the index names the contract's version, the
// SHA-256 of the exact bytes served at openapi_url, and the reference page.
func TestIndexDescribesContract(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	var idx gen.IndexResponse
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/", Token: tok}).JSON(t, &idx)

	served := env.Send(apitest.Request{Method: "GET", Path: "/api/v1/openapi.yaml"})
	if want := fmt.Sprintf("%x", sha256.Sum256(served.Body)); idx.Data.OpenapiSha256 != want {
		t.Errorf("openapi_sha256 = %q, want %q (SHA-256 of the served YAML)", idx.Data.OpenapiSha256, want)
	}
	if want := apitest.PublicURL + "/api/v1/openapi.yaml"; idx.Data.OpenapiURL != want {
		t.Errorf("openapi_url = %q, want %q", idx.Data.OpenapiURL, want)
	}
	if want := apitest.PublicURL + "/docs"; idx.Data.DocumentationURL != want {
		t.Errorf("documentation_url = %q, want %q", idx.Data.DocumentationURL, want)
	}
}

// TestServiceDescLink: every API response, errors included, links the
// contract with rel="service-desc"; on a list page the next link comes first.
func TestServiceDescLink(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	for range 3 {
		env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":"hello","visibility":"public"}`})
	}
	want := "<" + apitest.PublicURL + `/api/v1/openapi.yaml>; rel="service-desc"`
	for _, req := range []apitest.Request{
		{Method: "GET", Path: "/api/v1/", Token: tok},
		{Method: "GET", Path: "/api/v1/me", Token: tok},
		{Method: "GET", Path: "/api/v1/me"},                                       // 401
		{Method: "GET", Path: "/api/v1/posts/999999", Token: tok},                 // 404
		{Method: "GET", Path: "/api/v1/feed?tab=discover&per_page=1", Token: tok}, // has a next page
		{Method: "POST", Path: "/api/v1/users/bob/follow", Token: tok},
	} {
		t.Run(req.Name(), func(t *testing.T) {
			resp := env.Do(t, req)
			links := resp.Header.Values("Link")
			if !slices.Contains(links, want) {
				t.Errorf("%s %s (%d): Link = %q, want it to contain %q", req.Method, req.Path, resp.Status, links, want)
			}
			if next := apitest.NextLink(resp.Header); next != "" && links[0] != next {
				t.Errorf("%s %s: Link = %q, want the next link first", req.Method, req.Path, links)
			}
		})
	}
}

// TestConditionalGet: strong ETags on single resources, weak on lists, not
// moved by the view counter or /me's budgets; If-None-Match answers 304
// without a body, spending read budget like any GET.
func TestConditionalGet(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour})
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeRead)
	var post gen.PostResponse
	env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: alice, Body: `{"body":"etag me","visibility":"public"}`}).JSON(t, &post)
	postPath := fmt.Sprintf("/api/v1/posts/%d", post.Data.ID)

	get := func(t *testing.T, path, tok, inm string) *apitest.Response {
		t.Helper()
		req := apitest.Request{Method: "GET", Path: path, Token: tok}
		if inm != "" {
			req.Header = http.Header{"If-None-Match": {inm}}
		}
		return env.Do(t, req)
	}
	for _, tc := range []struct {
		path string
		weak bool
	}{
		{postPath, false}, // bob's reads count views: the tag must not move
		{"/api/v1/me", false},
		{"/api/v1/", false},
		{"/api/v1/users/alice", false},
		{"/api/v1/feed?tab=discover", true},
		{"/api/v1/users/alice/posts", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			first := get(t, tc.path, bob, "")
			tag := first.Header.Get("ETag")
			if first.Status != 200 || tag == "" || strings.HasPrefix(tag, "W/") != tc.weak || !strings.HasSuffix(tag, `"`) {
				t.Errorf("GET %s: %d ETag %q, want a %s tag", tc.path, first.Status, tag, map[bool]string{true: "weak", false: "strong"}[tc.weak])
				return
			}
			second := get(t, tc.path, bob, "")
			if second.Header.Get("ETag") != tag {
				t.Errorf("GET %s twice: ETag %q then %q", tc.path, tag, second.Header.Get("ETag"))
			}
			before := second.Header.Get("X-RateLimit-Remaining")
			nm := get(t, tc.path, bob, `"other", `+tag)
			if nm.Status != http.StatusNotModified || len(nm.Body) != 0 || nm.Header.Get("ETag") != tag {
				t.Errorf("GET %s If-None-Match: %d ETag %q body %q, want 304 with the tag and no body", tc.path, nm.Status, nm.Header.Get("ETag"), nm.Body)
			}
			if got := nm.Header.Get("X-RateLimit-Remaining"); remaining(t, got) != remaining(t, before)-1 {
				t.Errorf("GET %s: 304 left %s of the read budget, want one less than %s", tc.path, got, before)
			}
		})
	}

	// A change to the resource changes the tag: the old one gets a 200.
	tag := get(t, postPath, bob, "").Header.Get("ETag")
	env.Do(t, apitest.Request{Method: "POST", Path: postPath + "/comments", Token: alice, Body: `{"body":"first"}`})
	if resp := get(t, postPath, bob, tag); resp.Status != 200 || resp.Header.Get("ETag") == tag {
		t.Errorf("after a comment: %d ETag %q, want 200 with a new tag", resp.Status, resp.Header.Get("ETag"))
	}
	// A tag that does not match is a normal, charged read.
	if resp := get(t, postPath, bob, `"nope"`); resp.Status != 200 {
		t.Errorf("If-None-Match with a stale tag: %d, want 200", resp.Status)
	}
	// An error answer to a conditional GET still pays.
	resp := get(t, "/api/v1/posts/999999", bob, `"x"`)
	if resp.Status != 404 {
		t.Fatalf("missing post: %d", resp.Status)
	}
	before := remaining(t, get(t, "/api/v1/me", bob, "").Header.Get("X-RateLimit-Remaining"))
	get(t, "/api/v1/posts/999999", bob, `"x"`)
	if after := remaining(t, get(t, "/api/v1/me", bob, "").Header.Get("X-RateLimit-Remaining")); after != before-2 {
		t.Errorf("read budget %d after a conditional 404 and a read, want %d: the 404 was not charged", after, before-2)
	}
}

func remaining(t *testing.T, v string) int {
	t.Helper()
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("X-RateLimit-Remaining = %q", v)
	}
	return n
}

// TestConditionalGetWithEmptyBudget: an empty budget answers a conditional
// GET with 429; with budget left, each 304 spends one read.
func TestConditionalGetWithEmptyBudget(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour})
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	tag := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}).Header.Get("ETag")
	cond := apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok, Header: http.Header{"If-None-Match": {tag}}}
	for i := 0; ; i++ {
		resp := env.Send(apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
		if resp.Status == http.StatusTooManyRequests {
			break
		}
		if i > 200 {
			t.Fatal("never rate limited")
		}
		// With budget left, 304s keep coming, each spending a read.
		if i == 50 {
			for range 20 {
				if r := env.Do(t, cond); r.Status != http.StatusNotModified {
					t.Fatalf("conditional GET with budget left: %d", r.Status)
				}
			}
		}
	}
	if resp := env.Do(t, cond); resp.Status != http.StatusTooManyRequests {
		t.Errorf("conditional GET with an empty budget: %d, want 429", resp.Status)
	}
}

// TestCORS: no CORS headers unless origins are configured; allowed origins
// get preflight answers and the headers clients need exposed.
func TestCORS(t *testing.T) {
	t.Parallel()
	origin := "https://app.example"
	preflight := apitest.Request{Method: "OPTIONS", Path: "/api/v1/posts", Header: http.Header{
		"Origin": {origin}, "Access-Control-Request-Method": {"POST"},
		"Access-Control-Request-Headers": {"authorization, content-type, idempotency-key"}}}

	off := apitest.New(t)
	off.Member(t, "alice")
	if resp := off.Send(preflight); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS without CORS_ORIGINS: %v", resp.Header)
	}

	env := apitest.NewWith(t, apitest.Options{CORSOrigins: []string{origin}})
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	resp := env.Send(preflight)
	if resp.Status != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != origin ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "idempotency-key") {
		t.Errorf("preflight: %d %v", resp.Status, resp.Header)
	}
	other := preflight
	other.Header = http.Header{"Origin": {"https://evil.example"}, "Access-Control-Request-Method": {"POST"}}
	if resp := env.Send(other); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from an origin not allowed: Access-Control-Allow-Origin %q", resp.Header.Get("Access-Control-Allow-Origin"))
	}
	for _, req := range []apitest.Request{
		{Method: "GET", Path: "/api/v1/me", Token: tok, Header: http.Header{"Origin": {origin}}},
		{Method: "GET", Path: "/api/v1/me", Header: http.Header{"Origin": {origin}}}, // 401: readable too
	} {
		t.Run(req.Name(), func(t *testing.T) {
			resp := env.Do(t, req)
			if resp.Header.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("%d: Access-Control-Allow-Origin = %q", resp.Status, resp.Header.Get("Access-Control-Allow-Origin"))
			}
			exposed := strings.ToLower(resp.Header.Get("Access-Control-Expose-Headers"))
			for _, h := range []string{"link", "location", "ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining",
				"x-ratelimit-reset", "retry-after", "x-request-id", "etag", "idempotent-replayed", "www-authenticate", "allow"} {
				if !slices.Contains(strings.Split(strings.ReplaceAll(exposed, " ", ""), ","), h) {
					t.Errorf("%d: %s not in Access-Control-Expose-Headers %q", resp.Status, h, exposed)
				}
			}
			if vary := strings.Join(resp.Header.Values("Vary"), ","); !strings.Contains(vary, "Authorization") || !strings.Contains(vary, "Origin") {
				t.Errorf("%d: Vary = %q, want Authorization and Origin", resp.Status, vary)
			}
		})
	}
}
