package httpapi_test

import (
	"bytes"
	"net/http"
	"sync"
	"testing"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

func keyed(key string) http.Header { return http.Header{"Idempotency-Key": {key}} }

func countPosts(t *testing.T, env *apitest.Env) int {
	t.Helper()
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM posts`); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIdempotencyKeyReplays(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	req := apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":"hello #once"}`, Header: keyed("k-1")}

	first := env.Do(t, req)
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v %s", first.Status, first.Header, first.Body)
	}
	// Same request, different JSON formatting: still the same request.
	again := req
	again.Body = `{ "body" : "hello #once" }`
	second := env.Do(t, again)
	if second.Status != 201 || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d replayed=%q", second.Status, second.Header.Get("Idempotent-Replayed"))
	}
	if second.Header.Get("Location") != first.Header.Get("Location") || !bytes.Equal(second.Body, first.Body) {
		t.Errorf("replay differs:\n%s %s\n%s %s", first.Header.Get("Location"), first.Body, second.Header.Get("Location"), second.Body)
	}
	if n := countPosts(t, env); n != 1 {
		t.Errorf("posts = %d, want 1", n)
	}

	// Same key, different body: 422 idempotency_key_reused; other operation: the same.
	other := req
	other.Body = `{"body":"something else"}`
	if resp := env.Do(t, other); resp.Status != 422 || resp.Problem(t).Code != "idempotency_key_reused" {
		t.Errorf("reused key: %d %s", resp.Status, resp.Body)
	}
	follow := apitest.Request{Method: "POST", Path: "/api/v1/users/bob/follow", Token: tok, Header: keyed("k-1")}
	if resp := env.Do(t, follow); resp.Status != 422 || resp.Problem(t).Code != "idempotency_key_reused" {
		t.Errorf("key reused on another operation: %d %s", resp.Status, resp.Body)
	}
	// Keys are per member: bob may use the same key.
	bobTok := env.Token(t, "bob", auth.ScopeWrite)
	bobReq := req
	bobReq.Token = bobTok
	if resp := env.Do(t, bobReq); resp.Status != 201 || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("bob with alice's key: %d replayed=%q", resp.Status, resp.Header.Get("Idempotent-Replayed"))
	}
	// Invalid requests are not stored: fixing the body with the same key runs it.
	bad := apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":""}`, Header: keyed("k-2")}
	if resp := env.Do(t, bad); resp.Status != 422 {
		t.Fatalf("invalid body: %d", resp.Status)
	}
	bad.Body = `{"body":"fixed"}`
	if resp := env.Do(t, bad); resp.Status != 201 {
		t.Errorf("fixed body with the same key: %d %s", resp.Status, resp.Body)
	}
	// A malformed key is a 400.
	badKey := req
	badKey.Header = keyed("has space")
	if resp := env.Do(t, badKey); resp.Status != 400 {
		t.Errorf("malformed key: %d", resp.Status)
	}
}

func TestIdempotencyKeyConcurrent(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	const n = 10
	var wg sync.WaitGroup
	statuses := make([]int, n)
	locations := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: `{"body":"race"}`, Header: keyed("same")})
			statuses[i], locations[i] = resp.Status, resp.Header.Get("Location")
		}()
	}
	wg.Wait()
	if got := countPosts(t, env); got != 1 {
		t.Fatalf("%d concurrent POSTs with one key created %d posts, want 1 (statuses %v)", n, got, statuses)
	}
	loc := ""
	for i, s := range statuses {
		switch s {
		case 201:
			if loc == "" {
				loc = locations[i]
			} else if locations[i] != loc {
				t.Errorf("different Location: %s vs %s", locations[i], loc)
			}
		case 409:
		default:
			t.Errorf("status %d, want 201 or 409", s)
		}
	}
}
