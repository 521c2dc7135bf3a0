package search_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/search"
	"github.com/socialnet/socialapi/internal/synth"
)

// BenchmarkSearch answers searches with every text's matches already kept
// (the warm path the benchmark's search scenario measures): the handler, the
// store and the JSON answer, over a synthetic network (internal/synth, 500
// members, 50,000 posts), for its busiest reader (synth.BenchNetwork). "all" is a
// search without type (people, posts, listings and jobs, five of each),
// "posts" one page of 20 posts; "coffee" is a common word, "#travel" a tag.
func BenchmarkSearch(b *testing.B) {
	db := pgtest.New(b)
	ctx := context.Background()
	viewer, err := synth.BenchNetwork(ctx, db.DB)
	if err != nil {
		b.Fatal(err)
	}
	ctx = auth.WithPrincipal(ctx, auth.Principal{MemberID: viewer})
	urls := apiurl.URLs{Public: "https://social.example", API: "https://social.example/api/v1"}
	store := search.NewStore(db).WithCache(hydrate.NewCache(hydrate.DefaultCacheEntries)).WithMatchCache(time.Hour)
	h := search.NewHandler(store, urls)
	posts := gen.SearchTypeFilter("posts")
	for _, bb := range []struct {
		name string
		kind *gen.SearchTypeFilter
		q    string
	}{
		{"all/coffee", nil, "coffee"},
		{"all/#travel", nil, "#travel"},
		{"posts/coffee", &posts, "coffee"},
		{"posts/#travel", &posts, "#travel"},
	} {
		req := gen.SearchAllRequestObject{Params: gen.SearchAllParams{Q: bb.q, Type: bb.kind}}
		rec := httptest.NewRecorder()
		answer := func(b *testing.B) int {
			resp, err := h.SearchAll(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			rec.Body.Reset()
			if err := resp.VisitSearchAllResponse(rec); err != nil {
				b.Fatal(err)
			}
			return rec.Body.Len()
		}
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(answer(b))) // keeps the matches; warms the posts' cache
			b.ReportAllocs()
			for b.Loop() {
				answer(b)
			}
		})
	}
}
