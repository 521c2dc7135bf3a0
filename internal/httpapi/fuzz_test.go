package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// The fuzz targets send arbitrary input through the whole stack (edge,
// validator, handler, store, PostgreSQL) and require a documented answer:
// a response that conforms to openapi.yaml, never a 5xx, and a created
// resource that reads back as it was written. Seed corpora are in
// testdata/fuzz; `make fuzz` runs each target for FUZZTIME.

// fuzzEnv is an API whose rate limits refill every millisecond, so a fuzzer
// is never throttled.
func fuzzEnv(f *testing.F) (*apitest.Env, string) {
	env := apitest.NewWith(f, apitest.Options{RateWindow: time.Millisecond})
	env.Member(f, "alice")
	env.Member(f, "bob")
	return env, env.Token(f, "alice", auth.ScopeWrite)
}

// checkFuzzed fails on a response that the spec does not document or that
// is a server error.
func checkFuzzed(t *testing.T, req apitest.Request, resp *apitest.Response) {
	t.Helper()
	if resp.Status >= 500 {
		t.Fatalf("%s %s %q: status %d: %s", req.Method, req.Path, req.Body, resp.Status, resp.Body)
	}
	if err := apitest.Check(req, resp); err != nil {
		t.Fatalf("%s %s %q: response violates openapi.yaml: %v\n%d %s", req.Method, req.Path, req.Body, err, resp.Status, resp.Body)
	}
}

func FuzzCreatePost(f *testing.F) {
	env, tok := fuzzEnv(f)
	for _, s := range []string{
		`{"body":"hello #go @bob"}`,
		`{"body":"x","visibility":"followers"}`,
		`{"body":"x","link":"https://go.dev/"}`,
		`{"body":"x","visibility":"private","visibility":"public"}`,
		`{"body":"x","VISIBILITY":"private"}`,
		`{"body":"a\u0000b"}`,
		`{"body":"` + strings.Repeat("é", 5001) + `"}`,
		`{"body":"x","link":"javascript:alert(1)"}`,
		`{"body":"x","id":1,"author":"bob"}`,
		`[`, `null`, `{}`, `{"body":1e400}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: body}
		resp := env.Send(req)
		checkFuzzed(t, req, resp)
		if resp.Status != 201 {
			return
		}
		var in struct {
			Body       string  `json:"body"`
			Visibility *string `json:"visibility"`
			Link       *string `json:"link"`
		}
		var out struct {
			Data struct {
				ID         int64   `json:"id"`
				Body       string  `json:"body"`
				Visibility string  `json:"visibility"`
				Link       *string `json:"link"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatalf("201 for a body Go cannot decode (%v): %q", err, body)
		}
		resp.JSON(t, &out)
		if out.Data.Body != in.Body || (in.Visibility != nil && *in.Visibility != out.Data.Visibility) ||
			(in.Link == nil) != (out.Data.Link == nil) ||
			// A link that is a URI is stored as given; an IRI as its URI.
			(in.Link != nil && *in.Link != *out.Data.Link && !strings.ContainsFunc(*in.Link, func(r rune) bool { return r > 0x7f })) {
			t.Fatalf("created %+v from %q", out.Data, body)
		}
		get := apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", out.Data.ID), Token: tok}
		back := env.Send(get)
		checkFuzzed(t, get, back)
		var got struct {
			Data struct {
				Body string `json:"body"`
			} `json:"data"`
		}
		if back.Status != 200 {
			t.Fatalf("read back: %d %s", back.Status, back.Body)
		}
		if back.JSON(t, &got); got.Data.Body != in.Body {
			t.Fatalf("read back body %q, created %q", got.Data.Body, in.Body)
		}
	})
}

func FuzzCreateComment(f *testing.F) {
	env, tok := fuzzEnv(f)
	var post struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	env.Send(apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":"p"}`}).JSON(f, &post)
	var comment struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	path := fmt.Sprintf("/api/v1/posts/%d/comments", post.Data.ID)
	env.Send(apitest.Request{Method: "POST", Path: path, Token: tok, Body: `{"body":"c"}`}).JSON(f, &comment)
	for _, s := range []string{
		`{"body":"nice"}`,
		fmt.Sprintf(`{"body":"reply","parent_id":%d}`, comment.Data.ID),
		`{"body":"x","parent_id":0}`,
		`{"body":"x","parent_id":9007199254740992}`,
		`{"body":"x","parent_id":"1"}`,
		`{"body":"x","post_id":1,"author":"bob"}`,
		`{"body":""}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req := apitest.Request{Method: "POST", Path: path, Token: tok, Body: body}
		checkFuzzed(t, req, env.Send(req))
	})
}

// FuzzListQuery sends arbitrary query strings to the list endpoints.
func FuzzListQuery(f *testing.F) {
	env, tok := fuzzEnv(f)
	paths := []string{"/api/v1/feed", "/api/v1/search", "/api/v1/users/bob/posts", "/api/v1/notifications",
		"/api/v1/conversations", "/api/v1/market", "/api/v1/jobs"}
	for _, s := range []string{
		"per_page=1", "tab=discover&per_page=50", "q=go", "q=%25%25%5C&type=posts", "cursor=abc",
		"per_page=1&per_page=2", "q=a%00b", "category=nope", "unknown=1", "q=" + strings.Repeat("x", 300),
	} {
		f.Add(uint8(len(s)), s)
	}
	f.Fuzz(func(t *testing.T, which uint8, query string) {
		req := apitest.Request{Method: "GET", Path: paths[int(which)%len(paths)] + "?" + query, Token: tok}
		if strings.ContainsAny(query, " #\r\n\t") || !validRequestTarget(req.Path) {
			return // not a request line a client can send
		}
		checkFuzzed(t, req, env.Send(req))
	})
}

// validRequestTarget reports whether s can appear in an HTTP request line.
func validRequestTarget(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
