package posts_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// jsonBody encodes v as a request body.
func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantFieldError fails unless resp is a 422 validation_failed whose only
// field error is code at pointer.
func wantFieldError(t *testing.T, resp *apitest.Response, pointer, code string) {
	t.Helper()
	if resp.Status != 422 {
		t.Fatalf("status %d, want 422: %s", resp.Status, resp.Body)
	}
	p := resp.Problem(t)
	if p.Code != "validation_failed" || len(p.Errors) != 1 || p.Errors[0].Pointer == nil ||
		*p.Errors[0].Pointer != pointer || p.Errors[0].Code != code || p.Errors[0].Detail == "" {
		t.Errorf("problem %s, want validation_failed with one %s error at %s", resp.Body, code, pointer)
	}
}

// uriChars holds the ASCII characters RFC 3986 allows in a URI.
const uriChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"

// isURI reports whether s is written only with the characters of a URI.
func isURI(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune(uriChars, r) {
			return false
		}
	}
	return s != ""
}

// TestLinkIsURI: a post's link is an absolute http(s) URI with a valid host
// and port, stored as a URI (IDNA host, percent-encoded non-ASCII), and a
// rejected link stores nothing.
func TestLinkIsURI(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)

	rejected := map[string]string{
		"space":             "https://example.com/a b",
		"port out of range": "https://e.example:99999/",
		"hyphen host":       "https://-/",
		"not a URL":         `<x>"y"`,
		"quotes in path":    `https://example.com/<x>"y"`,
		"RLO":               "https://example.com/\u202Egnp.exe",
		"RLO in host":       "https://exa\u202Emple.com/",
		"zero width space":  "https://exam\u200Bple.com/",
		"no-break space":    "https://example.com/a\u00a0b",
		"newline":           "https://example.com/\n",
		"credentials":       "https://good.example@127.0.0.1/",
		"bad IPv4":          "https://300.1.1.1/",
		"port zero":         "https://example.com:0/",
		"empty host":        "https:///x",
		"lone percent":      "https://example.com/100%",
	}
	for name, link := range rejected {
		t.Run("rejects "+name, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok,
				Body: jsonBody(t, map[string]string{"body": "x", "link": link})})
			if resp.Status != 422 || resp.Problem(t).Code != "validation_failed" {
				t.Fatalf("status %d, want 422 validation_failed: %s", resp.Status, resp.Body)
			}
			// The schema's pattern or the server's parser answers.
			if p := resp.Problem(t); len(p.Errors) != 1 || p.Errors[0].Pointer == nil || *p.Errors[0].Pointer != "/link" ||
				p.Errors[0].Code != "bad_format" {
				t.Errorf("errors %s, want one bad_format at /link", resp.Body)
			}
		})
	}
	t.Run("too long once encoded", func(t *testing.T) {
		resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok,
			Body: jsonBody(t, map[string]string{"body": "x", "link": "https://example.com/" + strings.Repeat("é", 1000)})})
		wantFieldError(t, resp, "/link", "too_long")
	})
	if n := count(t, env.DB, `SELECT count(*) FROM posts`); n != 0 {
		t.Fatalf("%d posts stored by rejected requests, want 0", n)
	}

	accepted := []struct{ in, want string }{
		{"https://example.com:8443/a/b?c=d&e=%2F#top", "https://example.com:8443/a/b?c=d&e=%2F#top"},
		{"http://192.0.2.1:8080/", "http://192.0.2.1:8080/"},
		{"https://[2001:db8::1]/x", "https://[2001:db8::1]/x"},
		{"https://Example.COM/Path", "https://Example.COM/Path"},
		{"https://café.example/menü?q=ö", "https://xn--caf-dma.example/men%C3%BC?q=%C3%B6"},
	}
	for _, tt := range accepted {
		t.Run("accepts "+tt.in, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok,
				Body: jsonBody(t, map[string]string{"body": "x", "link": tt.in})})
			if resp.Status != 201 {
				t.Fatalf("status %d: %s", resp.Status, resp.Body)
			}
			var created gen.PostResponse
			resp.JSON(t, &created)
			var read gen.PostResponse
			env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", created.Data.ID), Token: tok}).JSON(t, &read)
			for _, p := range []gen.Post{created.Data, read.Data} {
				if p.Type != "link" || p.Link == nil || *p.Link != tt.want {
					t.Errorf("type %q link %v, want link %q", p.Type, p.Link, tt.want)
				}
			}
		})
	}
}

// TestTagURLsAreURIs: a tag's URL percent-encodes its name, on every path
// that writes one.
func TestTagURLsAreURIs(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	want := []gen.Tag{
		{Name: "café", URL: apitest.PublicURL + "/tags/caf%C3%A9"},
		{Name: "東京", URL: apitest.PublicURL + "/tags/%E6%9D%B1%E4%BA%AC"},
		{Name: "go_1", URL: apitest.PublicURL + "/tags/go_1"},
	}
	body := `{"body":"#Café in #東京 with #go_1"}`
	p := post(t, env, tok, body)
	var read gen.PostResponse
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", p.ID), Token: tok}).JSON(t, &read)
	var mine struct{ Data []gen.Post }
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/alice/posts", Token: tok}).JSON(t, &mine)
	if len(mine.Data) != 1 {
		t.Fatalf("%d posts listed, want 1", len(mine.Data))
	}
	resp := env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/comments", p.ID), Token: tok, Body: body})
	if resp.Status != 201 {
		t.Fatalf("comment: status %d: %s", resp.Status, resp.Body)
	}
	var comment gen.CommentResponse
	resp.JSON(t, &comment)
	for name, got := range map[string][]gen.Tag{
		"created post": p.Tags, "read post": read.Data.Tags, "listed post": mine.Data[0].Tags, "comment": comment.Data.Tags,
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: tags (-want +got):\n%s", name, diff)
			}
			for _, tag := range got {
				if !isURI(tag.URL) {
					t.Errorf("%s: tag url %q is not a URI", name, tag.URL)
				}
			}
		})
	}
}

