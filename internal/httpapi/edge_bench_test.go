package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// BenchmarkGetPost sends GET /api/v1/posts/{id} through the whole server
// (every middleware, the contract check, the handler and its statement on
// a real PostgreSQL), as a signed-in client would, so the allocations of
// the edge are tracked per request (-benchmem); the time is mostly the
// database's round trip. Rate limits refill within a millisecond.
func BenchmarkGetPost(b *testing.B) {
	env := apitest.NewWith(b, apitest.Options{RateWindow: time.Millisecond})
	env.Member(b, "author")
	env.Member(b, "reader")
	write, read := env.Token(b, "author", auth.ScopeWrite), env.Token(b, "reader", auth.ScopeRead)
	created := env.Do(b, apitest.Request{Method: http.MethodPost, Path: "/api/v1/posts", Token: write, Body: `{"body":"hello #bench","visibility":"public"}`})
	var post struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	created.JSON(b, &post)
	path := "/api/v1/posts/" + strconv.FormatInt(post.Data.ID, 10)
	if r := env.Do(b, apitest.Request{Method: http.MethodGet, Path: path, Token: read}); r.Status != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Bearer "+read)
		rec := httptest.NewRecorder()
		env.Echo.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}
