package search

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestExplain loads 100k posts, 50k more members and 20k listings and jobs,
// and checks that every search query is served by its index: the
// search_keys or tag index for posts, the trigram index for people, never a
// sequential scan of posts or members. Run with -v to see the plans.
func TestExplain(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100k posts")
	}
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 100_000)
	// Every post gets a common word (c0..c99: one post in a hundred), a rare
	// one (w0..w4999: twenty posts each) and a tag (t0..t499: 200 each).
	// post_tags is refilled in one pass rather than by its row trigger
	// 100,000 times.
	load := []string{
		`ALTER TABLE posts DISABLE TRIGGER posts_tags_update`,
		`UPDATE posts SET body = body || ' c' || (id % 100) || ' w' || (id % 5000) || ' k' || (id % 10), tags = ARRAY['t' || (id % 500)]`,
		`ALTER TABLE posts ENABLE TRIGGER posts_tags_update`,
		`DELETE FROM post_tags`,
		`INSERT INTO post_tags (post_id, tag, author_id, visibility, created_at)
		 SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)`,
		`INSERT INTO members (handle, name, created_at)
		 SELECT 'user' || g, (ARRAY['Ann', 'Bruno', 'Chloé', 'Dmitri', 'Eva'])[1 + g % 5] || ' ' ||
		        (ARRAY['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Petit', 'Durand'])[1 + g % 7] || ' ' || g,
		        timestamptz '2024-01-01' + g * interval '1 minute'
		   FROM generate_series(1, 50000) g`,
		`INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition, city, country, created_at)
		 SELECT 1 + g % 1000, 1 + g % 9, 'c' || (g % 100) || ' w' || (g % 5000), 'Item ' || g, g, 'EUR', 'good', 'Lyon', 'FR',
		        timestamptz '2026-01-01' + g * interval '1 minute'
		   FROM generate_series(1, 20000) g`,
		`INSERT INTO jobs (title, company_name, workplace, employment_type, description, posted_at, closed_at)
		 SELECT 'c' || (g % 100) || ' w' || (g % 5000), 'Company ' || (g % 300), 'remote', 'full_time', 'Job ' || g,
		        timestamptz '2026-01-01' + g * interval '1 minute',
		        CASE WHEN g % 4 = 0 THEN timestamptz '2026-06-01' END
		   FROM generate_series(1, 20000) g`,
		`VACUUM ANALYZE`,
	}
	for _, q := range load {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("load: %v\n%s", err, q)
		}
	}
	after := &cursor.Position{Rank: 0.05, Time: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), ID: 50_000}
	text := func(s string) Query {
		q, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	const viewer = 2
	page := func(k Kind, s string, after *cursor.Position) func() (string, []any) {
		return func() (string, []any) { return pageQuery(k, viewer, text(s), after, 21) }
	}
	people := func(s string, after *cursor.Position) func() (string, []any) {
		return func() (string, []any) { return peopleQuery, peopleArgs(viewer, text(s), after, 21) }
	}
	tests := []struct {
		name  string
		query func() (string, []any)
		want  []string // indexes the plan must use
		table string   // besides members, the table that must not be scanned sequentially
	}{
		{"posts, tag", page(Posts, "#t42", nil), []string{"post_tags_tag_idx"}, "post_tags"},
		{"posts, tag, next page", page(Posts, "#t42", after), []string{"post_tags_tag_idx"}, "post_tags"},
		{"posts, two tags", page(Posts, "#t42 #t43", nil), []string{"post_tags_tag_idx"}, "post_tags"}, // the second tag by either index
		{"posts, tag, kept matches", func() (string, []any) {
			return tagCandidatesSQL(postCandidates), []any{"t42", pq.Array([]string{})}
		}, []string{"post_tags_tag_idx"}, "post_tags"},
		{"posts, two tags, kept matches", func() (string, []any) {
			return tagCandidatesSQL(postCandidates), []any{"t42", pq.Array([]string{"t43"})}
		}, []string{"post_tags_tag_idx"}, "post_tags"},
		{"people, handle", people("@user4242", nil), []string{"members_search_trgm_idx"}, "members"},
		{"people, name prefix", people("dmi", nil), []string{"members_search_trgm_idx"}, "members"},
		{"people, short name", people("ev", nil), []string{"members_search_trgm_idx"}, "members"},
		{"people, two words, next page", people("chloé dubois", after), []string{"members_search_trgm_idx"}, "members"},
		{"listings", page(Listings, "w123", nil), []string{"listings_search_tsv_idx"}, "listings"},
		{"jobs", page(Jobs, "w123", nil), []string{"jobs_search_tsv_idx"}, "jobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, args := tt.query()
			plan := pgtest.Explain(t, db, q, args...)
			t.Logf("%s:\n%s", tt.name, plan)
			for _, idx := range tt.want {
				if !strings.Contains(plan, idx) {
					t.Errorf("%s: plan does not use %s", tt.name, idx)
				}
			}
			if strings.Contains(plan, "Seq Scan on "+tt.table) || strings.Contains(plan, "Seq Scan on members") {
				t.Errorf("%s: plan scans %s or members sequentially", tt.name, tt.table)
			}
		})
	}

	// Words walk the kind's search_keys index bucket by bucket, highest ids
	// first, and stop at the bucket that completes the cap: the LIMIT sits
	// right on the nested loop over the buckets (no sort or materialisation
	// between them would let it stop), with the custom plan and with the
	// generic one the prepared statement settles on; by every lexeme and by
	// any of them.
	for _, wk := range []walkOf{{Posts, keysAll}, {Listings, keysAll}, {Jobs, keysAll}, {Posts, keysAny}, {Listings, keysAny}, {Jobs, keysAny}} {
		k, text := wk.kind, map[string]string{keysAll: "w123 c7", keysAny: "w123 or c7"}[wk.keys]
		for _, mode := range []string{"auto", "force_generic_plan"} {
			conn, err := db.Connx(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			name := "walk_" + string(k) + "_" + mode
			if _, err := conn.ExecContext(t.Context(), "SET plan_cache_mode = "+mode+"; PREPARE "+name+" AS "+walks[wk]); err != nil {
				t.Fatal(err)
			}
			var lines []string
			err = conn.SelectContext(t.Context(), &lines, fmt.Sprintf("EXPLAIN EXECUTE %s(%d, '%s', '{w123,c7}', NULL, NULL, NULL, 21)", name, viewer, text))
			_, _ = conn.ExecContext(t.Context(), "RESET plan_cache_mode; DEALLOCATE "+name)
			conn.Close()
			if err != nil {
				t.Fatal(err)
			}
			plan := strings.Join(lines, "\n")
			t.Logf("%s, %q, bucket walk (%s):\n%s", k, text, mode, plan)
			// The buckets' Function Scan is a child of a Nested Loop whose
			// parent is a Limit (InitPlans aside).
			index := string(k) + "_search_keys_idx"
			buckets := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "Function Scan on generate_series") })
			loop := parent(lines, buckets)
			if loop < 0 || !strings.Contains(lines[loop], "Nested Loop") || parent(lines, loop) < 0 ||
				!strings.Contains(lines[parent(lines, loop)], "Limit") ||
				!strings.Contains(plan, index) || strings.Contains(plan, "Seq Scan on "+string(k)) {
				t.Errorf("%s bucket walk by %s (%s): want a Limit over a Nested Loop over generate_series, rows through %s", k, wk.keys, mode, index)
			}
		}

		// The prepared walk settles on its generic plan: after the five
		// custom plans PostgreSQL always tries first, no search plans it
		// again.
		conn, err := db.Connx(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		st, err := conn.PreparexContext(t.Context(), walks[wk])
		if err != nil {
			t.Fatal(err)
		}
		for run, words := range []string{"k3", "w123", "xylophone", "c7", "c7 k3", "w42", "c1", "k1 w7", "c99", "w4999"} {
			var rows []pageRow
			lexemes := strings.Fields(words)
			if wk.keys == keysAny {
				words = strings.Join(lexemes, " or ")
			}
			if err := st.SelectContext(t.Context(), &rows, viewer, words, pq.Array(lexemes), nil, nil, nil, 21); err != nil {
				t.Fatal(err)
			}
			if k == Posts && run == 0 && (rows[0].Total != MatchCap || len(rows) != 21) {
				t.Fatalf("%q: %d matches, %d rows; want the cap %d and 21", words, rows[0].Total, len(rows), MatchCap)
			}
		}
		generic, custom := pgtest.Plans(t, conn, walks[wk])
		st.Close()
		conn.Close()
		if generic != 5 || custom != 5 {
			t.Errorf("%s bucket walk by %s: %d generic and %d custom plans in 10 runs; want 5 and 5", k, wk.keys, generic, custom)
		}
	}

	// People search settles on its generic plan too.
	{
		conn, err := db.Connx(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		st, err := conn.PreparexContext(t.Context(), peopleQuery)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ann", "dmitri petit", "ev", "@user4242", "zzz", "bruno", "chl", "eva robert 7", "user1", "martin"} {
			var rows []pageRow
			if err := st.SelectContext(t.Context(), &rows, peopleArgs(viewer, text(name), nil, 21)...); err != nil {
				t.Fatal(err)
			}
		}
		generic, custom := pgtest.Plans(t, conn, peopleQuery)
		st.Close()
		conn.Close()
		if generic != 5 || custom != 5 {
			t.Errorf("people search: %d generic and %d custom plans in 10 runs; want 5 and 5", generic, custom)
		}
	}

	// A word in one post in ten: only the newest MatchCap matches the
	// viewer may see are ranked and counted.
	res, err := NewStore(db).Search(t.Context(), viewer, text("k3"), Posts, nil, 20)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.Posts != MatchCap || len(res.Posts) != 20 {
		t.Fatalf("common word: total %d, %d posts; want %d and 20", res.Totals.Posts, len(res.Posts), MatchCap)
	}
	var oldest int64
	capQ := `SELECT min(id) FROM (SELECT p.id FROM posts p WHERE p.search_tsv @@ websearch_to_tsquery('simple', 'k3')
		AND p.visibility = 'public' ORDER BY p.id DESC LIMIT $1) c`
	if err := db.Get(&oldest, capQ, MatchCap); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Posts {
		if p.ID < oldest {
			t.Errorf("post %d is older than the newest %d matches (from %d)", p.ID, MatchCap, oldest)
		}
	}
}

// parent is the index of the parent node of the plan node on line i of an
// EXPLAIN in text form (the nearest line above whose arrow is one level, 6
// columns, to the left), or -1.
func parent(lines []string, i int) int {
	if i < 0 {
		return -1
	}
	at := strings.Index(lines[i], "->")
	for j := i - 1; j >= 0 && at >= 6; j-- {
		if strings.Index(lines[j], "->") == at-6 {
			return j
		}
	}
	return -1
}
