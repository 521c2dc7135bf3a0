package comments_test

import (
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
)

func createPost(t *testing.T, env *apitest.Env, tok, body string) int64 {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: tok, Body: body})
	if resp.Status != 201 {
		t.Fatalf("create post: %d %s", resp.Status, resp.Body)
	}
	var p gen.PostResponse
	resp.JSON(t, &p)
	return p.Data.ID
}

func comment(t *testing.T, env *apitest.Env, tok string, postID int64, body string) (*apitest.Response, gen.Comment) {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/comments", postID), Token: tok, Body: body})
	var c gen.CommentResponse
	if resp.Status == 201 {
		resp.JSON(t, &c)
	}
	return resp, c.Data
}

func TestCommentsAPI(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeWrite)
	postID := createPost(t, env, alice, `{"body":"hello"}`)
	otherID := createPost(t, env, alice, `{"body":"other"}`)
	hiddenID := createPost(t, env, alice, `{"body":"secret","visibility":"private"}`)

	resp, top := comment(t, env, bob, postID, `{"body":"first #Go @alice"}`)
	if resp.Status != 201 {
		t.Fatalf("comment: %d %s", resp.Status, resp.Body)
	}
	if want := fmt.Sprintf("%s/api/v1/posts/%d/comments/%d", apitest.PublicURL, postID, top.ID); resp.Header.Get("Location") != want {
		t.Errorf("Location = %q, want %q", resp.Header.Get("Location"), want)
	}
	if want := fmt.Sprintf("%s/@alice/posts/%d#comment-%d", apitest.PublicURL, postID, top.ID); top.URL != want {
		t.Errorf("url = %q, want %q", top.URL, want)
	}
	if top.Depth != 0 || top.ParentID != nil || len(top.Tags) != 1 || len(top.Mentions) != 1 || top.User.Handle != "bob" {
		t.Errorf("comment = %+v", top)
	}
	_, reply := comment(t, env, alice, postID, fmt.Sprintf(`{"body":"reply","parent_id":%d}`, top.ID))
	_, deeper := comment(t, env, bob, postID, fmt.Sprintf(`{"body":"deeper","parent_id":%d}`, reply.ID))
	_, second := comment(t, env, alice, postID, `{"body":"second"}`)
	if reply.Depth != 1 || deeper.Depth != 2 || *deeper.ParentID != reply.ID {
		t.Errorf("depths: reply %+v deeper %+v", reply, deeper)
	}

	_, foreign := comment(t, env, alice, otherID, `{"body":"elsewhere"}`)
	for name, body := range map[string]string{
		"parent of another post": fmt.Sprintf(`{"body":"x","parent_id":%d}`, foreign.ID),
		"parent missing":         `{"body":"x","parent_id":999999}`,
		"empty body":             `{"body":""}`,
	} {
		t.Run(name, func(t *testing.T) {
			resp, _ := comment(t, env, bob, postID, body)
			if resp.Status != 422 || resp.Problem(t).Code != "validation_failed" {
				t.Errorf("%s: %d %s", name, resp.Status, resp.Body)
			}
		})
	}
	// A hidden post answers 404 even to an invalid comment.
	for _, body := range []string{`{"body":"x"}`, `{"body":""}`} {
		if resp, _ := comment(t, env, bob, hiddenID, body); resp.Status != 404 {
			t.Errorf("comment on hidden post %s: %d %s", body, resp.Status, resp.Body)
		}
	}

	// Listed oldest first, flat, walking pages of two.
	var got []int64
	path := fmt.Sprintf("/api/v1/posts/%d/comments?per_page=2", postID)
	for {
		var l gen.CommentList
		env.Do(t, apitest.Request{Method: "GET", Path: path, Token: bob}).JSON(t, &l)
		for _, c := range l.Data {
			got = append(got, c.ID)
			if c.ID == top.ID && c.Counts.Replies != 1 {
				t.Errorf("replies of the first comment = %d, want 1", c.Counts.Replies)
			}
		}
		if !l.Meta.HasMore {
			break
		}
		path = (*l.Meta.NextURL)[len(apitest.PublicURL):]
	}
	if diff := cmp.Diff([]int64{top.ID, reply.ID, deeper.ID, second.ID}, got); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	var p gen.PostResponse
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", postID), Token: bob}).JSON(t, &p)
	if p.Data.Counts.Comments != 4 {
		t.Errorf("counts.comments = %d, want 4 (replies included)", p.Data.Counts.Comments)
	}
}

