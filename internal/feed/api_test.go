package feed_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/comments"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/timeline"
)

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

type world struct {
	env  *apitest.Env
	ids  map[string]int64
	toks map[string]string
}

func newWorld(t *testing.T, handles ...string) *world {
	w := &world{env: apitest.New(t), ids: map[string]int64{}, toks: map[string]string{}}
	for _, h := range handles {
		w.ids[h] = w.env.Member(t, h)
		w.toks[h] = w.env.Token(t, h, auth.ScopeRead)
	}
	return w
}

func (w *world) follow(t *testing.T, follower, followee string) {
	t.Helper()
	if _, _, err := follows.NewStore(w.env.DB).Toggle(context.Background(), w.ids[follower], followee); err != nil {
		t.Fatal(err)
	}
}

// post stores a post by author at the time at (zero: now).
func (w *world) post(t *testing.T, author, vis, body string, at time.Time) int64 {
	t.Helper()
	np := posts.NewPost{Body: body, Visibility: &vis}
	if !at.IsZero() {
		np.CreatedAt = &at
	}
	p, err := posts.NewStore(w.env.DB, nil).Create(context.Background(), w.ids[author], np)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// walk follows next_url from path to the end and returns every post id,
// calling between after each page.
func (w *world) walk(t *testing.T, viewer, path string, between func(page int)) []int64 {
	t.Helper()
	var ids []int64
	for page := 0; ; page++ {
		var list gen.PostList
		resp := w.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: w.toks[viewer]})
		if resp.Status != 200 {
			t.Fatalf("GET %s: status %d: %s", path, resp.Status, resp.Body)
		}
		resp.JSON(t, &list)
		for _, p := range list.Data {
			ids = append(ids, p.ID)
		}
		m := list.Meta
		if (m.NextCursor == nil) != (m.NextURL == nil) || m.HasMore != (m.NextURL != nil) {
			t.Fatalf("inconsistent meta: %+v", m)
		}
		if !m.HasMore {
			if l := apitest.NextLink(resp.Header); l != "" {
				t.Errorf("next Link header on the last page: %s", l)
			}
			return ids
		}
		if want := "<" + *m.NextURL + `>; rel="next"`; apitest.NextLink(resp.Header) != want {
			t.Errorf("Link = %q, want %q", apitest.NextLink(resp.Header), want)
		}
		u, err := url.Parse(*m.NextURL)
		if err != nil || !strings.HasPrefix(*m.NextURL, apitest.PublicURL+"/api/v1/") {
			t.Fatalf("next_url %q", *m.NextURL)
		}
		path = u.RequestURI()
		if between != nil {
			between(page)
		}
		if page > 100 {
			t.Fatal("walk does not end")
		}
	}
}

