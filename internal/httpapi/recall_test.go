package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
)

// The edge recalls the principals of tokens it authenticated, and the hot
// reads check the token inside their own statement (auth/recall.go). These
// tests hold that to the contract's rule: a revoked token (or a suspended
// member's) fails from the very next request, on every kind of read: those
// whose statement carries the check, those whose statement finds nothing,
// errors, conditional GETs, and routes without a guarded statement.

// recallFixture is a small network: alice posted, bob commented and
// followed her (so alice has a notification).
type recallFixture struct {
	env    *apitest.Env
	postID int64
	convID int64 // bob's conversation with alice
}

func newRecallFixture(t *testing.T) recallFixture {
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeWrite)
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: alice, Body: `{"body":"recalled","visibility":"public"}`})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create post: %d %s", resp.Status, resp.Body)
	}
	var out gen.PostResponse
	resp.JSON(t, &out)
	p := out.Data
	id := strconv.FormatInt(p.ID, 10)
	if resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts/" + id + "/comments", Token: bob, Body: `{"body":"seen"}`}); resp.Status != http.StatusCreated {
		t.Fatalf("comment: %d %s", resp.Status, resp.Body)
	}
	if resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/alice/follow", Token: bob}); resp.Status != http.StatusOK {
		t.Fatalf("follow: %d %s", resp.Status, resp.Body)
	}
	resp = env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/conversations", Token: bob, Body: `{"participants":["alice"],"body":"hi"}`})
	if resp.Status != http.StatusCreated {
		t.Fatalf("conversation: %d %s", resp.Status, resp.Body)
	}
	var conv gen.ConversationResponse
	resp.JSON(t, &conv)
	return recallFixture{env: env, postID: p.ID, convID: conv.Data.ID}
}

// pastLastConversation is a cursor of alice's conversation list after its
// last conversation: an empty page, whose unread count is read apart.
func (f recallFixture) pastLastConversation() string {
	return url.QueryEscape(cursor.Encode(cursor.Fingerprint("conversations", nil), cursor.Position{Time: time.Unix(0, 0), ID: 1}))
}

// reads are GETs alice may send, with the status they answer a token that
// counts; each is one kind of path through the edge.
func (f recallFixture) reads() []struct {
	name, path string
	status     int
} {
	id, conv := strconv.FormatInt(f.postID, 10), strconv.FormatInt(f.convID, 10)
	return []struct {
		name, path string
		status     int
	}{
		{"home feed (guarded page)", "/api/v1/feed", 200},
		{"discover (guarded page)", "/api/v1/feed?tab=discover", 200},
		{"single post (guarded list)", "/api/v1/posts/" + id, 200},
		{"member's posts (guarded page)", "/api/v1/users/alice/posts", 200},
		{"comments (guarded page)", "/api/v1/posts/" + id + "/comments", 200},
		{"notifications (guarded page)", "/api/v1/notifications", 200},
		{"profile (guarded read)", "/api/v1/users/bob", 200},
		{"conversations (guarded page)", "/api/v1/conversations", 200},
		{"messages (guarded page)", "/api/v1/conversations/" + conv + "/messages", 200},
		{"empty page", "/api/v1/users/bob/posts", 200},
		{"empty conversation list page", "/api/v1/conversations?cursor=" + f.pastLastConversation(), 200},
		{"no guarded statement", "/api/v1/me", 200},
		{"not found", "/api/v1/posts/999999999", 404},
		{"invalid parameter", "/api/v1/feed?per_page=0", 400},
		{"unknown route", "/api/v1/nothing-here", 404},
	}
}

// Every read refuses a recalled token from the request after its
// revocation (by the operator CLI: another process, another store) or its
// member's suspension.
func TestRecalledTokenRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		code string
		// refuse makes token id stop counting and returns the undo.
		refuse func(t *testing.T, f recallFixture, store *auth.Store, id int64) func()
	}{
		{"revoked", "token_revoked", func(t *testing.T, _ recallFixture, store *auth.Store, id int64) func() {
			if _, err := store.Revoke(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
		{"member suspended", "account_suspended", func(t *testing.T, f recallFixture, _ *auth.Store, _ int64) func() {
			suspend(t, f.env, "alice", true)
			return func() { suspend(t, f.env, "alice", false) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newRecallFixture(t)
			store := auth.NewStore(f.env.DB, nil)
			for _, r := range f.reads() {
				t.Run(r.name, func(t *testing.T) {
					tok, id := token(t, store, "alice")
					for i := 0; i < 2; i++ { // the second is answered from the recalled principal
						if resp := f.env.Do(t, apitest.Request{Method: "GET", Path: r.path, Token: tok}); resp.Status != r.status {
							t.Fatalf("before: %d, want %d: %s", resp.Status, r.status, resp.Body)
						}
					}
					defer c.refuse(t, f, store, id)()
					checkRefused(t, f.env.Do(t, apitest.Request{Method: "GET", Path: r.path, Token: tok}), c.code)
				})
			}
		})
	}
}

// A conditional GET whose tag still matches is not a 304 once the token is
// revoked: the handler's statement finds the token gone.
func TestRecalledTokenConditional(t *testing.T) {
	t.Parallel()
	f := newRecallFixture(t)
	store := auth.NewStore(f.env.DB, nil)
	tok, id := token(t, store, "alice")
	path := "/api/v1/posts/" + strconv.FormatInt(f.postID, 10)
	first := f.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: tok})
	tag := first.Header.Get("ETag")
	h := http.Header{"If-None-Match": {tag}}
	if resp := f.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: tok, Header: h}); resp.Status != http.StatusNotModified {
		t.Fatalf("conditional GET: %d, want 304", resp.Status)
	}
	if _, err := store.Revoke(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, f.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: tok, Header: h}), "token_revoked")
}

