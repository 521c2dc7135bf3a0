package pgtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// Social fills db with a synthetic network for EXPLAIN checks: 1,000
// members who each follow about 50 others, posts posts spread over the
// members and over about a year (half public, a third followers-only, the
// rest private), half as many comments on the 2,000 oldest posts, media on a third
// of the posts, a poll on one in fifty and a reaction on one in ten; then ANALYZE.
func Social(t testing.TB, db *sqlx.DB, posts int) {
	t.Helper()
	stmts := []string{
		`INSERT INTO members (handle, name) SELECT 'm' || g, 'Member ' || g FROM generate_series(1, 1000) g`,
		`INSERT INTO follows (follower_id, followee_id)
		 SELECT a.id, b.id FROM members a JOIN members b ON b.id <> a.id AND (a.id + 7 * b.id) % 20 = 0`,
		`UPDATE members m SET follower_count = (SELECT count(*) FROM follows WHERE followee_id = m.id),
		                      following_count = (SELECT count(*) FROM follows WHERE follower_id = m.id)`,
		fmt.Sprintf(`INSERT INTO posts (author_id, body, visibility, created_at)
		 SELECT 1 + g %% 1000, 'post ' || g,
		        (ARRAY['public', 'public', 'public', 'followers', 'followers', 'private'])[1 + g %% 6],
		        timestamptz '2025-01-01 00:00:00+00' + g * interval '5 minutes'
		   FROM generate_series(1, %d) g`, posts),
		fmt.Sprintf(`INSERT INTO comments (post_id, author_id, body, created_at)
		 SELECT 1 + g %% 2000, 1 + g %% 1000, 'comment ' || g,
		        timestamptz '2025-01-01 00:00:00+00' + g * interval '1 minute'
		   FROM generate_series(1, %d) g`, posts/2),
		`UPDATE posts p SET comment_count = c.n FROM (SELECT post_id, count(*) AS n FROM comments GROUP BY post_id) c
		  WHERE c.post_id = p.id`,
		`INSERT INTO post_media (post_id, position, kind, url, width, height)
		 SELECT id, 0, 'image', '/media/posts/' || id || '.jpg', 800, 600 FROM posts WHERE id % 3 = 0`,
		`INSERT INTO polls (post_id, question) SELECT id, 'question ' || id FROM posts WHERE id % 50 = 0`,
		`INSERT INTO poll_options (poll_id, position, title) SELECT id, o, 'option ' || o FROM polls, generate_series(0, 1) o`,
		`INSERT INTO reactions (post_id, member_id, type)
		 SELECT p.id, 1 + p.id % 1000, 'like' FROM posts p WHERE p.id % 10 = 0`,
		`VACUUM ANALYZE`,
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("pgtest: load social data set: %v\n%s", err, q)
		}
	}
}

// Explain returns the plan of q with args as text lines joined by newlines.
func Explain(t testing.TB, db *sqlx.DB, q string, args ...any) string {
	t.Helper()
	var lines []string
	if err := db.Select(&lines, "EXPLAIN "+q, args...); err != nil {
		t.Fatalf("pgtest: explain: %v\n%s", err, q)
	}
	return strings.Join(lines, "\n")
}

// Plans returns how many times the statement prepared on conn with the text
// statement was planned generic and custom (pg_prepared_statements).
func Plans(t testing.TB, conn *sqlx.Conn, statement string) (generic, custom int64) {
	t.Helper()
	const q = `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`
	if err := conn.QueryRowxContext(t.Context(), q, statement).Scan(&generic, &custom); err != nil {
		t.Fatalf("pgtest: plans: %v", err)
	}
	return generic, custom
}
