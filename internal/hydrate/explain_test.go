package hydrate

import (
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
	plan := pgtest.Explain(t, db, postsQuery, int64(1), pq.Array(ids))
	t.Logf("hydrate 50 posts:\n%s", plan)
	for _, want := range []string{"posts_pkey", "members_pkey", "post_media_pkey", "polls_post_id_key", "reactions_pkey"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan does not use %s", want)
		}
	}
	if strings.Contains(plan, "Seq Scan on posts") || strings.Contains(plan, "Seq Scan on members") {
		t.Errorf("hydration scans a table sequentially:\n%s", plan)
	}
}