// TestHomeWalk walks the home timeline page by page while new posts arrive:
// every post visible when the walk began comes exactly once, newest first,
// although most of the stored posts are hidden from the walker (pages are
// filled after visibility filtering).
func TestHomeWalk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob", "carol", "dave")
	w.follow(t, "alice", "bob")
	w.follow(t, "alice", "carol")
	w.follow(t, "dave", "bob") // dave follows bob, alice does not follow dave

	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var want []int64 // newest first
	authors := []string{"alice", "bob", "carol", "dave"}
	visibilities := []string{"public", "followers", "private"}
	type stored struct {
		id      int64
		at      time.Time
		visible bool
	}
	var all []stored
	for i := 0; i < 60; i++ {
		author, vis := authors[i%4], visibilities[(i/4)%3]
		// Several posts share a timestamp, so the id breaks ties.
		at := base.Add(time.Duration(i/3) * time.Minute)
		id := w.post(t, author, vis, fmt.Sprintf("post %d", i), at)
		visible := author == "alice" || (author != "dave" && vis != "private")
		all = append(all, stored{id, at, visible})
	}
	for i := len(all) - 1; i >= 0; i-- {
		// Within one timestamp, larger ids come first: they were inserted later.
		if all[i].visible {
			want = append(want, all[i].id)
		}
	}
	got := w.walk(t, "alice", "/api/v1/feed?per_page=4", func(page int) {
		w.post(t, "bob", "public", fmt.Sprintf("new %d", page), time.Time{}) // newer than the walk's position
		w.post(t, "alice", "private", fmt.Sprintf("mine %d", page), base.Add(time.Hour))
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

func TestDiscoverAndUserPostsWalk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	w.follow(t, "bob", "alice")
	// Nothing to show yet: an empty page (the store's slower path).
	for _, path := range []string{"/api/v1/feed?tab=discover", "/api/v1/feed", "/api/v1/users/alice/posts"} {
		if got := w.walk(t, "bob", path, nil); len(got) != 0 {
			t.Errorf("%s before any post: %v", path, got)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var public, toBob []int64
	for i := 0; i < 23; i++ {
		vis := []string{"public", "followers", "private"}[i%3]
		id := w.post(t, "alice", vis, "p", base.Add(time.Duration(i/2)*time.Second))
		if vis == "public" {
			public = append([]int64{id}, public...)
		}
		if vis != "private" {
			toBob = append([]int64{id}, toBob...)
		}
	}
	if diff := cmp.Diff(public, w.walk(t, "bob", "/api/v1/feed?tab=discover&per_page=3", nil)); diff != "" {
		t.Errorf("discover (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(toBob, w.walk(t, "bob", "/api/v1/users/ALICE/posts?per_page=5", nil)); diff != "" {
		t.Errorf("alice's posts for bob (-want +got):\n%s", diff)
	}
	if got := w.walk(t, "alice", "/api/v1/users/alice/posts?per_page=50", nil); len(got) != 23 {
		t.Errorf("alice's own posts: %d, want 23", len(got))
	}
}

func TestListParameters(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	for i := 0; i < 3; i++ {
		w.post(t, "alice", "public", "p", time.Time{})
	}
	postID := w.post(t, "alice", "public", "p", time.Time{})
	for i := 0; i < 3; i++ {
		if _, err := comments.NewStore(w.env.DB).Create(context.Background(), w.ids["bob"], postID, comments.NewComment{Body: "c"}); err != nil {
			t.Fatal(err)
		}
	}
	cursorOf := func(path string) string {
		var l struct {
			Meta gen.ListMeta `json:"meta"`
		}
		w.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: w.toks["alice"]}).JSON(t, &l)
		if l.Meta.NextCursor == nil {
			t.Fatalf("%s: no next cursor", path)
		}
		return url.QueryEscape(*l.Meta.NextCursor)
	}
	home := cursorOf("/api/v1/feed?per_page=1")
	discover := cursorOf("/api/v1/feed?tab=discover&per_page=1")
	userPosts := cursorOf("/api/v1/users/alice/posts?per_page=1")
	comments := cursorOf(fmt.Sprintf("/api/v1/posts/%d/comments?per_page=1", postID))
	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/api/v1/feed?tab=home&per_page=2&cursor=" + home, 200, ""}, // tab=home is the default tab
		{"/api/v1/feed?tab=discover&cursor=" + home, 400, "invalid_cursor"},
		{"/api/v1/feed?cursor=" + discover, 400, "invalid_cursor"},
		{"/api/v1/users/bob/posts?cursor=" + userPosts, 400, "invalid_cursor"},
		{"/api/v1/users/nobody/posts?cursor=" + userPosts, 404, "not_found"},
		{"/api/v1/feed?cursor=" + userPosts, 400, "invalid_cursor"},
		{fmt.Sprintf("/api/v1/posts/%d/comments?cursor=%s", postID-1, comments), 400, "invalid_cursor"},
		{fmt.Sprintf("/api/v1/posts/%d/comments?cursor=%s", postID+100, comments), 404, "not_found"},
		{"/api/v1/feed?cursor=garbage", 400, "invalid_cursor"},
		{"/api/v1/feed?per_page=51", 400, "invalid_parameter"},
		{"/api/v1/feed?tab=discover&per_page=51", 400, "invalid_parameter"},
		{"/api/v1/users/alice/posts?per_page=51", 400, "invalid_parameter"},
		{"/api/v1/users/nobody/posts?per_page=51", 404, "not_found"},
		{fmt.Sprintf("/api/v1/posts/%d/comments?per_page=51", postID), 400, "invalid_parameter"},
		{"/api/v1/feed?per_page=50", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := w.env.Do(t, apitest.Request{Method: "GET", Path: tt.path, Token: w.toks["alice"]})
			if resp.Status != tt.status || (tt.code != "" && resp.Problem(t).Code != tt.code) {
				t.Errorf("GET %s: status %d %s, want %d %s", tt.path, resp.Status, resp.Body, tt.status, tt.code)
			}
		})
	}
}

// relate makes viewer block or mute handle through the API (action "block"
// or "mute"), so that the relations' handlers run too.
func (w *world) relate(t *testing.T, viewer, action, handle string) {
	t.Helper()
	tok := w.env.Token(t, viewer, auth.ScopeWrite)
	resp := w.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/" + handle + "/" + action, Token: tok})
	if resp.Status != 200 {
		t.Fatalf("%s %s %s: status %d: %s", viewer, action, handle, resp.Status, resp.Body)
	}
}

