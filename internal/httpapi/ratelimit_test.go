package httpapi_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

var rateLimitHeader = regexp.MustCompile(`^"(read|write)";r=([0-9]+);t=([0-9]+)$`)

func TestReadRateLimit(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour}) // no refill while counting
	env.Member(t, "alice")
	env.Member(t, "bob")
	a1 := env.Token(t, "alice", auth.ScopeRead)
	a2 := env.Token(t, "alice", auth.ScopeWrite) // same member, same budget
	bob := env.Token(t, "bob", auth.ScopeRead)

	ok, limited := 0, 0
	lastRemaining := 1 << 30
	for i := range 130 {
		tok := a1
		if i%2 == 1 {
			tok = a2
		}
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
		switch resp.Status {
		case 200:
			ok++
			if limited > 0 {
				t.Fatalf("request %d: 200 after a 429", i)
			}
			m := rateLimitHeader.FindStringSubmatch(resp.Header.Get("RateLimit"))
			if m == nil || m[1] != "read" {
				t.Fatalf("RateLimit = %q", resp.Header.Get("RateLimit"))
			}
			r, _ := strconv.Atoi(m[2])
			if r >= lastRemaining {
				t.Errorf("remaining did not decrease: %d after %d", r, lastRemaining)
			}
			lastRemaining = r
			if got := resp.Header.Get("RateLimit-Policy"); got != `"read";q=120;w=3600, "write";q=60;w=3600` {
				t.Errorf("RateLimit-Policy = %q", got)
			}
			if resp.Header.Get("X-RateLimit-Limit") != "120" || resp.Header.Get("X-RateLimit-Remaining") != m[2] || resp.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("X-RateLimit-* = %v", resp.Header)
			}
		case 429:
			limited++
			p := resp.Problem(t)
			if p.Code != "rate_limited" {
				t.Errorf("code = %q", p.Code)
			}
			if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
				t.Errorf("Retry-After = %q", resp.Header.Get("Retry-After"))
			}
			var body struct {
				Policy     string `json:"policy"`
				Limit      int    `json:"limit"`
				RetryAfter int    `json:"retry_after"`
			}
			resp.JSON(t, &body)
			if body.Policy != "read" || body.Limit != 120 || body.RetryAfter < 1 {
				t.Errorf("429 body = %+v", body)
			}
		default:
			t.Fatalf("request %d: status %d", i, resp.Status)
		}
	}
	if ok != 120 || limited != 10 {
		t.Errorf("got %d × 200 and %d × 429, want 120 and 10", ok, limited)
	}
	// Another member is unaffected; the write budget is untouched.
	if resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: bob}); resp.Status != 200 {
		t.Errorf("bob: status %d", resp.Status)
	}
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/bob/follow", Token: a2})
	if resp.Status == 429 {
		t.Errorf("write limited after exhausting reads")
	}
	if m := rateLimitHeader.FindStringSubmatch(resp.Header.Get("RateLimit")); m == nil || m[1] != "write" || m[2] != "59" {
		t.Errorf("write RateLimit = %q, want write with 59 remaining", resp.Header.Get("RateLimit"))
	}
}

func TestWriteRateLimitSpendsNothingWhenLimited(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour})
	env.Member(t, "alice")
	env.Member(t, "bob")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	counts := map[int]int{}
	for range 70 {
		resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/users/bob/follow", Token: tok})
		counts[resp.Status]++
	}
	if counts[429] != 10 {
		t.Errorf("statuses %v, want 60 allowed then 429s", counts)
	}
	// Reads still pass: separate budget.
	if resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}); resp.Status != 200 {
		t.Errorf("read after write exhaustion: %d", resp.Status)
	}
	var me struct {
		Data struct {
			RateLimits struct {
				Read, Write struct{ Limit, Remaining int }
			} `json:"rate_limits"`
		}
	}
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}).JSON(t, &me)
	if me.Data.RateLimits.Write.Limit != 60 || me.Data.RateLimits.Write.Remaining != 0 {
		t.Errorf("/me write budget = %+v, want limit 60 and nothing left", me.Data.RateLimits.Write)
	}
	if me.Data.RateLimits.Read.Limit != 120 || me.Data.RateLimits.Read.Remaining < 110 {
		t.Errorf("/me read budget = %+v", me.Data.RateLimits.Read)
	}
}

func TestFailedAuthLimitedPerAddress(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Hour})
	env.Member(t, "bob")
	bob := env.Token(t, "bob", auth.ScopeRead)
	statuses := map[int]int{}
	for i := range 130 {
		bad, _ := auth.Generate(auth.ScopeRead)
		h := map[string][]string{"X-Forwarded-For": {"203.0.113." + strconv.Itoa(i%250)}}
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: bad, Header: h})
		statuses[resp.Status]++
	}
	if statuses[401] != 120 || statuses[429] != 10 {
		t.Errorf("statuses %v, want 120 × 401 then 429 (X-Forwarded-For ignored)", statuses)
	}
	// A valid member's own budget is untouched.
	if resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: bob}); resp.Status != 200 {
		t.Errorf("bob: status %d", resp.Status)
	}
}

// TestRateLimitRefills checks the documented defaults (120/60 per minute) and
// that the budget refills evenly: one read every 0.5 s after exhaustion, as
// Retry-After says.
func TestRateLimitRefills(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	// A slow machine refills while this loop runs, so count until the first 429.
	var last *apitest.Response
	for range 400 {
		last = env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
		if last.Status == 429 {
			break
		}
	}
	if last.Status != 429 {
		t.Fatalf("no 429 after 400 reads")
	}
	if got := last.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1 (one read refills every 0.5 s)", got)
	}
	time.Sleep(1100 * time.Millisecond)
	resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
	if resp.Status != 200 {
		t.Fatalf("after Retry-After: status %d, want 200", resp.Status)
	}
	if got := resp.Header.Get("RateLimit-Policy"); got != `"read";q=120;w=60, "write";q=60;w=60` {
		t.Errorf("RateLimit-Policy = %q", got)
	}
}
