package hydrate

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestListQueryNeverCuts checks that the LIMIT of every size class holds the
// whole list.
func TestListQueryNeverCuts(t *testing.T) {
	q := NewListQuery("$1", func(list string) string { return list })
	limit := regexp.MustCompile(`LIMIT (\d+)`)
	for n := 0; n <= 3*maxListClass; n++ {
		m := limit.FindStringSubmatch(q.For(n))
		if m == nil {
			if n <= maxListClass {
				t.Fatalf("list of %d: no LIMIT", n)
			}
			continue
		}
		if l, _ := strconv.Atoi(m[1]); l < n {
			t.Fatalf("list of %d: LIMIT %d", n, l)
		}
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
		q       *ListQuery
		live    bool
		guarded bool
		batch   bool // coalesced single posts: viewers, ids and checks are arrays
	}{
		{"live part", postsQuery, true, false, false}, {"live and static parts", postsStaticQuery, true, false, false},
		{"guarded live part", postsQuery, true, true, false}, {"guarded live and static parts", postsStaticQuery, true, true, false},
		{"static part", staticQuery, false, false, false},
		{"batch of live parts", getBatchQuery, true, true, true}, {"batch of live and static parts", getBatchStaticQuery, true, true, true},
	} {
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
	}
}
