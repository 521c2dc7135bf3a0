package posts_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/members"
)

// post publishes body as the owner of tok through the API and returns it.
func post(t *testing.T, env *apitest.Env, tok, body string) gen.Post {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: body})
	if resp.Status != 201 {
		t.Fatalf("create post: status %d: %s", resp.Status, resp.Body)
	}
	var out gen.PostResponse
	resp.JSON(t, &out)
	return out.Data
}

func follow(t *testing.T, env *apitest.Env, followerID int64, handle string) {
	t.Helper()
	if _, _, err := follows.NewStore(env.DB).Toggle(context.Background(), followerID, handle); err != nil {
		t.Fatalf("follow %s: %v", handle, err)
	}
}

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

// sameAsMissing fails unless got answers exactly as want, the answer about a
// post that does not exist, apart from the request id and the path.
func sameAsMissing(t *testing.T, got, want *apitest.Response, gotPath, wantPath string) {
	t.Helper()
	norm := func(r *apitest.Response, path string) string {
		b := requestID.ReplaceAllString(string(r.Body), `"request_id":""`)
		return fmt.Sprintf("%d %s %s", r.Status, r.Header.Get("Content-Type"), strings.ReplaceAll(b, path, "{path}"))
	}
	if diff := cmp.Diff(norm(want, wantPath), norm(got, gotPath)); diff != "" {
		t.Errorf("hidden post answers unlike a missing one (-missing +hidden):\n%s", diff)
	}
}

// relate makes the owner of tok block or mute handle through the API
// (action "block" or "mute"), so that the relations' handlers run too.
func relate(t *testing.T, env *apitest.Env, tok, action, handle string) {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/" + handle + "/" + action, Token: tok})
	if resp.Status != 200 {
		t.Fatalf("%s %s: status %d: %s", action, handle, resp.Status, resp.Body)
	}
}