func TestConcurrentComments(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	alice := env.Token(t, "alice", auth.ScopeWrite)
	postID := createPost(t, env, alice, `{"body":"busy"}`)
	_, parent := comment(t, env, alice, postID, `{"body":"parent"}`)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		h := fmt.Sprintf("m%d", i)
		env.Member(t, h)
		tok := env.Token(t, h, auth.ScopeWrite)
		wg.Go(func() {
			body := fmt.Sprintf(`{"body":"reply %d","parent_id":%d}`, i, parent.ID)
			if resp := env.Send(apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/comments", postID), Token: tok, Body: body}); resp.Status != 201 {
				t.Errorf("comment: %d %s", resp.Status, resp.Body)
			}
		})
	}
	wg.Wait()
	var l gen.CommentList
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d/comments?per_page=50", postID), Token: alice}).JSON(t, &l)
	if len(l.Data) != n+1 || l.Data[0].Counts.Replies != n {
		t.Errorf("%d comments, parent has %d replies; want %d and %d", len(l.Data), l.Data[0].Counts.Replies, n+1, n)
	}
	var p gen.PostResponse
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", postID), Token: alice}).JSON(t, &p)
	if p.Data.Counts.Comments != n+1 {
		t.Errorf("counts.comments = %d, want %d", p.Data.Counts.Comments, n+1)
	}
}

// TestCreatedCommentReadsBack: the comment a create answers with (told by
// the write statement itself) is the comment then listed: mentions of
// members that exist and are not suspended, in order and with their stored
// handles; tags; depth and parent; the author's profile; the post's URL.
func TestCreatedCommentReadsBack(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "Alice")
	env.Member(t, "Bob")
	env.Member(t, "carol")
	env.Member(t, "sus")
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'sus'`)
	env.DB.MustExec(`UPDATE members SET name = 'Bob "B" <b>', avatar_url = '/media/avatars/b.png', verified = true WHERE handle = 'Bob'`)
	alice, bob := env.Token(t, "Alice", auth.ScopeWrite), env.Token(t, "Bob", auth.ScopeWrite)
	postID := createPost(t, env, alice, `{"body":"hello","visibility":"followers"}`)
	env.DB.MustExec(`INSERT INTO follows (follower_id, followee_id) SELECT b.id, a.id FROM members a, members b WHERE a.handle = 'Alice' AND b.handle = 'Bob'`)
	_, parent := comment(t, env, alice, postID, `{"body":"parent"}`)
	created := map[int64]gen.Comment{}
	for _, body := range []string{
		`{"body":"plain"}`,
		`{"body":"@carol then @ALICE, @sus, @nobody, @bob and @carol again #Go #go #tea <b>&\"é 🎉"}`,
		fmt.Sprintf(`{"body":"a reply @alice","parent_id":%d}`, parent.ID),
	} {
		resp, c := comment(t, env, bob, postID, body)
		if resp.Status != 201 {
			t.Fatalf("comment %s: %d %s", body, resp.Status, resp.Body)
		}
		created[c.ID] = c
	}
	var l gen.CommentList
	env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d/comments?per_page=50", postID), Token: bob}).JSON(t, &l)
	seen := 0
	for _, c := range l.Data {
		if want, ok := created[c.ID]; ok {
			seen++
			if diff := cmp.Diff(c, want); diff != "" {
				t.Errorf("comment %d answers unlike the list (-listed +created):\n%s", c.ID, diff)
			}
		}
	}
	if seen != len(created) {
		t.Errorf("listed %d of the %d comments", seen, len(created))
	}
}

// relate makes the owner of tok block or mute handle, or lift it (method
// POST or DELETE, action "block" or "mute"), through the API.
func relate(t *testing.T, env *apitest.Env, tok, method, action, handle string) {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: method, Path: "/api/v1/users/" + handle + "/" + action, Token: tok})
	if resp.Status != 200 {
		t.Fatalf("%s %s %s: status %d: %s", method, action, handle, resp.Status, resp.Body)
	}
}

var requestID = regexp.MustCompile(`"request_id":"[^"]*"`)

