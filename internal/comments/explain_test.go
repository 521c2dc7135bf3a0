package comments

import (
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestExplain checks on 100k comments that a comments page is a range of
// comments_post_id_created_at_id_idx, never a sequential scan.
func TestExplain(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 100_000)
	after := &cursor.Position{Time: time.Date(2025, 1, 20, 0, 0, 0, 0, time.UTC), ID: 27_000}
	for name, pos := range map[string]*cursor.Position{"first page": nil, "after cursor": after} {
		t.Run(name, func(t *testing.T) {
			for _, guarded := range []bool{false, true} {
				var guard any // the token check's argument: none, or a token id
				if guarded {
					guard = int64(7)
				}
				q, args := listPage(2, 1000, pos, 20, guard)
				plan := pgtest.Explain(t, db, q, args...)
				t.Logf("%s (guarded %v):\n%s", name, guarded, plan)
				if !strings.Contains(plan, "comments_post_id_created_at_id_idx") ||
					strings.Contains(plan, "Seq Scan on comments") || strings.Contains(plan, "Seq Scan on posts") {
					t.Errorf("%s: unexpected plan:\n%s", name, plan)
				}
				// The token check is made once, before any comment is read.
				if guarded && !strings.Contains(plan, "One-Time Filter") {
					t.Errorf("%s: the token check is not a one-time filter:\n%s", name, plan)
				}
			}
		})
	}
}
