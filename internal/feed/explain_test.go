package feed

import (
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/timeline"
)

// TestExplain checks on 100k posts that each timeline query is served by the
// index it was written for and never reads the posts table sequentially. The
// home timeline and discover pages read each row's author for the visibility
// rule: their indexes carry it, so they must stay index-only scans (a heap
// fetch per row otherwise).
func TestExplain(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 100_000)
	db.MustExec(`SELECT timeline_rebuild(400)`)
	db.MustExec(`ANALYZE timeline`)
	after := &cursor.Position{Time: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), ID: 50_000}
	tests := []struct {
		name  string
		q     string
		args  []any
		index string
	}{
		{"home", "", nil, "posts_author_id_created_at_id_idx"},
		{"home after cursor", "", nil, "posts_author_id_created_at_id_idx"},
		{"discover", "", nil, "Index Only Scan using posts_public_created_at_id_idx"},
		{"discover after cursor", "", nil, "Index Only Scan using posts_public_created_at_id_idx"},
		{"timeline", "", nil, "Index Only Scan Backward using timeline_pkey"},
		{"timeline after cursor", "", nil, "Index Only Scan Backward using timeline_pkey"},
	}
	tests[0].q, tests[0].args = homePage(1, nil, 20)
	tests[1].q, tests[1].args = homePage(1, after, 20)
	tests[2].q, tests[2].args = discoverPage(1, nil, 20)
	tests[3].q, tests[3].args = discoverPage(1, after, 20)
	// The discover page writes its limit into the text and leaves $2 to the
	// statement around it; explained as hydrate.Chosen runs it.
	for i := 2; i < 4; i++ {
		tests[i].q = "SELECT id, created_at FROM (" + tests[i].q + ") chosen ORDER BY created_at DESC, id DESC LIMIT $2"
	}
	tests[4].q, tests[4].args = timeline.PageSQL(nil, []any{int64(1), 21})
	tests[5].q, tests[5].args = timeline.PageSQL(after, []any{int64(1), 21})
	for i := 4; i < 6; i++ {
		tests[i].q = timeline.Standalone(tests[i].q)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := pgtest.Explain(t, db, tt.q, tt.args...)
			t.Logf("%s:\n%s", tt.name, plan)
			if !strings.Contains(plan, tt.index) || strings.Contains(plan, "Seq Scan on posts") {
				t.Errorf("%s: plan does not use %s, or scans posts sequentially:\n%s", tt.name, tt.index, plan)
			}
		})
	}
}
