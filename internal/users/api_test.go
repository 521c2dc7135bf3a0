package users_test

import (
	"context"
	"testing"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/follows"
)

func toggle(t *testing.T, env *apitest.Env, followerID int64, handle string) {
	t.Helper()
	if _, _, err := follows.NewStore(env.DB).Toggle(context.Background(), followerID, handle); err != nil {
		t.Fatalf("follow %s: %v", handle, err)
	}
}

// threeMembers starts an API with alice, bob and sus (suspended), and
// returns bob's id.
func threeMembers(t *testing.T) (*apitest.Env, int64) {
	t.Helper()
	env := apitest.New(t)
	env.Member(t, "alice")
	bob := env.Member(t, "bob")
	env.Member(t, "sus")
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'sus'`)
	return env, bob
}

func TestGetUser(t *testing.T) {
	t.Parallel()
	env, bob := threeMembers(t)
	alice := env.Token(t, "alice", auth.ScopeRead)
	toggle(t, env, bob, "alice")

	var p gen.ProfileResponse
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/Alice", Token: alice}).JSON(t, &p)
	if !p.Data.Viewer.IsSelf || p.Data.Viewer.Following || p.Data.Counts.Followers != 1 || p.Data.URL != apitest.PublicURL+"/@alice" {
		t.Errorf("own profile: %+v", p.Data)
	}
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/bob", Token: alice}).JSON(t, &p)
	if p.Data.Viewer.IsSelf || p.Data.Viewer.Following || !p.Data.Viewer.FollowedBy || p.Data.Counts.Following != 1 {
		t.Errorf("bob's profile: %+v", p.Data)
	}
	for _, h := range []string{"sus", "nobody"} {
		if resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/" + h, Token: alice}); resp.Status != 404 {
			t.Errorf("%s: status %d", h, resp.Status)
		}
	}
}

// TestUserPostsEmptyAndUnknown: a member without posts the caller may see
// has an empty first page; an unknown or suspended member's posts are 404.
func TestUserPostsEmptyAndUnknown(t *testing.T) {
	t.Parallel()
	env, bob := threeMembers(t)
	env.DB.MustExec(`INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'only me', 'private')`, bob)
	alice := env.Token(t, "alice", auth.ScopeRead)
	var l gen.PostList
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/bob/posts", Token: alice}).JSON(t, &l)
	if len(l.Data) != 0 || l.Meta.HasMore || l.Meta.NextCursor != nil {
		t.Errorf("bob's posts as alice sees them: %+v", l)
	}
	for _, h := range []string{"sus", "nobody"} {
		if resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/" + h + "/posts", Token: alice}); resp.Status != 404 {
			t.Errorf("%s: status %d", h, resp.Status)
		}
	}
}
