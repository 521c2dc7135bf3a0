package hydrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestExplain checks on 100k posts that hydrating a page reads each post and
// its parts by key, whatever the page's size.
func TestExplain(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 100_000)
	ids := make([]int64, 50)
	for i := range ids {
		ids[i] = int64(99_000 - 37*i)
	}
	viewers := make([]int64, len(ids))
	for i := range viewers {
		viewers[i] = int64(1 + i%7)
	}
	for _, c := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"live part", postsQuery.For(len(ids)), []any{int64(1), pq.Array(ids), nil}, []string{"posts_pkey", "polls_post_id_key", "reactions_pkey"}},
		// The token check of a provisional principal: one look by primary
		// key, evaluated once (an InitPlan) as a filter on the whole read.
		{"guarded live part", postsQuery.For(len(ids)), []any{int64(1), pq.Array(ids), int64(1)}, []string{"posts_pkey", "api_tokens gt", "InitPlan", "One-Time Filter"}},
		{"static part", staticQuery.For(len(ids)), []any{pq.Array(ids)}, []string{"posts_pkey", "members_pkey", "post_media_pkey"}},
		// Coalesced single posts, each row with its own viewer: the
		// viewer's reaction is one look by the whole key, not a walk over
		// every reaction to the post (thousands for a popular one).
		{"batched single posts", getBatchQuery.For(len(ids)), []any{pq.Array(viewers), pq.Array(ids), pq.Array(make([]int64, len(ids)))},
			[]string{"posts_pkey", "reactions_pkey", "(member_id = page.viewer)"}},
		// Coalesced pages (here each reader's own posts): each read's page
		// statement runs LATERAL with its own reader, by whom the reaction
		// is looked up too (the check below the cases).
		{"batched pages", batchPageStatement(pageGroupKey{statics: FromCache, pageSQL: `SELECT p.id, p.created_at FROM posts p
			WHERE p.author_id = $1 ORDER BY p.created_at DESC, p.id DESC LIMIT $2`, types: "ii"}, len(viewers)),
			[]any{pq.Array(viewers), pq.Array(slices.Repeat([]int64{21}, len(viewers))), pq.Array(make([]int64, len(viewers)))},
			[]string{"posts_pkey", "reactions_pkey"}},
	} {
		plan := pgtest.Explain(t, db, c.query, c.args...)
		t.Logf("%s of 50 posts:\n%s", c.name, plan)
		for _, want := range c.want {
			if !strings.Contains(plan, want) {
				t.Errorf("%s: plan does not use %s", c.name, want)
			}
		}
		if strings.Contains(plan, "Join Filter: (r.member_id") {
			t.Errorf("%s finds the viewer's reaction among all of the post's:\n%s", c.name, plan)
		}
		if strings.Contains(plan, "Seq Scan on posts") || strings.Contains(plan, "Seq Scan on members") {
			t.Errorf("%s scans a table sequentially:\n%s", c.name, plan)
		}
	}
}