// TestThreadHidesAuthors: a thread leaves out the comments of an author the
// reader mutes, blocks, is blocked by, or who is suspended, and keeps the
// replies of others to them (parent_id unchanged); lifting the cause brings
// them back. Counts go on counting every comment. A reply to a hidden
// comment answers exactly as a reply to a missing one.
func TestThreadHidesAuthors(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond})
	toks := map[string]string{}
	for _, h := range []string{"alice", "bob", "carol", "reader"} {
		env.Member(t, h)
		toks[h] = env.Token(t, h, auth.ScopeWrite)
	}
	postID := createPost(t, env, toks["alice"], `{"body":"thread"}`)
	_, byBob := comment(t, env, toks["bob"], postID, `{"body":"bob's"}`)
	_, underBob := comment(t, env, toks["carol"], postID, fmt.Sprintf(`{"body":"carol under bob","parent_id":%d}`, byBob.ID))
	_, byCarol := comment(t, env, toks["carol"], postID, `{"body":"carol's"}`)
	_, bobUnder := comment(t, env, toks["bob"], postID, fmt.Sprintf(`{"body":"bob under carol","parent_id":%d}`, byCarol.ID))
	all := []int64{byBob.ID, underBob.ID, byCarol.ID, bobUnder.ID}
	withoutBob := []int64{underBob.ID, byCarol.ID}

	thread := func(viewer string) []int64 {
		t.Helper()
		var ids []int64
		path := fmt.Sprintf("/api/v1/posts/%d/comments?per_page=1", postID) // pages of one: hidden comments leave no gap
		for {
			var l gen.CommentList
			env.Do(t, apitest.Request{Method: "GET", Path: path, Token: toks[viewer]}).JSON(t, &l)
			for _, c := range l.Data {
				ids = append(ids, c.ID)
				if c.ID == underBob.ID && (c.ParentID == nil || *c.ParentID != byBob.ID || c.Depth != 1) {
					t.Errorf("the reply under a hidden comment is %+v, want parent %d at depth 1", c, byBob.ID)
				}
				if c.ID == byCarol.ID && c.Counts.Replies != 1 {
					t.Errorf("carol's comment counts %d replies, want 1 (hidden ones too)", c.Counts.Replies)
				}
			}
			if !l.Meta.HasMore {
				return ids
			}
			path = (*l.Meta.NextURL)[len(apitest.PublicURL):]
		}
	}
	// reply answers a reply to parent as the reader, and the same reply to a
	// comment that does not exist.
	reply := func(parent int64, body string) (got, missing string) {
		t.Helper()
		norm := func(parent int64) string {
			resp, _ := comment(t, env, toks["reader"], postID, fmt.Sprintf(`{"body":%q,"parent_id":%d}`, body, parent))
			return fmt.Sprintf("%d %s", resp.Status, requestID.ReplaceAllString(string(resp.Body), ""))
		}
		return norm(parent), norm(byBob.ID + 100_000)
	}
	check := func(stage string, want []int64, hidden bool) {
		t.Helper()
		if diff := cmp.Diff(want, thread("reader")); diff != "" {
			t.Errorf("%s: the reader's thread (-want +got):\n%s", stage, diff)
		}
		var p gen.PostResponse
		env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/posts/%d", postID), Token: toks["reader"]}).JSON(t, &p)
		if p.Data.Counts.Comments < len(all) {
			t.Errorf("%s: counts.comments = %d, want every comment counted", stage, p.Data.Counts.Comments)
		}
		if !hidden {
			return
		}
		for _, body := range []string{"a reply", " "} {
			got, missing := reply(byBob.ID, body)
			if got != missing || !strings.HasPrefix(got, "422 ") {
				t.Errorf("%s: a reply %q to a hidden comment answers\n%s\nwant as to a missing one:\n%s", stage, body, got, missing)
			}
		}
	}
	check("nothing hidden", all, false)
	for _, c := range []struct {
		name       string
		hide, lift func()
	}{
		{"muted", func() { relate(t, env, toks["reader"], "POST", "mute", "bob") },
			func() { relate(t, env, toks["reader"], "DELETE", "mute", "bob") }},
		{"blocked", func() { relate(t, env, toks["reader"], "POST", "block", "bob") },
			func() { relate(t, env, toks["reader"], "DELETE", "block", "bob") }},
		{"blocker", func() { relate(t, env, toks["bob"], "POST", "block", "reader") },
			func() { relate(t, env, toks["bob"], "DELETE", "block", "reader") }},
		{"suspended", func() { env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'bob'`) },
			func() { env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE handle = 'bob'`) }},
	} {
		c.hide()
		check(c.name, withoutBob, true)
		if c.name == "suspended" {
			// Hidden from every reader, the post's author too.
			if diff := cmp.Diff(withoutBob, thread("alice")); diff != "" {
				t.Errorf("suspended: alice's thread (-want +got):\n%s", diff)
			}
		}
		c.lift()
		check(c.name+" lifted", all, false)
	}
	// Visible again, bob's comment takes replies.
	if resp, _ := comment(t, env, toks["reader"], postID, fmt.Sprintf(`{"body":"back","parent_id":%d}`, byBob.ID)); resp.Status != 201 {
		t.Errorf("reply to bob's comment after the lifts: %d %s", resp.Status, resp.Body)
	}
}

