package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestOrderOfChecks holds every kind of operation that names a resource to
// the contract's order (openapi.yaml and docs/design.md, "Order of
// checks"): the request's form (400/413/415) answers before the lookup, so
// the same on an unknown resource as on a known one; the lookup (404)
// answers before the request's values (400/422). Every path names a
// resource that does not exist; each response is validated against the
// spec by Do.
func TestOrderOfChecks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	plain := http.Header{"Content-Type": {"text/plain"}}
	large := `{"body":"` + strings.Repeat("a", 70<<10) + `"}` // over the server's 64 KiB (apitest)

	type row struct {
		name   string
		method string
		path   string
		body   string
		header http.Header
		status int
		code   string
	}
	// withBody are the rows of a POST with a JSON body to a resource the
	// path names: react, comment, message.
	withBody := func(path, valid string) []row {
		return []row{
			{"wrong media type", "POST", path, valid, plain, 415, "unsupported_media_type"},
			{"too large", "POST", path, large, nil, 413, "payload_too_large"},
			{"unknown query parameter", "POST", path + "?x=1", valid, nil, 400, "invalid_parameter"},
			{"malformed Idempotency-Key", "POST", path, valid, http.Header{"Idempotency-Key": {"a b"}}, 400, "invalid_parameter"},
			{"malformed JSON", "POST", path, `{"body":`, nil, 404, "not_found"},
			{"member named twice", "POST", path, `{"body":"a","body":"b"}`, nil, 404, "not_found"},
			{"schema violation", "POST", path, `{}`, nil, 404, "not_found"},
			{"well-formed", "POST", path, valid, nil, 404, "not_found"},
		}
	}
	// bodiless are the rows of an operation without a body (a GET of one
	// resource, a POST or DELETE of a relation or a post).
	bodiless := func(method, path string) []row {
		return []row{
			{"unknown query parameter", method, path + "?x=1", "", nil, 400, "invalid_parameter"},
			{"empty query parameter", method, path + "?x=", "", nil, 400, "invalid_parameter"},
			{"well-formed", method, path, "", nil, 404, "not_found"},
		}
	}
	// list are the rows of a GET of a list under a resource.
	list := func(path string) []row {
		return append(bodiless("GET", path),
			row{"per_page out of range", "GET", path + "?per_page=0", "", nil, 404, "not_found"},
			row{"malformed cursor", "GET", path + "?cursor=%21%21", "", nil, 404, "not_found"},
		)
	}
	kinds := map[string][]row{
		"react":           withBody("/api/v1/posts/999999/react", `{"type":"like"}`),
		"comment":         withBody("/api/v1/posts/999999/comments", `{"body":"hi"}`),
		"message":         withBody("/api/v1/conversations/999999/messages", `{"body":"hi"}`),
		"get post":        bodiless("GET", "/api/v1/posts/999999"),
		"get member":      bodiless("GET", "/api/v1/users/nobody"),
		"delete post":     bodiless("DELETE", "/api/v1/posts/999999"),
		"unreact":         bodiless("DELETE", "/api/v1/posts/999999/react"),
		"follow":          bodiless("POST", "/api/v1/users/nobody/follow"),
		"unblock":         bodiless("DELETE", "/api/v1/users/nobody/block"),
		"mark read":       bodiless("POST", "/api/v1/conversations/999999/read"),
		"list comments":   list("/api/v1/posts/999999/comments"),
		"list posts":      list("/api/v1/users/nobody/posts"),
		"list messages":   list("/api/v1/conversations/999999/messages"),
		"malformed id":    {{"wrong media type", "POST", "/api/v1/posts/abc/react", `{"type":"like"}`, plain, 415, "unsupported_media_type"}, {"well-formed", "POST", "/api/v1/posts/abc/react", `{"type":"like"}`, nil, 400, "invalid_parameter"}},
		"malformed query": {{"unknown and invalid parameter", "GET", "/api/v1/posts/999999/comments?per_page=0&x=1", "", nil, 400, "invalid_parameter"}},
	}
	for kind, rows := range kinds {
		for _, r := range rows {
			t.Run(kind+"/"+r.name, func(t *testing.T) {
				resp := env.Do(t, apitest.Request{Method: r.method, Path: r.path, Token: tok, Body: r.body, Header: r.header})
				if resp.Status != r.status {
					t.Fatalf("%s %s: %d %s, want %d %s", r.method, r.path, resp.Status, resp.Body, r.status, r.code)
				}
				if p := resp.Problem(t); p.Code != r.code {
					t.Errorf("%s %s: code %s, want %s", r.method, r.path, p.Code, r.code)
				}
			})
		}
	}
}
