package follows_test

import (
	"sync"
	"testing"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/httpapi"
)

// sameAsMissing fails unless got answers exactly as missing did: the same
// status and problem, apart from the request id and the path.
func sameAsMissing(t *testing.T, got, missing *apitest.Response) {
	t.Helper()
	g, m := got.Problem(t), missing.Problem(t)
	g.RequestID, m.RequestID, g.Instance, m.Instance = "", "", "", ""
	if got.Status != missing.Status || g.Type != m.Type || g.Title != m.Title || g.Detail != m.Detail ||
		g.Code != m.Code || g.Status != m.Status || len(g.Errors) != len(m.Errors) {
		t.Errorf("answered %d %+v, an unknown handle %d %+v", got.Status, g, missing.Status, m)
	}
}

// TestFollowAcrossABlock: a member who blocks the caller, or a suspended
// one, is followed exactly like an unknown handle (404); following a member
// the caller blocks is 422 member_blocked; neither writes anything.
func TestFollowAcrossABlock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ids := map[string]int64{}
	for _, h := range []string{"alice", "bob", "carol", "sus"} {
		ids[h] = env.Member(t, h)
	}
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'sus'`)
	tok := map[string]string{}
	for _, h := range []string{"alice", "bob", "carol"} {
		tok[h] = env.Token(t, h, auth.ScopeWrite)
	}
	do := func(who, method, path string) *apitest.Response {
		return env.Do(t, apitest.Request{Method: method, Path: "/api/v1" + path, Token: tok[who]})
	}
	if resp := do("bob", "POST", "/users/alice/block"); resp.Status != 200 {
		t.Fatalf("bob blocks alice: %d %s", resp.Status, resp.Body)
	}

	t.Run("blocker is missing", func(t *testing.T) {
		sameAsMissing(t, do("alice", "POST", "/users/bob/follow"), do("alice", "POST", "/users/nobody/follow"))
	})
	t.Run("suspended is missing", func(t *testing.T) {
		sameAsMissing(t, do("alice", "POST", "/users/sus/follow"), do("alice", "POST", "/users/nobody/follow"))
	})
	t.Run("blocked is member_blocked", func(t *testing.T) {
		resp := do("bob", "POST", "/users/ALICE/follow")
		p := resp.Problem(t)
		if resp.Status != 422 || p.Code != "member_blocked" || p.Detail != "You block this member; unblock them first." {
			t.Errorf("status %d: %s, want 422 member_blocked", resp.Status, resp.Body)
		}
	})
	t.Run("others unaffected", func(t *testing.T) {
		if resp := do("carol", "POST", "/users/alice/follow"); resp.Status != 200 {
			t.Errorf("carol follows alice: %d %s", resp.Status, resp.Body)
		}
	})
	var edges int
	env.DB.Get(&edges, `SELECT count(*) FROM follows WHERE $1 IN (follower_id, followee_id)`, ids["bob"])
	if edges != 0 {
		t.Errorf("bob has %d follow edges across his block", edges)
	}
	if resp := do("bob", "DELETE", "/users/alice/block"); resp.Status != 200 {
		t.Fatalf("bob unblocks alice: %d %s", resp.Status, resp.Body)
	}
	for _, pair := range [][2]string{{"alice", "bob"}, {"bob", "alice"}} {
		if resp := do(pair[0], "POST", "/users/"+pair[1]+"/follow"); resp.Status != 200 {
			t.Errorf("%s follows %s after the unblock: %d %s", pair[0], pair[1], resp.Status, resp.Body)
		}
	}
	checkConsistent(t, env.DB)
}

// TestFollowRacesABlock: alice blocks bob while bob toggles his follow of
// alice and alice toggles hers of bob, many rounds over. A follow statement
// that took its snapshot before the block committed and then waited for the
// members' locks must see that it raced the block and run again, which
// refuses: once the block stands, no follow edge exists either way, and
// every counter equals its rows.
func TestFollowRacesABlock(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{Configure: func(c *httpapi.Config) {
		c.RateLimits.Read, c.RateLimits.Write = 1_000_000, 1_000_000 // the most RATE_LIMIT_READ and _WRITE accept
	}})
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeWrite)
	send := func(tok, method, path string) *apitest.Response {
		return env.Send(apitest.Request{Method: method, Path: "/api/v1" + path, Token: tok})
	}
	const rounds, toggles = 60, 4
	for round := range rounds {
		var wg sync.WaitGroup
		wg.Go(func() {
			if resp := send(alice, "POST", "/users/bob/block"); resp.Status != 200 {
				t.Errorf("round %d: alice blocks bob: %d %s", round, resp.Status, resp.Body)
			}
		})
		toggle := func(tok, handle string, refused int) {
			for range toggles {
				resp := send(tok, "POST", "/users/"+handle+"/follow")
				if err := apitest.Check(apitest.Request{Method: "POST", Path: "/api/v1/users/" + handle + "/follow"}, resp); err != nil {
					t.Errorf("round %d: toggle of %s: %v", round, handle, err)
				}
				if resp.Status != 200 && resp.Status != refused {
					t.Errorf("round %d: toggle of %s: %d %s", round, handle, resp.Status, resp.Body)
				}
			}
		}
		wg.Go(func() { toggle(bob, "alice", 404) })
		wg.Go(func() { toggle(alice, "bob", 422) })
		wg.Wait()
		var edges int
		if err := env.DB.Get(&edges, `SELECT count(*) FROM follows`); err != nil {
			t.Fatal(err)
		}
		if edges != 0 {
			t.Fatalf("round %d: %d follow edges between alice and bob while alice blocks bob", round, edges)
		}
		checkConsistent(t, env.DB) // seed.CheckCounters, as `socialapi check` runs it
		if resp := send(alice, "DELETE", "/users/bob/block"); resp.Status != 200 {
			t.Fatalf("round %d: alice unblocks bob: %d %s", round, resp.Status, resp.Body)
		}
		// Start the next round with edges both ways, for the block to cut.
		for _, f := range [][2]string{{"alice", "bob"}, {"bob", "alice"}} {
			if resp := send(map[string]string{"alice": alice, "bob": bob}[f[0]], "POST", "/users/"+f[1]+"/follow"); resp.Status != 200 {
				t.Fatalf("round %d: %s follows %s: %d %s", round, f[0], f[1], resp.Status, resp.Body)
			}
		}
	}
}
