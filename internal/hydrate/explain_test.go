package hydrate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
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
		t.Run(c.name, func(t *testing.T) {
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
		})
	}
}

// TestListQueriesUseGenericPlans checks that PostgreSQL settles prepared
// list statements on their generic plan instead of planning every execution
// (with unnest($2::bigint[]) it never did: docs/performance-journal.md,
// "List statements by size class"),
// and that a list longer than its class's smallest member is read whole.
func TestListQueriesUseGenericPlans(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 2_000)
	ctx := context.Background()
	conn, err := db.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct {
		name    string
		q       *cursor.ListQuery
		live    bool
		guarded bool
		batch   bool // coalesced single posts: viewers, ids and checks are arrays
	}{
		{"live part", postsQuery, true, false, false}, {"live and static parts", postsStaticQuery, true, false, false},
		{"guarded live part", postsQuery, true, true, false}, {"guarded live and static parts", postsStaticQuery, true, true, false},
		{"static part", staticQuery, false, false, false},
		{"batch of live parts", getBatchQuery, true, true, true}, {"batch of live and static parts", getBatchStaticQuery, true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{1, 17} {
				text, _ := c.q.Query(make([]int64, n)) // one id: its own statement
				if (n > 1 || c.batch) && text != c.q.For(n) {
					t.Fatalf("%s of %d ids: Query's statement is not For's", c.name, n)
				}
				st, err := conn.PreparexContext(ctx, text)
				if err != nil {
					t.Fatal(err)
				}
				for run := 0; run < 8; run++ {
					ids := make([]int64, n)
					for i := range ids {
						ids[i] = int64(1 + (run*97+i*13)%2_000)
					}
					_, list := c.q.Query(ids)
					args := []any{list}
					switch {
					case c.batch:
						viewers, guards := make([]int64, n), make([]int64, n)
						for i := range viewers {
							viewers[i], guards[i] = int64(1+(run+i)%50), int64(run%2*(1+i))
						}
						args = []any{pq.Array(viewers), list, pq.Array(guards)}
					case c.live:
						var guard any // the token check's argument: none, or a token id
						if c.guarded {
							guard = int64(1 + run)
						}
						args = []any{int64(1 + run), list, guard}
					}
					rows, err := st.QueryxContext(ctx, args...)
					if err != nil {
						t.Fatal(err)
					}
					got := 0
					for rows.Next() {
						got++
					}
					if err := rows.Err(); err != nil {
						t.Fatal(err)
					}
					rows.Close()
					if !c.live && got != n {
						t.Errorf("%s of %d ids: %d rows", c.name, n, got)
					}
				}
				if generic, custom := pgtest.Plans(t, conn, text); generic == 0 {
					t.Errorf("%s of %d ids: %d custom plans and no generic plan in 8 executions", c.name, n, custom)
				}
				st.Close()
			}
		})
	}
}
