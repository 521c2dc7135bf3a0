package pg_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/db"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

func TestMigrationsUpDownUp(t *testing.T) {
	t.Parallel()
	conn := pgtest.New(t) // already migrated up
	tables := func() int {
		var n int
		if err := conn.Get(&n, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	up := tables()
	if up < 15 {
		t.Fatalf("after up: %d tables, want the whole schema", up)
	}
	v, dirty, err := pg.MigrationVersion(conn)
	if err != nil || dirty || v == 0 {
		t.Fatalf("MigrationVersion() = %d, %v, %v", v, dirty, err)
	}
	if err := pg.MigrateDown(conn); err != nil {
		t.Fatalf("MigrateDown: %v", err)
	}
	if n := tables(); n != 0 {
		t.Errorf("after down: %d tables, want 0", n)
	}
	var types int
	if err := conn.Get(&types, `SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' AND t.typtype = 'e'`); err != nil {
		t.Fatal(err)
	}
	if types != 0 {
		t.Errorf("after down: %d enum types left", types)
	}
	if err := pg.MigrateUp(conn); err != nil {
		t.Fatalf("MigrateUp again: %v", err)
	}
	if n := tables(); n != up {
		t.Errorf("after up again: %d tables, want %d", n, up)
	}
	v2, dirty, err := pg.MigrationVersion(conn)
	if err != nil || dirty || v2 != v {
		t.Errorf("MigrationVersion() = %d, %v, %v, want %d", v2, dirty, err, v)
	}
	// Up is idempotent.
	if err := pg.MigrateUp(conn); err != nil {
		t.Errorf("MigrateUp with nothing to do: %v", err)
	}
}

// TestStorageOptions: the insert-heavy tables the feeds read with
// index-only scans are vacuumed after 1 % of new rows, not the default 20 %,
// so their newest pages become all-visible soon (migration 19); the posts'
// word index gathers new entries in a pending list of 64 kB (migration 24),
// the other two word indexes none (migration 16).
func TestStorageOptions(t *testing.T) {
	t.Parallel()
	conn := pgtest.New(t)
	want := map[string][]string{
		"posts":                    {"autovacuum_vacuum_insert_scale_factor=0.01"},
		"timeline":                 {"autovacuum_vacuum_insert_scale_factor=0.01"},
		"follows":                  {"autovacuum_vacuum_insert_scale_factor=0.01", "autovacuum_vacuum_scale_factor=0.01"},
		"posts_search_keys_idx":    {"fastupdate=on", "gin_pending_list_limit=64"},
		"listings_search_keys_idx": {"fastupdate=off"},
		"jobs_search_keys_idx":     {"fastupdate=off"},
	}
	for table, opts := range want {
		t.Run(table, func(t *testing.T) {
			var got string
			if err := conn.Get(&got, `SELECT coalesce(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = $1::regclass`, table); err != nil {
				t.Fatal(err)
			}
			for _, o := range opts {
				if !strings.Contains(got, o) {
					t.Errorf("%s: options %q lack %s", table, got, o)
				}
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	conn := pgtest.New(t)
	ctx := context.Background()
	_, err := conn.ExecContext(ctx, `SELECT 1/0`)
	if got := pg.Classify(ctx, err); got == nil || pg.IsUnavailable(ctx, err) {
		t.Errorf("division by zero classified as unavailable: %v", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = conn.ExecContext(cctx, `SELECT pg_sleep(1)`)
	if !pg.IsUnavailable(cctx, err) {
		t.Errorf("cancelled query not classified as unavailable: %v", err)
	}
}

// TestStatementTimeout: a pool with a StatementTimeout starts every
// connection with it (and with the same idle-in-transaction timeout),
// PostgreSQL stops longer statements (57014, classified Unavailable), and
// migrations run on that pool are not bounded by it yet
// leave it in force.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pg.DefaultPool
	pool.MaxOpen, pool.MaxIdle, pool.StatementTimeout = 1, 1, 5*time.Millisecond
	conn, err := pg.Open(ctx, pgtest.NewURL(t), pool)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	show := func() string {
		t.Helper()
		var s string
		var err error
		for range 3 { // a connection's first statement loads caches: it may take 5 ms on a busy machine
			if err = conn.Get(&s, `SHOW statement_timeout`); err == nil {
				return s
			}
		}
		t.Fatal(err)
		return ""
	}
	if got := show(); got != "5ms" {
		t.Errorf("statement_timeout = %q, want 5ms", got)
	}
	_, err = conn.ExecContext(ctx, `SELECT pg_sleep(0.5)`)
	if !pg.IsUnavailable(ctx, err) || apperr.CodeOf(pg.Classify(ctx, err)) != apperr.Unavailable || !strings.Contains(fmt.Sprint(err), "57014") {
		t.Errorf("statement past statement_timeout: %v, want 57014 classified unavailable", err)
	}
	if err := pg.MigrateDown(conn); err != nil {
		t.Fatalf("MigrateDown under a 5ms statement_timeout: %v", err)
	}
	if err := pg.MigrateUp(conn); err != nil {
		t.Fatalf("MigrateUp under a 5ms statement_timeout: %v", err)
	}
	if got := show(); got != "5ms" {
		t.Errorf("statement_timeout after migrating = %q, want 5ms again", got)
	}
	// A transaction left idle longer is ended too (it would hold back the
	// event streams' delivery horizon).
	var idle string
	if err := conn.Get(&idle, `SHOW idle_in_transaction_session_timeout`); err != nil || idle != "5ms" {
		t.Errorf("idle_in_transaction_session_timeout = %q (%v), want 5ms", idle, err)
	}
}

// TestListTimesWholeSeconds: every list's sort time is a column of whole
// seconds (migrations 27 and 28), and migration 28 truncates what rows held
// before it, a post and its copies alike, so they still compare equal.
func TestListTimesWholeSeconds(t *testing.T) {
	t.Parallel()
	conn := pgtest.New(t)
	sortTimes := []string{"members.created_at", "posts.created_at", "post_tags.created_at", "feed_outbox.created_at",
		"timeline.created_at", "timeline_horizons.created_at", "comments.created_at", "notifications.created_at",
		"listings.created_at", "jobs.posted_at", "blocks.created_at", "mutes.created_at", "conversations.last_message_at",
		"conversation_participants.last_activity_at", "messages.created_at"}
	precision := func(col string) int {
		table, column, _ := strings.Cut(col, ".")
		var p int
		if err := conn.Get(&p, `SELECT datetime_precision FROM information_schema.columns
		                         WHERE table_schema = 'public' AND table_name = $1 AND column_name = $2`, table, column); err != nil {
			t.Fatalf("%s: %v", col, err)
		}
		return p
	}
	for _, col := range sortTimes {
		if p := precision(col); p != 0 {
			t.Errorf("%s: precision %d, want 0 (whole seconds)", col, p)
		}
	}

	file := func(name string) string {
		b, err := fs.ReadFile(db.Migrations, "migrations/000028_list_times_whole_seconds."+name+".sql")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := conn.Exec(file("down")); err != nil {
		t.Fatalf("000028 down: %v", err)
	}
	if p := precision("posts.created_at"); p != 6 {
		t.Fatalf("posts.created_at after 000028 down: precision %d, want 6", p)
	}
	const at = `'2026-03-04 12:00:00.900+00'`
	for _, q := range []string{
		`INSERT INTO members (handle, name, created_at) VALUES ('alice', 'Alice', ` + at + `)`,
		`INSERT INTO posts (author_id, body, visibility, tags, created_at) SELECT id, 'hi #x', 'public', '{x}', ` + at + ` FROM members`,
		`INSERT INTO timeline (member_id, created_at, post_id, author_id) SELECT author_id, created_at, id, author_id FROM posts`,
		`INSERT INTO feed_outbox (post_id, author_id, created_at) SELECT id, author_id, created_at FROM posts`,
	} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := conn.Exec(file("up")); err != nil {
		t.Fatalf("000028 up: %v", err)
	}
	var wrong []string
	if err := conn.Select(&wrong, `
		SELECT what FROM (
		    SELECT 'members' AS what, created_at FROM members
		    UNION ALL SELECT 'posts', created_at FROM posts
		    UNION ALL SELECT 'post_tags', created_at FROM post_tags
		    UNION ALL SELECT 'timeline', created_at FROM timeline
		    UNION ALL SELECT 'feed_outbox', created_at FROM feed_outbox) x
		 WHERE created_at <> '2026-03-04 12:00:00+00'`); err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Errorf("not truncated to 12:00:00 by 000028: %v", wrong)
	}
	for _, col := range sortTimes {
		if p := precision(col); p != 0 {
			t.Errorf("%s after 000028 down and up: precision %d, want 0", col, p)
		}
	}
}