// TestListsVisibility: for each visibility and each kind of viewer, a post's
// canary text appears in a list exactly when the viewer may see the post;
// the comments of a hidden post answer like those of a missing post. Besides
// the author, a follower and a stranger, the viewers are followers of alice
// whom she then blocks ("blocked"), who then block her ("blocker") and who
// mute her ("muter"): home, discover and threads are streams and hide her
// from all three; her posts list is not, and a member she blocks finds no
// such member there. Then alice is suspended (gone from every list, her
// posts list missing) and the suspension lifted (everything is back).
func TestListsVisibility(t *testing.T) {
	t.Parallel()
	viewers := []string{"alice", "bob", "carol", "blocked", "blocker", "muter"}
	w := newWorld(t, viewers...)
	w.follow(t, "bob", "alice") // bob follows alice; carol is a stranger
	w.follow(t, "carol", "bob")
	w.follow(t, "alice", "bob")
	for _, v := range []string{"blocked", "blocker", "muter"} {
		w.follow(t, v, "alice")
	}
	posted := map[string]int64{}
	for _, vis := range []string{"public", "followers", "private"} {
		posted[vis] = w.post(t, "alice", vis, "canary-"+vis, time.Time{})
		if _, err := comments.NewStore(w.env.DB).Create(context.Background(), w.ids["alice"], posted[vis],
			comments.NewComment{Body: "comment-canary-" + vis}); err != nil {
			t.Fatal(err)
		}
	}
	// The posts are in the followers' timelines before the relations exist.
	if err := timeline.Drain(context.Background(), w.env.DB); err != nil {
		t.Fatal(err)
	}
	w.relate(t, "alice", "block", "blocked")
	w.relate(t, "blocker", "block", "alice")
	w.relate(t, "muter", "mute", "alice")
	missing := posted["private"] + 1000
	canSee := func(viewer, vis string) bool {
		return vis == "public" && viewer != "blocked" && viewer != "blocker" || viewer == "alice" ||
			(vis == "followers" && (viewer == "bob" || viewer == "muter"))
	}
	norm := func(r *apitest.Response, path string) string {
		return fmt.Sprintf("%d %s", r.Status, strings.ReplaceAll(requestID.ReplaceAllString(string(r.Body), ""), path, "{path}"))
	}
	const userPosts = "/api/v1/users/alice/posts?per_page=50"
	table := func(phase string, viewers []string, suspended bool) {
		for _, viewer := range viewers {
			lists := map[string]string{}
			for _, path := range []string{"/api/v1/feed?per_page=50", "/api/v1/feed?tab=discover&per_page=50", userPosts} {
				resp := w.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: w.toks[viewer]})
				lists[path] = string(resp.Body)
				if path != userPosts {
					continue
				}
				if suspended || viewer == "blocked" {
					// alice is suspended, or blocks the viewer: no such member.
					mp := "/api/v1/users/nobody/posts?per_page=50"
					want := w.env.Do(t, apitest.Request{Method: "GET", Path: mp, Token: w.toks[viewer]})
					if resp.Status != 404 || norm(resp, "alice") != norm(want, "nobody") {
						t.Errorf("%s: %s lists alice's posts: %d %s, want as missing: %s", phase, viewer, resp.Status, resp.Body, want.Body)
					}
					// Invalid too: 404 before 400, as for a missing member (the
					// request's probe, and the handler's check of a bad cursor).
					for _, q := range []string{"?per_page=51", "?cursor=garbage"} {
						got := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/alice/posts" + q, Token: w.toks[viewer]})
						want := w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/nobody/posts" + q, Token: w.toks[viewer]})
						if got.Status != 404 || norm(got, "alice") != norm(want, "nobody") {
							t.Errorf("%s: %s lists alice's posts%s: %d %s, want as missing: %s", phase, viewer, q, got.Status, got.Body, want.Body)
						}
					}
				} else if resp.Status != 200 {
					t.Errorf("%s: %s lists alice's posts: %d %s", phase, viewer, resp.Status, resp.Body)
				}
			}
			for _, vis := range []string{"public", "followers", "private"} {
				canary := `"canary-` + vis + `"`
				seen := canSee(viewer, vis) && !suspended
				for path, body := range lists {
					want := seen
					switch {
					case strings.Contains(path, "discover"):
						want = want && vis == "public" && viewer != "muter"
					case strings.Contains(path, "/feed"):
						want = want && (viewer == "alice" || viewer == "bob") // carol does not follow alice; muter mutes her
					}
					if got := strings.Contains(body, canary); got != want {
						t.Errorf("%s: %s sees %s in %s: %v, want %v", phase, viewer, canary, path, got, want)
					}
				}
				path := fmt.Sprintf("/api/v1/posts/%d/comments", posted[vis])
				resp := w.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: w.toks[viewer]})
				if seen {
					// A thread is a stream: the muter sees the post, not alice's comment.
					wantComment := viewer != "muter"
					if resp.Status != 200 || strings.Contains(string(resp.Body), "comment-canary-"+vis) != wantComment {
						t.Errorf("%s: %s lists comments of %s post: %d %s", phase, viewer, vis, resp.Status, resp.Body)
					}
					continue
				}
				mp := fmt.Sprintf("/api/v1/posts/%d/comments", missing)
				want := w.env.Do(t, apitest.Request{Method: "GET", Path: mp, Token: w.toks[viewer]})
				if resp.Status != 404 || norm(resp, path) != norm(want, mp) {
					t.Errorf("%s: %s lists comments of hidden %s post: %d %s, want as missing: %s", phase, viewer, vis, resp.Status, resp.Body, want.Body)
				}
			}
		}
	}
	table("related", viewers, false)
	w.env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, w.ids["alice"])
	// alice's own token answers 401 account_suspended meanwhile (package auth).
	table("suspended", viewers[1:], true)
	w.env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, w.ids["alice"])
	table("lifted", viewers, false)
}
