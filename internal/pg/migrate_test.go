package pg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
// connection with it, PostgreSQL stops longer statements (57014, classified
// Unavailable), and migrations run on that pool are not bounded by it yet
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
}