// TestVisibilityTable checks every post endpoint for each visibility and
// each kind of viewer: what may not be seen answers exactly like what does
// not exist. Besides the author, a follower and a stranger, the viewers are
// a member alice blocks ("blocked"), one who blocks alice ("blocker") and a
// follower who mutes her ("muter": a single post is not a stream, so a mute
// hides nothing here); then alice is suspended (everything of hers is
// missing to everyone) and the suspension lifted (everything is back).
func TestVisibilityTable(t *testing.T) {
	t.Parallel()
	// Each viewer writes more than a minute's write quota: the quota refills at once.
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond})
	ids := map[string]int64{}
	toks := map[string]string{}
	viewers := []string{"alice", "bob", "carol", "blocked", "blocker", "muter"}
	for _, h := range viewers {
		ids[h] = env.Member(t, h)
		toks[h] = env.Token(t, h, auth.ScopeWrite)
	}
	follow(t, env, ids["bob"], "alice") // bob follows alice; carol is a stranger
	follow(t, env, ids["muter"], "alice")
	relate(t, env, toks["alice"], "block", "blocked")
	relate(t, env, toks["blocker"], "block", "alice")
	relate(t, env, toks["muter"], "mute", "alice")
	postIDs := map[string]int64{}
	for _, vis := range []string{"public", "followers", "private"} {
		postIDs[vis] = post(t, env, toks["alice"], `{"body":"canary `+vis+`","visibility":"`+vis+`"}`).ID
	}
	missing := postIDs["private"] + 1000
	missingPath := fmt.Sprintf("/api/v1/posts/%d", missing)

	canSee := func(viewer, vis string) bool {
		return vis == "public" && viewer != "blocked" && viewer != "blocker" || viewer == "alice" ||
			(vis == "followers" && (viewer == "bob" || viewer == "muter"))
	}
	type call struct {
		name, method, suffix, body string
		ok                         int // status when visible (and not the author deleting)
	}
	calls := []call{
		{"getPost", "GET", "", "", 200},
		{"reactToPost", "POST", "/react", `{"type":"love"}`, 200},
		{"reactToPost invalid body", "POST", "/react", `{"type":"meh"}`, 422},
		{"deletePostReaction", "DELETE", "/react", "", 200},
		{"listPostComments", "GET", "/comments", "", 200},
		{"createPostComment", "POST", "/comments", `{"body":"a comment"}`, 201},
		{"createPostComment blank body", "POST", "/comments", `{"body":" "}`, 422},
		{"deletePost", "DELETE", "", "", 403},
	}
	// table runs every call as every viewer; seen tells which viewer may
	// see which post.
	table := func(phase string, viewers []string, seen func(viewer, vis string) bool) {
		for _, viewer := range viewers {
			for _, vis := range []string{"public", "followers", "private"} {
				for _, c := range calls {
					if viewer == "alice" && c.name == "deletePost" {
						continue // the author's delete runs last
					}
					t.Run(phase+"/"+viewer+"/"+vis+"/"+c.name, func(t *testing.T) {
						path := fmt.Sprintf("/api/v1/posts/%d%s", postIDs[vis], c.suffix)
						got := env.Do(t, apitest.Request{Method: c.method, Path: path, Token: toks[viewer], Body: c.body})
						if seen(viewer, vis) {
							if got.Status != c.ok {
								t.Fatalf("status %d, want %d: %s", got.Status, c.ok, got.Body)
							}
							if c.ok == 403 && got.Problem(t).Code != "forbidden" {
								t.Errorf("code %q, want forbidden", got.Problem(t).Code)
							}
							return
						}
						mp := missingPath + c.suffix
						want := env.Do(t, apitest.Request{Method: c.method, Path: mp, Token: toks[viewer], Body: c.body})
						if want.Status != 404 {
							t.Fatalf("missing post: status %d", want.Status)
						}
						sameAsMissing(t, got, want, path, mp)
						if strings.Contains(string(got.Body), "canary") {
							t.Errorf("body leaks the post: %s", got.Body)
						}
					})
				}
			}
			t.Run(phase+"/"+viewer+"/getUser counts.posts", func(t *testing.T) {
				got := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/ALICE", Token: toks[viewer]})
				if phase == "suspended" || viewer == "blocked" {
					// alice is suspended, or blocks the viewer: no such member.
					want := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/nobody", Token: toks[viewer]})
					sameAsMissing(t, got, want, "/api/v1/users/ALICE", "/api/v1/users/nobody")
					return
				}
				var p gen.ProfileResponse
				got.JSON(t, &p)
				n := 0
				for _, vis := range []string{"public", "followers", "private"} {
					if seen(viewer, vis) {
						n++
					}
				}
				if p.Data.Counts.Posts != int64(n) {
					t.Errorf("counts.posts = %d, want %d", p.Data.Counts.Posts, n)
				}
				if p.Data.Viewer.Blocking != (viewer == "blocker") || p.Data.Viewer.Muting != (viewer == "muter") {
					t.Errorf("viewer = %+v", p.Data.Viewer)
				}
			})
			t.Run(phase+"/"+viewer+"/listUserPosts", func(t *testing.T) {
				got := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/alice/posts", Token: toks[viewer]})
				if phase == "suspended" || viewer == "blocked" {
					want := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/nobody/posts", Token: toks[viewer]})
					sameAsMissing(t, got, want, "/api/v1/users/alice/posts", "/api/v1/users/nobody/posts")
					return
				}
				var l gen.PostList
				got.JSON(t, &l)
				listed := map[int64]bool{}
				for _, p := range l.Data {
					listed[p.ID] = true
				}
				n := 0
				for _, vis := range []string{"public", "followers", "private"} {
					if listed[postIDs[vis]] != seen(viewer, vis) {
						t.Errorf("%s post listed: %v, want %v", vis, listed[postIDs[vis]], seen(viewer, vis))
					}
					if seen(viewer, vis) {
						n++
					}
				}
				if len(l.Data) != n {
					t.Errorf("%d posts listed, want %d", len(l.Data), n)
				}
			})
		}
	}
	table("related", viewers, canSee)

	alice := ids["alice"]
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, alice)
	// alice's own token answers 401 account_suspended meanwhile (package auth).
	table("suspended", viewers[1:], func(string, string) bool { return false })
	env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, alice)
	table("lifted", viewers, canSee)

	for _, vis := range []string{"public", "followers", "private"} {
		path := fmt.Sprintf("/api/v1/posts/%d", postIDs[vis])
		if got := env.Do(t, apitest.Request{Method: "DELETE", Path: path, Token: toks["alice"]}); got.Status != 204 || len(got.Body) != 0 {
			t.Fatalf("author deletes %s post: status %d body %q", vis, got.Status, got.Body)
		}
		for _, viewer := range viewers {
			got := env.Do(t, apitest.Request{Method: "GET", Path: path, Token: toks[viewer]})
			want := env.Do(t, apitest.Request{Method: "GET", Path: missingPath, Token: toks[viewer]})
			sameAsMissing(t, got, want, path, missingPath)
		}
	}
	var n int
	env.DB.Get(&n, `SELECT count(*) FROM notifications WHERE post_id IS NOT NULL`)
	if n != 0 {
		t.Errorf("%d notifications outlive their posts", n)
	}
}

