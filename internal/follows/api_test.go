package follows_test

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

func toggle(t *testing.T, env *apitest.Env, tok, handle string) gen.FollowResult {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/" + handle + "/follow", Token: tok})
	if resp.Status != 200 {
		t.Fatalf("toggle %s: status %d: %s", handle, resp.Status, resp.Body)
	}
	var out gen.FollowResultResponse
	resp.JSON(t, &out)
	return out.Data
}

func TestToggleFollowAPI(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	env.Member(t, "sus")
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'sus'`)
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeWrite)

	toggle(t, env, bob, "alice") // bob follows alice first
	got := toggle(t, env, alice, "BoB")
	want := gen.FollowResult{Following: true, User: gen.Profile{Handle: "bob",
		Counts: gen.ProfileCounts{Followers: 1, Following: 1},
		Viewer: gen.ProfileViewer{IsSelf: false, Following: true, FollowedBy: true}}}
	opts := cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().String() {
		case ".ID", ".Name", ".Avatar", ".Verified", ".URL", ".Bio", ".CreatedAt":
			return true
		}
		return false
	}, cmp.Ignore())
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("follow (-want +got):\n%s", diff)
	}
	got = toggle(t, env, alice, "bob")
	if got.Following || got.User.Viewer.Following || got.User.Counts.Followers != 0 {
		t.Errorf("unfollow: %+v", got)
	}

	for name, tt := range map[string]struct {
		handle string
		status int
		code   string
	}{
		"self":       {"ALICE", 422, "cannot_follow_self"},
		"unknown":    {"nobody", 404, "not_found"},
		"suspended":  {"sus", 404, "not_found"},
		"bad handle": {"no-dash", 400, "invalid_parameter"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/" + tt.handle + "/follow", Token: alice})
			if resp.Status != tt.status || resp.Problem(t).Code != tt.code {
				t.Errorf("status %d: %s, want %d %s", resp.Status, resp.Body, tt.status, tt.code)
			}
		})
	}
}

// TestConcurrentToggles: ten simultaneous toggles by one pair end in a
// consistent state (an even number: not following) with exact counters.
func TestConcurrentToggles(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	const n = 10
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		following int
	)
	for range n {
		wg.Go(func() {
			resp := env.Send(apitest.Request{Method: "POST", Path: "/api/v1/users/bob/follow", Token: tok})
			if resp.Status != 200 {
				t.Errorf("status %d: %s", resp.Status, resp.Body)
				return
			}
			var out gen.FollowResultResponse
			resp.JSON(t, &out)
			// Each answer must be self-consistent: the profile shows the toggle's own result.
			if out.Data.Following != out.Data.User.Viewer.Following || out.Data.User.Counts.Followers != map[bool]int{true: 1}[out.Data.Following] {
				t.Errorf("inconsistent answer: %+v", out.Data)
			}
			mu.Lock()
			if out.Data.Following {
				following++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if following != n/2 {
		t.Errorf("%d of %d toggles answered following, want %d", following, n, n/2)
	}
	var p gen.ProfileResponse
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/users/bob", Token: tok}).JSON(t, &p)
	if p.Data.Viewer.Following || p.Data.Counts.Followers != 0 {
		t.Errorf("after %d toggles: %+v", n, p.Data)
	}
	var rows, counters int
	env.DB.Get(&rows, `SELECT count(*) FROM follows`)
	env.DB.Get(&counters, `SELECT sum(follower_count) + sum(following_count) FROM members`)
	if rows != 0 || counters != 0 {
		t.Errorf("follows rows %d, counters %d, want 0 and 0", rows, counters)
	}
}
