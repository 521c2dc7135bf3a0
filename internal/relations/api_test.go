package relations_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

type world struct {
	env  *apitest.Env
	ids  map[string]int64
	toks map[string]string
}

func newWorld(t *testing.T, handles ...string) *world {
	t.Helper()
	w := &world{env: apitest.New(t), ids: map[string]int64{}, toks: map[string]string{}}
	for _, h := range handles {
		w.ids[h] = w.env.Member(t, h)
		w.toks[h] = w.env.Token(t, h, auth.ScopeWrite)
	}
	return w
}

func (w *world) do(t *testing.T, who, method, path string) *apitest.Response {
	t.Helper()
	return w.env.Do(t, apitest.Request{Method: method, Path: "/api/v1" + path, Token: w.toks[who]})
}

// relation sets or lifts a block or mute through the API and returns the
// relationship it answers.
func (w *world) relation(t *testing.T, who, method, what, handle string) gen.ProfileViewer {
	t.Helper()
	resp := w.do(t, who, method, "/users/"+handle+"/"+what)
	if resp.Status != 200 {
		t.Fatalf("%s %s %s: status %d: %s", who, method, what, resp.Status, resp.Body)
	}
	var out gen.RelationshipResponse
	resp.JSON(t, &out)
	return out.Data
}

func (w *world) follow(t *testing.T, who, handle string) {
	t.Helper()
	var out gen.FollowResultResponse
	resp := w.do(t, who, "POST", "/users/"+handle+"/follow")
	if resp.Status != 200 {
		t.Fatalf("%s follows %s: status %d: %s", who, handle, resp.Status, resp.Body)
	}
	if resp.JSON(t, &out); !out.Data.Following {
		t.Fatalf("%s follows %s: toggled off", who, handle)
	}
}

func (w *world) profile(t *testing.T, who, handle string) gen.Profile {
	t.Helper()
	var out gen.ProfileResponse
	resp := w.do(t, who, "GET", "/users/"+handle)
	if resp.Status != 200 {
		t.Fatalf("%s reads @%s: status %d: %s", who, handle, resp.Status, resp.Body)
	}
	resp.JSON(t, &out)
	return out.Data
}

func TestBlockCutsBothFollowEdgesAndIsIdempotent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	w.follow(t, "alice", "bob")
	w.follow(t, "bob", "alice")
	want := gen.ProfileViewer{Blocking: true}
	for i := range 2 { // blocking twice is not an error
		if got := w.relation(t, "alice", "POST", "block", "BOB"); got != want {
			t.Fatalf("block #%d answers %+v, want %+v", i+1, got, want)
		}
	}
	p := w.profile(t, "alice", "bob")
	if p.Counts.Followers != 0 || p.Counts.Following != 0 || p.Viewer != want {
		t.Errorf("blocked profile as the blocker sees it: counts %+v viewer %+v", p.Counts, p.Viewer)
	}
	var edges, blockCount int
	w.env.DB.Get(&edges, `SELECT count(*) FROM follows`)
	w.env.DB.Get(&blockCount, `SELECT block_count FROM members WHERE id = $1`, w.ids["alice"])
	if edges != 0 || blockCount != 1 {
		t.Errorf("after the block: %d follow edges, alice's block_count %d; want 0 and 1", edges, blockCount)
	}
	for i := range 2 { // unblocking twice is not an error either
		if got := w.relation(t, "alice", "DELETE", "block", "bob"); got != (gen.ProfileViewer{}) {
			t.Fatalf("unblock #%d answers %+v", i+1, got)
		}
	}
	w.env.DB.Get(&blockCount, `SELECT block_count FROM members WHERE id = $1`, w.ids["alice"])
	if blockCount != 0 {
		t.Errorf("after the unblock alice's block_count = %d", blockCount)
	}
	if p := w.profile(t, "alice", "bob"); p.Counts.Followers != 0 || p.Viewer.Following {
		t.Errorf("an unblock restored a follow: %+v", p)
	}
}

// TestBlockedMemberSeesTheBlockerAsMissing: to the blocked member, the
// blocker's handle answers every relation and profile operation exactly
// as an unknown handle.
func TestBlockedMemberSeesTheBlockerAsMissing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	w.relation(t, "alice", "POST", "block", "bob")
	for _, c := range []struct{ method, suffix string }{
		{"GET", ""}, {"GET", "/posts"}, {"POST", "/follow"},
		{"POST", "/block"}, {"DELETE", "/block"}, {"POST", "/mute"}, {"DELETE", "/mute"},
	} {
		t.Run(c.method+c.suffix, func(t *testing.T) {
			got := w.do(t, "bob", c.method, "/users/alice"+c.suffix)
			want := w.do(t, "bob", c.method, "/users/nobody"+c.suffix)
			if got.Status != 404 || want.Status != 404 {
				t.Fatalf("status %d (unknown handle: %d), want 404", got.Status, want.Status)
			}
			g, m := got.Problem(t), want.Problem(t)
			if g.Code != m.Code || g.Detail != m.Detail || g.Title != m.Title {
				t.Errorf("blocker answers %+v, unknown handle %+v", g, m)
			}
		})
	}
}