func TestCreatePost(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	if _, err := members.NewStore(env.DB).Create(context.Background(),
		members.New{Handle: "alice", Name: "Alice", DefaultVisibility: "followers"}); err != nil {
		t.Fatal(err)
	}
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)

	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok,
		Body: `{"body":"Hi #Go and #go @BOB @nobody","link":"https://example.org/a?b=c#d"}`})
	if resp.Status != 201 {
		t.Fatalf("status %d: %s", resp.Status, resp.Body)
	}
	var got gen.PostResponse
	resp.JSON(t, &got)
	p := got.Data
	if want := apitest.PublicURL + fmt.Sprintf("/api/v1/posts/%d", p.ID); resp.Header.Get("Location") != want {
		t.Errorf("Location = %q, want %q", resp.Header.Get("Location"), want)
	}
	if p.Visibility != gen.Followers {
		t.Errorf("visibility = %q, want the member's default followers", p.Visibility)
	}
	if p.Type != "link" || p.Link == nil || *p.Link != "https://example.org/a?b=c#d" {
		t.Errorf("type %q link %v, want the link as given", p.Type, p.Link)
	}
	wantTags := []gen.Tag{{Name: "go", URL: apitest.PublicURL + "/tags/go"}}
	if diff := cmp.Diff(wantTags, p.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if len(p.Mentions) != 1 || p.Mentions[0].Handle != "bob" {
		t.Errorf("mentions = %+v, want bob only", p.Mentions)
	}
	if !p.Viewer.CanDelete || p.Viewer.Reaction != nil || p.Counts != (gen.PostCounts{}) {
		t.Errorf("viewer %+v counts %+v", p.Viewer, p.Counts)
	}
	if p.URL != fmt.Sprintf("%s/@alice/posts/%d", apitest.PublicURL, p.ID) {
		t.Errorf("url = %q", p.URL)
	}

	explicit := post(t, env, tok, `{"body":"open","visibility":"public"}`)
	if explicit.Visibility != gen.Public || explicit.Type != "text" || explicit.Link != nil {
		t.Errorf("explicit post: %+v", explicit)
	}

	for name, body := range map[string]string{
		"body too long":  `{"body":"` + strings.Repeat("a", 5001) + `"}`,
		"link not http":  `{"body":"x","link":"ftp://example.org/"}`,
		"link too long":  `{"body":"x","link":"https://example.org/` + strings.Repeat("a", 2048) + `"}`,
		"body not given": `{"visibility":"public"}`,
		"body null":      `{"body":null}`,
	} {
		t.Run(name, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: body})
			if resp.Status != 422 || resp.Problem(t).Code != "validation_failed" {
				t.Errorf("status %d: %s", resp.Status, resp.Body)
			}
		})
	}
}

func TestViewsGrowOnlyForOthers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeRead), env.Token(t, "bob", auth.ScopeRead)
	p := post(t, env, env.Token(t, "alice", auth.ScopeWrite), `{"body":"look"}`)
	path := fmt.Sprintf("/api/v1/posts/%d", p.ID)
	views := func(tok string) int {
		var r gen.PostResponse
		env.Do(t, apitest.Request{Method: "GET", Path: path, Token: tok}).JSON(t, &r)
		return int(r.Data.Counts.Views)
	}
	for i := 0; i < 3; i++ {
		if v := views(alice); v != 0 {
			t.Fatalf("author's fetch %d: views = %d, want 0", i, v)
		}
	}
	for i := 1; i <= 3; i++ { // once per viewer and post (views_once_test.go)
		if v := views(bob); v != 1 {
			t.Fatalf("bob's fetch %d: views = %d, want 1", i, v)
		}
	}
	if v := views(alice); v != 1 {
		t.Errorf("author sees views = %d, want 1", v)
	}
}

