package users

import (
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/visibility"
)

// TestExplain checks on 100k posts that a member's posts are read backwards
// from the author index, never by a sequential scan of posts.
func TestExplain(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 100_000)
	after := &cursor.Position{Time: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), ID: 50_000}
	for name, pos := range map[string]*cursor.Position{"first page": nil, "after cursor": after} {
		t.Run(name, func(t *testing.T) {
			q, args := authoredPage(2, "m1", pos, 20)
			// Run alone, the page query declares the WITH items the page
			// statements of hydrate declare for it.
			plan := pgtest.Explain(t, db, "WITH "+visibility.For("$1").With()+q, args...)
			t.Logf("%s:\n%s", name, plan)
			if !strings.Contains(plan, "posts_author_id_created_at_id_idx") || !strings.Contains(plan, "members_handle_lower_key") ||
				strings.Contains(plan, "Seq Scan on posts") {
				t.Errorf("%s: unexpected plan:\n%s", name, plan)
			}
		})
	}
}