// blankBodies show nothing: white space of every kind and invisible
// characters.
var blankBodies = map[string]string{
	"space":                     " ",
	"tabs and newlines":         "\t\r\n",
	"no-break spaces":           "\u00a0\u202f",
	"em and ideographic spaces": "\u2003\u3000",
	"zero width space":          "\u200b",
	"word joiner and BOM":       "\u2060\ufeff",
	"Hangul filler":             "\u3164",
	"braille blank":             "\u2800",
	"mixed":                     " \u00a0\u200b\u3164\u2028 ",
}

// TestBlankBodies: a post, comment or message of only white space or
// invisible characters is a 422 at /body and stores nothing; a body with
// one visible character among them is taken as written.
func TestBlankBodies(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	env.Member(t, "carol")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	target := post(t, env, tok, `{"body":"the post"}`)
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/conversations", Token: tok,
		Body: `{"participants":["bob"],"body":"hello"}`})
	if resp.Status != 201 {
		t.Fatalf("start conversation: status %d: %s", resp.Status, resp.Body)
	}
	var conv struct{ Data struct{ ID int64 } }
	resp.JSON(t, &conv)

	counts := func() string {
		return fmt.Sprintf("posts %d comments %d conversations %d messages %d notifications %d",
			count(t, env.DB, `SELECT count(*) FROM posts`), count(t, env.DB, `SELECT count(*) FROM comments`),
			count(t, env.DB, `SELECT count(*) FROM conversations`), count(t, env.DB, `SELECT count(*) FROM messages`),
			count(t, env.DB, `SELECT count(*) FROM notifications`))
	}
	before := counts()
	writes := []struct {
		name, path string
		body       func(text string) map[string]any
	}{
		{"post", "/api/v1/posts", func(s string) map[string]any { return map[string]any{"body": s} }},
		{"comment", fmt.Sprintf("/api/v1/posts/%d/comments", target.ID), func(s string) map[string]any { return map[string]any{"body": s} }},
		{"message", fmt.Sprintf("/api/v1/conversations/%d/messages", conv.Data.ID), func(s string) map[string]any { return map[string]any{"body": s} }},
		{"new conversation", "/api/v1/conversations", func(s string) map[string]any {
			return map[string]any{"participants": []string{"bob"}, "body": s}
		}},
	}
	for _, w := range writes {
		for name, text := range blankBodies {
			t.Run(w.name+"/"+name, func(t *testing.T) {
				resp := env.Do(t, apitest.Request{Method: "POST", Path: w.path, Token: tok, Body: jsonBody(t, w.body(text))})
				wantFieldError(t, resp, "/body", "too_short")
			})
		}
	}
	if after := counts(); after != before {
		t.Fatalf("blank bodies wrote: before %s, after %s", before, after)
	}

	// Lookup comes before validation: a blank body about a post the caller
	// cannot see or a conversation it is not part of answers 404.
	hidden := post(t, env, env.Token(t, "bob", auth.ScopeWrite), `{"body":"mine","visibility":"private"}`)
	outsider := env.Token(t, "carol", auth.ScopeWrite)
	for name, req := range map[string]apitest.Request{
		"comment on a hidden post":          {Path: fmt.Sprintf("/api/v1/posts/%d/comments", hidden.ID), Token: tok},
		"comment on a missing post":         {Path: "/api/v1/posts/999999/comments", Token: tok},
		"message by a non-participant":      {Path: fmt.Sprintf("/api/v1/conversations/%d/messages", conv.Data.ID), Token: outsider},
		"message to a missing conversation": {Path: "/api/v1/conversations/999999/messages", Token: tok},
	} {
		t.Run(name, func(t *testing.T) {
			req.Method, req.Body = "POST", `{"body":"\u00a0"}`
			if resp := env.Do(t, req); resp.Status != 404 {
				t.Errorf("%s: status %d, want 404: %s", name, resp.Status, resp.Body)
			}
		})
	}

	const visible = "\u00a0hi\u200b "
	for _, w := range writes {
		t.Run(w.name+" with a visible character", func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: w.path, Token: tok, Body: jsonBody(t, w.body(visible))})
			if resp.Status != 201 && resp.Status != 200 {
				t.Errorf("%s with a visible character: status %d: %s", w.name, resp.Status, resp.Body)
				return
			}
			if !strings.Contains(string(resp.Body), `"body":"\u00a0hi\u200b "`) && !strings.Contains(string(resp.Body), `"body":"`+visible+`"`) {
				t.Errorf("%s: body not kept as written: %s", w.name, resp.Body)
			}
		})
	}
}