// A recalled token whose member's read budget is spent is still refused
// with 401, not 429: authentication comes first.
func TestRecalledTokenBeforeRateLimit(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: 3600e9})
	env.Member(t, "alice")
	store := auth.NewStore(env.DB, nil)
	tok, id := token(t, store, "alice")
	for {
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/feed", Token: tok})
		if resp.Status == http.StatusTooManyRequests {
			break
		}
		if resp.Status != http.StatusOK {
			t.Fatalf("feed: %d %s", resp.Status, resp.Body)
		}
	}
	if _, err := store.Revoke(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/feed", Token: tok}), "token_revoked")
}

// The hot reads confirm a recalled principal by themselves; the edge does
// not authenticate again. Seen from outside: an expiry set behind the API's
// back (no interface changes one; Recall checks the expiry it read, and the
// statements check only what can change) is noticed only by a full
// authentication, so a guarded read still answers 200 while /me, which has
// no guarded statement, already answers 401. The home feed must show a post
// for its statement to confirm: an empty page is confirmed in full.
func TestRecalledTokenConfirmedByStatement(t *testing.T) {
	t.Parallel()
	f := newRecallFixture(t)
	store := auth.NewStore(f.env.DB, nil)
	tok, id := token(t, store, "alice")
	id2 := strconv.FormatInt(f.postID, 10)
	guarded := []string{"/api/v1/feed", "/api/v1/feed?tab=discover", "/api/v1/posts/" + id2, "/api/v1/users/alice/posts",
		"/api/v1/posts/" + id2 + "/comments", "/api/v1/notifications", "/api/v1/users/bob", "/api/v1/conversations",
		"/api/v1/conversations/" + strconv.FormatInt(f.convID, 10) + "/messages"}
	for _, p := range append(guarded, "/api/v1/me") {
		if resp := f.env.Do(t, apitest.Request{Method: "GET", Path: p, Token: tok}); resp.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", p, resp.Status, resp.Body)
		}
	}
	if _, err := f.env.DB.Exec(`UPDATE api_tokens SET expires_at = now() - interval '1 hour' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, p := range guarded {
		t.Run(p, func(t *testing.T) {
			if resp := f.env.Do(t, apitest.Request{Method: "GET", Path: p, Token: tok}); resp.Status != http.StatusOK {
				t.Errorf("%s: %d, want 200 (confirmed by its statement, without a second authentication): %s", p, resp.Status, resp.Body)
			}
		})
	}
	checkRefused(t, f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}), "token_expired")
}

// writes are the writes whose statement checks a recalled token, with the
// rows each adds or removes.
func (f recallFixture) writes() []struct {
	name, method, path, body string
	status                   int
	count                    string
} {
	id := strconv.FormatInt(f.postID, 10)
	return []struct {
		name, method, path, body string
		status                   int
		count                    string
	}{
		{"create post", "POST", "/api/v1/posts", `{"body":"after"}`, 201, "SELECT count(*) FROM posts"},
		{"react", "POST", "/api/v1/posts/" + id + "/react", `{"type":"wow"}`, 200, "SELECT count(*) FROM reactions"},
		{"comment", "POST", "/api/v1/posts/" + id + "/comments", `{"body":"after"}`, 201, "SELECT count(*) FROM comments"},
		{"remove reaction", "DELETE", "/api/v1/posts/" + id + "/react", "", 200, "SELECT count(*) FROM reactions"},
		{"follow", "POST", "/api/v1/users/bob/follow", "", 200, "SELECT count(*) FROM follows"},
		{"send message", "POST", "/api/v1/conversations/" + strconv.FormatInt(f.convID, 10) + "/messages", `{"body":"after"}`, 201,
			"SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM notifications) + (SELECT sum(unread_count) FROM conversation_participants)"},
	}
}

// A guarded write with a recalled token that was revoked meanwhile writes
// nothing and answers 401; one with an Idempotency-Key authenticates in
// full before the handler.
func TestRecalledTokenWrites(t *testing.T) {
	t.Parallel()
	f := newRecallFixture(t)
	store := auth.NewStore(f.env.DB, nil)
	for _, w := range f.writes() {
		t.Run(w.name, func(t *testing.T) {
			tok, id := tokenOf(t, store, "alice", auth.ScopeWrite)
			// Recalled from here on; the remove has a reaction to remove.
			if resp := f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts/" + strconv.FormatInt(f.postID, 10) + "/react", Token: tok, Body: `{"type":"like"}`}); resp.Status != http.StatusOK {
				t.Fatalf("react: %d %s", resp.Status, resp.Body)
			}
			if resp := f.env.Do(t, apitest.Request{Method: w.method, Path: w.path, Token: tok, Body: w.body}); resp.Status != w.status {
				t.Fatalf("before revocation: %d, want %d: %s", resp.Status, w.status, resp.Body)
			}
			if w.name == "remove reaction" {
				if resp := f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts/" + strconv.FormatInt(f.postID, 10) + "/react", Token: tok, Body: `{"type":"like"}`}); resp.Status != http.StatusOK {
					t.Fatalf("react: %d %s", resp.Status, resp.Body)
				}
			}
			if _, err := store.Revoke(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			var before, after int
			if err := f.env.DB.Get(&before, w.count); err != nil {
				t.Fatal(err)
			}
			checkRefused(t, f.env.Do(t, apitest.Request{Method: w.method, Path: w.path, Token: tok, Body: w.body}), "token_revoked")
			h := http.Header{"Idempotency-Key": {"k-" + w.name}}
			checkRefused(t, f.env.Do(t, apitest.Request{Method: w.method, Path: w.path, Token: tok, Body: w.body, Header: h}), "token_revoked")
			if err := f.env.DB.Get(&after, w.count); err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("%s: %d rows, then %d after the refused write", w.count, before, after)
			}
		})
	}
}

// The guarded writes confirm a recalled principal by themselves (seen as in
// TestRecalledTokenConfirmedByStatement: an expiry set behind the API's
// back is noticed only by a full authentication).
func TestRecalledTokenWriteConfirmedByStatement(t *testing.T) {
	t.Parallel()
	f := newRecallFixture(t)
	store := auth.NewStore(f.env.DB, nil)
	tok, id := tokenOf(t, store, "alice", auth.ScopeWrite)
	if resp := f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}); resp.Status != http.StatusOK {
		t.Fatalf("me: %d %s", resp.Status, resp.Body)
	}
	if _, err := f.env.DB.Exec(`UPDATE api_tokens SET expires_at = now() - interval '1 hour' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	for _, w := range f.writes() {
		t.Run(w.name, func(t *testing.T) {
			if resp := f.env.Do(t, apitest.Request{Method: w.method, Path: w.path, Token: tok, Body: w.body}); resp.Status != w.status {
				t.Errorf("%s: %d, want %d (confirmed by its statement): %s", w.name, resp.Status, w.status, resp.Body)
			}
		})
	}
	// Unguarded writes authenticate in full.
	checkRefused(t, f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/notifications/read", Token: tok, Body: `{}`}), "token_expired")
}

func token(t *testing.T, store *auth.Store, handle string) (string, int64) {
	t.Helper()
	return tokenOf(t, store, handle, auth.ScopeRead)
}

func tokenOf(t *testing.T, store *auth.Store, handle string, scope auth.Scope) (string, int64) {
	t.Helper()
	tk, secret, err := store.Create(context.Background(), auth.NewToken{Handle: handle, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return secret, tk.ID
}

func suspend(t *testing.T, env *apitest.Env, handle string, on bool) {
	t.Helper()
	q := `UPDATE members SET suspended_at = CASE WHEN $2 THEN now() END WHERE handle = $1`
	if _, err := env.DB.Exec(q, handle, on); err != nil {
		t.Fatal(err)
	}
}

// checkRefused checks a 401 with code and nothing of the member it was not
// acting for: no budget headers, no entity tag, no Allow.
func checkRefused(t *testing.T, resp *apitest.Response, code string) {
	t.Helper()
	if resp.Status != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401: %s", resp.Status, resp.Body)
	}
	if got := resp.Problem(t).Code; got != code {
		t.Errorf("code %q, want %q", got, code)
	}
	for _, h := range []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Remaining", "ETag", "Allow"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("401 carries %s: %s", h, v)
		}
	}
}
