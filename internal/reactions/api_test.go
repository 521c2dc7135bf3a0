package reactions_test

import (
	"fmt"
	"testing"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestReactToHiddenPost: a post the caller may not see (its author blocks
// the caller or is blocked by them, or is suspended) answers a reaction,
// and its removal, exactly as a post that does not exist, and nothing is
// written.
func TestReactToHiddenPost(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ids := map[string]int64{}
	tok := map[string]string{}
	for _, h := range []string{"alice", "bob", "carol", "sus"} {
		ids[h] = env.Member(t, h)
		tok[h] = env.Token(t, h, auth.ScopeWrite)
	}
	post := map[string]int64{}
	for _, h := range []string{"alice", "bob", "sus"} {
		post[h] = newPost(t, env.DB, ids[h], "public")
	}
	env.DB.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)`, ids["alice"], ids["bob"])
	env.DB.MustExec(`UPDATE members SET block_count = 1 WHERE id = $1`, ids["alice"])
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, ids["sus"])
	var missing int64
	env.DB.Get(&missing, `SELECT max(id) + 1000 FROM posts`)

	for name, c := range map[string]struct {
		who    string
		postID int64
	}{
		"blocked reacts to the blocker's post": {"bob", post["alice"]},
		"blocker reacts to the blocked's post": {"alice", post["bob"]},
		"to a suspended member's post":         {"carol", post["sus"]},
	} {
		t.Run(name, func(t *testing.T) {
			for _, method := range []string{"POST", "DELETE"} {
				body := ""
				if method == "POST" {
					body = `{"type":"like"}`
				}
				send := func(id int64) *apitest.Response {
					return env.Do(t, apitest.Request{Method: method, Path: fmt.Sprintf("/api/v1/posts/%d/react", id), Token: tok[c.who], Body: body})
				}
				got, want := send(c.postID), send(missing)
				g, w := got.Problem(t), want.Problem(t)
				if got.Status != 404 || got.Status != want.Status || g.Type != w.Type || g.Title != w.Title ||
					g.Detail != w.Detail || g.Code != w.Code || len(g.Errors) != len(w.Errors) {
					t.Errorf("%s: answered %d %+v, a missing post %d %+v", method, got.Status, g, want.Status, w)
				}
			}
		})
	}
	// Control: carol, whom nothing separates from alice, may react.
	resp := env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/posts/%d/react", post["alice"]), Token: tok["carol"], Body: `{"type":"like"}`})
	if resp.Status != 200 {
		t.Errorf("carol reacts to alice's post: %d %s", resp.Status, resp.Body)
	}
	var rows int
	env.DB.Get(&rows, `SELECT count(*) FROM reactions`)
	if rows != 1 {
		t.Errorf("reactions rows = %d, want carol's one", rows)
	}
	checkCounters(t, env.DB)
}
