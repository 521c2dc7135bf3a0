package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// TestConditionalGetSpendsReadBudget: a conditional GET spends the read
// budget like any GET, 304 or not: with 120 reads a window, the 121st
// conditional GET is 429, and each 304 carries the budget it left.
func TestConditionalGetSpendsReadBudget(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour}) // no refill while counting
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	// "*" matches any current representation: every answer with budget
	// left is a 304, and no unconditional read is needed to learn a tag.
	cond := apitest.Request{Method: "GET", Path: "/api/v1/feed", Token: tok, Header: http.Header{"If-None-Match": {"*"}}}
	for i := range 120 {
		resp := env.Do(t, cond)
		if resp.Status != http.StatusNotModified {
			t.Fatalf("conditional GET %d: %d, want 304", i+1, resp.Status)
		}
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(119-i); got != want {
			t.Fatalf("conditional GET %d: X-RateLimit-Remaining %s, want %s", i+1, got, want)
		}
	}
	resp := env.Do(t, cond)
	if resp.Status != http.StatusTooManyRequests || resp.Problem(t).Code != "rate_limited" {
		t.Fatalf("conditional GET 121: %d %s, want 429 rate_limited", resp.Status, resp.Body)
	}
	if resp.Header.Get("ETag") != "" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("429: ETag %q, Retry-After %q", resp.Header.Get("ETag"), resp.Header.Get("Retry-After"))
	}
}