func TestCannotBlockOrMuteYourself(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice")
	for what, code := range map[string]string{"block": "cannot_block_self", "mute": "cannot_mute_self"} {
		t.Run(what, func(t *testing.T) {
			resp := w.do(t, "alice", "POST", "/users/ALICE/"+what)
			if resp.Status != 422 || resp.Problem(t).Code != code {
				t.Fatalf("status %d code %q, want 422 %s", resp.Status, resp.Problem(t).Code, code)
			}
		})
	}
	var n int
	w.env.DB.Get(&n, `SELECT (SELECT count(*) FROM blocks) + (SELECT count(*) FROM mutes)`)
	if n != 0 {
		t.Errorf("%d rows written", n)
	}
}

func TestRelationsNeedWriteScope(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	read := w.env.Token(t, "alice", auth.ScopeRead)
	for _, c := range []struct{ method, what string }{{"POST", "block"}, {"DELETE", "block"}, {"POST", "mute"}, {"DELETE", "mute"}} {
		resp := w.env.Do(t, apitest.Request{Method: c.method, Path: "/api/v1/users/bob/" + c.what, Token: read})
		if resp.Status != 403 || resp.Problem(t).Code != "insufficient_scope" {
			t.Errorf("%s %s with a read token: status %d", c.method, c.what, resp.Status)
		}
	}
}

func TestMuteIsSilent(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "alice", "bob")
	w.follow(t, "bob", "alice")
	if got := w.relation(t, "alice", "POST", "mute", "bob"); got != (gen.ProfileViewer{FollowedBy: true, Muting: true}) {
		t.Fatalf("mute answers %+v", got)
	}
	if got := w.relation(t, "alice", "POST", "mute", "bob"); !got.Muting {
		t.Fatalf("muting again answers %+v", got)
	}
	// bob sees nothing of it: same profile as before, the follow kept.
	p := w.profile(t, "bob", "alice")
	if p.Viewer != (gen.ProfileViewer{Following: true}) || p.Counts.Followers != 1 {
		t.Errorf("the muted member sees %+v %+v", p.Viewer, p.Counts)
	}
	if got := w.relation(t, "alice", "DELETE", "mute", "bob"); got.Muting {
		t.Errorf("unmute answers %+v", got)
	}
}

// TestListsOfBlocksAndMutes pages the lists newest first and leaves out a
// suspended member while suspended.
func TestListsOfBlocksAndMutes(t *testing.T) {
	t.Parallel()
	for _, what := range []string{"block", "mute"} {
		t.Run(what, func(t *testing.T) {
			w := newWorld(t, "alice", "m1", "m2", "m3", "m4", "m5")
			for _, h := range []string{"m1", "m2", "m3", "m4", "m5"} {
				w.relation(t, "alice", "POST", what, h)
			}
			// Same-second rows order by member id: the order is total.
			w.env.DB.MustExec(fmt.Sprintf(`UPDATE %ss SET created_at = '2026-01-01T00:00:00Z' WHERE %s_id IN ($1, $2)`,
				what, map[string]string{"block": "blocked", "mute": "muted"}[what]), w.ids["m1"], w.ids["m2"])
			list := "/api/v1/me/" + what + "s?per_page=2"
			var got []string
			for _, page := range w.env.Walk(t, w.toks["alice"], list, 10) {
				var pl gen.ProfileList
				if err := json.Unmarshal(page, &pl); err != nil {
					t.Fatal(err)
				}
				for _, p := range pl.Data {
					got = append(got, p.Handle)
					if p.Viewer.Blocking != (what == "block") || p.Viewer.Muting != (what == "mute") {
						t.Errorf("%s listed with viewer %+v", p.Handle, p.Viewer)
					}
				}
			}
			if want := []string{"m5", "m4", "m3", "m2", "m1"}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("list = %v, want %v", got, want)
			}
			w.env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, w.ids["m4"])
			defer w.env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, w.ids["m4"])
			var pl gen.ProfileList
			w.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me/" + what + "s", Token: w.toks["alice"]}).JSON(t, &pl)
			for _, p := range pl.Data {
				if p.Handle == "m4" {
					t.Errorf("suspended member listed")
				}
			}
			if len(pl.Data) != 4 {
				t.Errorf("%d listed while m4 is suspended, want 4", len(pl.Data))
			}
		})
	}
}
