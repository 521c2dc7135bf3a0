package relations_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/seed"
)

// TestBlockRacesWritesOfTheBlocked blocks bob while bob follows alice,
// reacts to her post and comments on it, all at once, round after round:
// afterwards no follow edge joins them either way, every counter matches
// its rows (what `socialapi check` runs), and bob's next writes aimed at
// alice answer as if she did not exist.
func TestBlockRacesWritesOfTheBlocked(t *testing.T) {
	t.Parallel()
	w := &world{env: apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond}), ids: map[string]int64{}, toks: map[string]string{}}
	for _, h := range []string{"alice", "bob"} {
		w.ids[h] = w.env.Member(t, h)
		w.toks[h] = w.env.Token(t, h, auth.ScopeWrite)
	}
	for round := range 15 {
		resp := w.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: w.toks["alice"], Body: `{"body":"round"}`})
		if resp.Status != 201 {
			t.Fatalf("post: %d %s", resp.Status, resp.Body)
		}
		var p struct {
			Data struct{ ID int64 } `json:"data"`
		}
		resp.JSON(t, &p)
		post := fmt.Sprintf("/api/v1/posts/%d", p.Data.ID)
		var wg sync.WaitGroup
		send := func(who, method, path, body string) {
			defer wg.Done()
			// Any answer the contract allows; the state afterwards is what counts.
			w.env.Send(apitest.Request{Method: method, Path: path, Token: w.toks[who], Body: body})
		}
		wg.Add(5)
		go send("bob", "POST", "/api/v1/users/alice/follow", "")
		go send("alice", "POST", "/api/v1/users/bob/follow", "")
		go send("bob", "POST", post+"/react", `{"type":"like"}`)
		go send("bob", "POST", post+"/comments", `{"body":"hi"}`)
		go send("alice", "POST", "/api/v1/users/bob/block", "")
		wg.Wait()
		var edges int
		w.env.DB.Get(&edges, `SELECT count(*) FROM follows WHERE follower_id IN ($1, $2)`, w.ids["alice"], w.ids["bob"])
		if edges != 0 {
			t.Fatalf("round %d: %d follow edges survive the block", round, edges)
		}
		ms, err := seed.CheckCounters(context.Background(), w.env.DB)
		if err != nil || len(ms) > 0 {
			t.Fatalf("round %d: counters %v %v", round, ms, err)
		}
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/api/v1/users/alice/follow", ""}, {"POST", post + "/react", `{"type":"love"}`}, {"POST", post + "/comments", `{"body":"again"}`},
		} {
			if got := w.env.Do(t, apitest.Request{Method: c.method, Path: c.path, Token: w.toks["bob"], Body: c.body}); got.Status != 404 {
				t.Errorf("round %d: bob's %s %s after the block: %d, want 404", round, c.method, c.path, got.Status)
			}
		}
		w.relation(t, "alice", "DELETE", "block", "bob")
	}
}