// TestCommentNotificationsRespectRelations: a comment, reply or mention
// notifies no recipient who mutes or blocks its author, or whom its author
// blocks; a mention of a member who blocks the author is text, as an
// unknown handle is (not linked, nobody notified).
func TestCommentNotificationsRespectRelations(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond})
	ids, toks := map[string]int64{}, map[string]string{}
	for _, h := range []string{"author", "replied", "muter", "blocker", "blocked", "friend", "writer"} {
		ids[h] = env.Member(t, h)
		toks[h] = env.Token(t, h, auth.ScopeWrite)
	}
	notified := func(recipient string) []string {
		t.Helper()
		var types []string
		if err := env.DB.Select(&types, `SELECT type FROM notifications WHERE recipient_id = $1 AND actor_id = $2 ORDER BY id`,
			ids[recipient], ids["writer"]); err != nil {
			t.Fatal(err)
		}
		return types
	}
	postID := createPost(t, env, toks["author"], `{"body":"post"}`)
	_, parent := comment(t, env, toks["replied"], postID, `{"body":"parent"}`)

	// Nothing stands between them: everyone is told.
	body := fmt.Sprintf(`{"body":"hi @muter @blocker @blocked @friend","parent_id":%d}`, parent.ID)
	resp, c := comment(t, env, toks["writer"], postID, body)
	if resp.Status != 201 {
		t.Fatalf("comment: %d %s", resp.Status, resp.Body)
	}
	if len(c.Mentions) != 4 {
		t.Errorf("mentions %+v, want all four", c.Mentions)
	}
	for r, want := range map[string][]string{"author": {"comment"}, "replied": {"reply"}, "muter": {"mention"},
		"blocker": {"mention"}, "blocked": {"mention"}, "friend": {"mention"}} {
		if diff := cmp.Diff(want, notified(r)); diff != "" {
			t.Errorf("before the relations, %s notified (-want +got):\n%s", r, diff)
		}
	}
	env.DB.MustExec(`DELETE FROM notifications`)

	relate(t, env, toks["author"], "POST", "mute", "writer")
	relate(t, env, toks["replied"], "POST", "mute", "writer")
	relate(t, env, toks["muter"], "POST", "mute", "writer")
	relate(t, env, toks["blocker"], "POST", "block", "writer")
	relate(t, env, toks["writer"], "POST", "block", "blocked")
	resp, c = comment(t, env, toks["writer"], postID, body)
	if resp.Status != 201 {
		t.Fatalf("comment: %d %s", resp.Status, resp.Body)
	}
	var handles []string
	for _, m := range c.Mentions {
		handles = append(handles, m.Handle)
	}
	// blocker blocks the writer: to the writer, no such member.
	if diff := cmp.Diff([]string{"muter", "blocked", "friend"}, handles); diff != "" {
		t.Errorf("mentions (-want +got):\n%s", diff)
	}
	for r, want := range map[string][]string{"author": nil, "replied": nil, "muter": nil,
		"blocker": nil, "blocked": nil, "friend": {"mention"}} {
		if diff := cmp.Diff(want, notified(r)); diff != "" {
			t.Errorf("%s notified (-want +got):\n%s", r, diff)
		}
	}
}
