package httpapi_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// The timing side-channel tests of the catalogue (TIME-01..03). They do not
// time anything for speed: each interleaves the requests it compares in a
// fresh random order every round, many rounds, and compares the median of
// the per-round differences, which drift and noise from the rest of the
// suite on a shared machine affect alike. They fail only on a gap a
// "load, then check" implementation shows (a further round trip to
// PostgreSQL, a filter applied in Go after the query), with a generous
// tolerance: timingTolerance or a quarter of the faster median, whichever is
// more.

const (
	timingRounds    = 300
	timingWarmup    = 30
	timingTolerance = time.Millisecond
)

// timed is one kind of request of a timing comparison.
type timed struct {
	name string
	req  apitest.Request
}

// timingProfile sends every kind once per round, in random order, and
// returns each kind's durations by round.
func timingProfile(t *testing.T, env *apitest.Env, kinds []timed) [][]time.Duration {
	t.Helper()
	out := make([][]time.Duration, len(kinds))
	order := make([]int, len(kinds))
	for i := range order {
		order[i] = i
	}
	send := func(k timed) (time.Duration, int) {
		r := httptest.NewRequest(k.req.Method, k.req.Path, nil)
		r.Header.Set("Authorization", "Bearer "+k.req.Token)
		rec := httptest.NewRecorder()
		start := time.Now()
		env.Echo.ServeHTTP(rec, r)
		return time.Since(start), rec.Code
	}
	want := make([]int, len(kinds))
	for round := range timingWarmup + timingRounds {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			d, status := send(kinds[i])
			if round == 0 {
				want[i] = status
			} else if status != want[i] {
				t.Fatalf("%s: status %d in round %d, %d before", kinds[i].name, status, round, want[i])
			}
			if round >= timingWarmup {
				out[i] = append(out[i], d)
			}
		}
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// sameTiming fails when kinds a and b differ by more than the tolerance in
// the median of their per-round differences; when onlySlower, only a being
// slower than b counts (a check that may answer sooner without revealing
// anything secret).
func sameTiming(t *testing.T, kinds []timed, ds [][]time.Duration, a, b int, onlySlower bool) {
	t.Helper()
	diff := make([]time.Duration, len(ds[a]))
	for i := range diff {
		diff[i] = ds[a][i] - ds[b][i]
	}
	ma, mb, md := median(ds[a]), median(ds[b]), median(diff)
	tol := max(timingTolerance, min(ma, mb)/4)
	t.Logf("%-18s median %8s | %-18s median %8s | median difference %8s (tolerance %s)",
		kinds[a].name, ma, kinds[b].name, mb, md, tol)
	if md > tol || (!onlySlower && -md > tol) {
		t.Errorf("%s and %s can be told apart by their timing: median difference %s over %d interleaved rounds (tolerance %s)",
			kinds[a].name, kinds[b].name, md, len(diff), tol)
	}
}

// TIME-01: an unknown token, a revoked one, an expired one and one whose
// checksum is wrong answer the same 401 (but for the code and its title and
// detail) and cannot be told apart by timing; the bad checksum is refused
// without a database round trip, so it may be faster (that reveals nothing
// about stored tokens), never slower.
func TestTokenFailuresIndistinguishableByTime(t *testing.T) {
	t.Parallel()
	env := apitest.NewWith(t, apitest.Options{RateWindow: time.Millisecond}) // no 429 for the failed attempts
	env.Member(t, "alice")
	revoked, expired := env.Token(t, "alice", auth.ScopeRead), env.Token(t, "alice", auth.ScopeRead)
	if _, err := env.DB.Exec(`UPDATE api_tokens SET revoked_at = now() WHERE token_hash = $1`, auth.Hash(revoked)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`UPDATE api_tokens SET expires_at = now() - interval '1 day' WHERE token_hash = $1`, auth.Hash(expired)); err != nil {
		t.Fatal(err)
	}
	unknown, err := auth.Generate(auth.ScopeRead)
	if err != nil {
		t.Fatal(err)
	}
	badSum := unknown[:len(unknown)-1] + map[bool]string{true: "A", false: "B"}[!strings.HasSuffix(unknown, "A")]
	if _, ok := auth.Parse(badSum); ok {
		t.Fatalf("%s still has a valid checksum", badSum)
	}
	kinds := []timed{
		{"unknown", apitest.Request{Method: "GET", Path: "/api/v1/me", Token: unknown}},
		{"revoked", apitest.Request{Method: "GET", Path: "/api/v1/me", Token: revoked}},
		{"expired", apitest.Request{Method: "GET", Path: "/api/v1/me", Token: expired}},
		{"bad checksum", apitest.Request{Method: "GET", Path: "/api/v1/me", Token: badSum}},
	}
	// Everything but the code (and the title and detail that name it).
	var first string
	for _, k := range kinds {
		resp := env.Do(t, k.req)
		if resp.Status != 401 {
			t.Fatalf("%s token: status %d: %s", k.name, resp.Status, resp.Body)
		}
		var body map[string]any
		resp.JSON(t, &body)
		for _, f := range []string{"code", "title", "detail", "type", "request_id"} {
			delete(body, f)
		}
		h := resp.Header.Clone()
		h.Del("X-Request-Id")
		h.Del("Content-Length") // follows the detail's length
		got := fmt.Sprint(h, body)
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("%s token answers differently from an unknown one beyond its code:\n%s\n%s", k.name, got, first)
		}
	}
	ds := timingProfile(t, env, kinds)
	sameTiming(t, kinds, ds, 1, 0, false) // revoked vs unknown
	sameTiming(t, kinds, ds, 2, 0, false) // expired vs unknown
	sameTiming(t, kinds, ds, 2, 1, false) // expired vs revoked
	sameTiming(t, kinds, ds, 3, 0, true)  // bad checksum: never slower than unknown
}

