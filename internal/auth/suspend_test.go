package auth_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/members"
)

// TestSuspendedMemberTokens: from the request after an operator's
// suspension (another process: a store of its own), every token of the
// member answers 401 account_suspended with the invalid_token challenge,
// on reads and writes, those that act for a recalled principal (a guarded
// statement finds nothing, then the edge authenticates in full) and those
// authenticated in full, and writes nothing; from the request after the
// suspension is lifted, they work again.
func TestSuspendedMemberTokens(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	write, read := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "alice", auth.ScopeRead)
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: env.Token(t, "bob", auth.ScopeWrite), Body: `{"body":"by bob"}`})
	if resp.Status != http.StatusCreated {
		t.Fatalf("bob's post: %d %s", resp.Status, resp.Body)
	}
	var post struct {
		Data struct{ ID int64 } `json:"data"`
	}
	resp.JSON(t, &post)
	bobsPost := "/api/v1/posts/" + strconv.FormatInt(post.Data.ID, 10)
	requests := []struct {
		name   string
		req    apitest.Request
		status int
	}{
		{"guarded read", apitest.Request{Method: "GET", Path: "/api/v1/feed?tab=discover", Token: read}, 200},
		{"guarded read, write token", apitest.Request{Method: "GET", Path: bobsPost, Token: write}, 200},
		{"read without a guarded statement", apitest.Request{Method: "GET", Path: "/api/v1/me", Token: read}, 200},
		{"read answering 404", apitest.Request{Method: "GET", Path: "/api/v1/posts/999999999", Token: read}, 404},
		{"guarded write", apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: write, Body: `{"body":"by alice"}`}, 201},
		{"guarded write, another", apitest.Request{Method: "POST", Path: bobsPost + "/react", Token: write, Body: `{"type":"like"}`}, 200},
		{"guarded write with an Idempotency-Key", apitest.Request{Method: "POST", Path: bobsPost + "/comments", Token: write, Body: `{"body":"hi"}`}, 201},
		{"write authenticated in full", apitest.Request{Method: "POST", Path: "/api/v1/notifications/read", Token: write, Body: `{}`}, 200},
	}
	key := 0
	send := func(r apitest.Request) *apitest.Response {
		t.Helper()
		if r.Path == bobsPost+"/comments" {
			key++
			r.Header = http.Header{"Idempotency-Key": {"k" + strconv.Itoa(key)}}
		}
		return env.Do(t, r)
	}
	works := func(step string) {
		t.Helper()
		for _, r := range requests {
			for i := 0; i < 2; i++ { // the second acts for a recalled principal
				if resp := send(r.req); resp.Status != r.status {
					t.Fatalf("%s, %s: %d, want %d: %s", step, r.name, resp.Status, r.status, resp.Body)
				}
			}
		}
	}
	works("before")

	ctx := context.Background()
	ms := members.NewStore(env.DB)
	if _, err := ms.Suspend(ctx, "alice", "Test suspension."); err != nil {
		t.Fatal(err)
	}
	rows := func() (n int) {
		t.Helper()
		const q = `SELECT (SELECT count(*) FROM posts) + (SELECT count(*) FROM reactions) + (SELECT count(*) FROM comments)`
		if err := env.DB.Get(&n, q); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := rows()
	for _, r := range requests {
		for i := 0; i < 2; i++ { // the first after the suspension, and the next
			resp := send(r.req)
			if resp.Status != http.StatusUnauthorized {
				t.Fatalf("suspended, %s: %d, want 401: %s", r.name, resp.Status, resp.Body)
			}
			p := resp.Problem(t)
			if p.Code != "account_suspended" || p.Detail != "This account is suspended." {
				t.Errorf("suspended, %s: code %q, detail %q; want account_suspended", r.name, p.Code, p.Detail)
			}
			if got, want := resp.Header.Get("WWW-Authenticate"), `Bearer realm="api", error="invalid_token"`; got != want {
				t.Errorf("suspended, %s: WWW-Authenticate %q, want %q", r.name, got, want)
			}
		}
	}
	if after := rows(); after != before {
		t.Errorf("the suspended member's writes wrote: %d rows, then %d", before, after)
	}

	if _, err := ms.Unsuspend(ctx, "alice", "Lifted."); err != nil {
		t.Fatal(err)
	}
	// The reaction is set already: setting it again answers 200 as well.
	works("after the suspension is lifted")
}
