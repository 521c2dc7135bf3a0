package comments_test

import (
	"fmt"
	"sync"
	"testing"

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