// TIME-02: the messages of a conversation the caller is not in take as
// long to refuse as those of a conversation that does not exist (one query
// with the access predicate, not "load, then check").
func TestOthersConversationIndistinguishableByTime(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{RateWindow: time.Millisecond})
	kinds := []timed{
		{"not a participant", apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/conversations/%d/messages", w.kAB), Token: w.carolRW}},
		{"nonexistent", apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/conversations/%d/messages", w.kNone), Token: w.carolRW}},
	}
	for _, k := range kinds {
		if resp := w.env.Do(t, k.req); resp.Status != 404 {
			t.Fatalf("%s: status %d, want 404", k.name, resp.Status)
		}
	}
	sameTiming(t, kinds, timingProfile(t, w.env, kinds), 0, 1, false)
}

// TIME-03: searching for the canary word of a post the caller may not see
// takes as long as searching for a word nowhere in the database (the
// visibility filter is in the SQL, not applied afterwards), and finds
// nothing.
func TestPrivateWordsIndistinguishableByTime(t *testing.T) {
	t.Parallel()
	w := newWorld(t, apitest.Options{RateWindow: time.Millisecond})
	random := fmt.Sprintf("zq%016x", rand.Uint64())
	kinds := []timed{
		{"private canary", apitest.Request{Method: "GET", Path: "/api/v1/search?q=canary-priv-3", Token: w.carolRW}},
		{"random word", apitest.Request{Method: "GET", Path: "/api/v1/search?q=" + random, Token: w.carolRW}},
	}
	for _, k := range kinds {
		resp := w.env.Do(t, k.req)
		var body struct {
			Meta map[string]any `json:"meta"`
		}
		resp.JSON(t, &body)
		if resp.Status != 200 || strings.Contains(string(resp.Body), "priv canary") {
			t.Fatalf("%s: status %d: %s", k.name, resp.Status, resp.Body)
		}
		if b, _ := json.Marshal(body.Meta); strings.Contains(string(b), `":1`) {
			t.Errorf("%s: totals count something: %s", k.name, b)
		}
	}
	sameTiming(t, kinds, timingProfile(t, w.env, kinds), 0, 1, false)
}