func TestConcurrentReactions(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	p := post(t, env, env.Token(t, "alice", auth.ScopeWrite), `{"body":"react"}`)
	const n = 20
	toks := make([]string, n)
	for i := range toks {
		h := fmt.Sprintf("m%d", i)
		env.Member(t, h)
		toks[i] = env.Token(t, h, auth.ScopeWrite)
	}
	types := []string{"like", "love", "haha", "wow", "sad", "angry"}
	path := fmt.Sprintf("/api/v1/posts/%d/react", p.ID)
	var wg sync.WaitGroup
	for i, tok := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each member reacts twice (the second replaces the first), in parallel with everyone else.
			for _, typ := range []string{"like", types[i%len(types)]} {
				if resp := env.Send(apitest.Request{Method: "POST", Path: path, Token: tok, Body: `{"type":"` + typ + `"}`}); resp.Status != 200 {
					t.Errorf("react: status %d: %s", resp.Status, resp.Body)
				}
			}
		}()
	}
	wg.Wait()
	var got gen.PostResponse
	env.Do(t, apitest.Request{Method: "GET", Path: path[:len(path)-len("/react")], Token: toks[0]}).JSON(t, &got)
	want := gen.ReactionCounts{Like: 4, Love: 4, Haha: 3, Wow: 3, Sad: 3, Angry: 3}
	if diff := cmp.Diff(want, got.Data.ReactionCounts); diff != "" {
		t.Errorf("reaction_counts (-want +got):\n%s", diff)
	}
	if got.Data.Counts.Reactions != n {
		t.Errorf("counts.reactions = %d, want %d", got.Data.Counts.Reactions, n)
	}
	if got.Data.Viewer.Reaction == nil || *got.Data.Viewer.Reaction != "like" {
		t.Errorf("viewer.reaction = %v, want like", got.Data.Viewer.Reaction)
	}

	// The same type again changes nothing; removal returns null and the new counts.
	var rr gen.ReactionResultResponse
	env.Do(t, apitest.Request{Method: "POST", Path: path, Token: toks[0], Body: `{"type":"like"}`}).JSON(t, &rr)
	if rr.Data.Counts.Reactions != n || rr.Data.ReactionCounts.Like != 4 {
		t.Errorf("same type again: %+v", rr.Data)
	}
	env.Do(t, apitest.Request{Method: "DELETE", Path: path, Token: toks[0]}).JSON(t, &rr)
	if rr.Data.Reaction != nil || rr.Data.Counts.Reactions != n-1 || rr.Data.ReactionCounts.Like != 3 {
		t.Errorf("after removal: %+v", rr.Data)
	}
}

// TestCreatedPostReadsBack: the post a create answers with (told by the
// write statement itself) is the post its author then reads: mentions of members that exist and are
// not suspended, in order and with their stored handles; tags; link; the
// default or given visibility; the author's profile.
func TestCreatedPostReadsBack(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	if _, err := members.NewStore(env.DB).Create(context.Background(),
		members.New{Handle: "Alice", Name: `Alice "A" <b>`, DefaultVisibility: "followers"}); err != nil {
		t.Fatal(err)
	}
	env.DB.MustExec(`UPDATE members SET avatar_url = '/media/avatars/a.png', verified = true WHERE handle = 'Alice'`)
	env.Member(t, "Bob")
	env.Member(t, "carol")
	env.Member(t, "sus")
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'sus'`)
	tok := env.Token(t, "Alice", auth.ScopeWrite)
	for _, body := range []string{
		`{"body":"plain"}`,
		`{"body":"@carol then @BOB, @sus, @nobody, @alice and @carol again #Go #go #tea","visibility":"public"}`,
		`{"body":"see <this> & \"that\" é 🎉","link":"https://example.org/?a=1&b=2","visibility":"private"}`,
	} {
		resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: body})
		if resp.Status != 201 {
			t.Fatalf("create %s: status %d: %s", body, resp.Status, resp.Body)
		}
		var created, read gen.PostResponse
		resp.JSON(t, &created)
		env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", created.Data.ID), Token: tok}).JSON(t, &read)
		if diff := cmp.Diff(read, created); diff != "" {
			t.Errorf("create %s answers unlike the read back (-read +created):\n%s", body, diff)
		}
	}
}
