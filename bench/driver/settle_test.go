package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestSettle: settle vacuums and analyses the tables written since their
// last vacuum, after which none is due.
func TestSettle(t *testing.T) {
	dsn := pgtest.NewURL(t)
	// The test cluster's standby holds a slot once it exists, and only a
	// running standby moves its feedback on: start it (or wait for it) so
	// that a slot left by an earlier run does not hold back the delete.
	pgtest.ReplicaURL(t, dsn)
	ctx := context.Background()
	conn0, err := pg.Open(ctx, dsn, pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer conn0.Close()
	db := conn0.DB
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE settle_probe (id int PRIMARY KEY, v text)`,
		`INSERT INTO settle_probe SELECT g, 'x' FROM generate_series(1, 500) g`,
		`DELETE FROM settle_probe WHERE id % 2 = 0`,
		// The backend's counts reach pg_stat_user_tables before it answers.
		`SELECT pg_stat_force_next_flush()`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var xid string
	if err := conn.QueryRowContext(ctx, `SELECT pg_current_xact_id()::text`).Scan(&xid); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// A hot standby's feedback holds back what vacuum may remove until it
	// has replayed past the delete (the test cluster's standby replays late).
	var past bool
	for deadline := time.Now().Add(30 * time.Second); !past && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// The feedback lands on the standby's slot, or on its connection
		// when it streams without one.
		if err := db.QueryRowContext(ctx, `SELECT coalesce(bool_and(x IS NULL OR age(x) < age($1::text::xid)), true)
		                                     FROM (SELECT xmin FROM pg_replication_slots
		                                           UNION ALL SELECT backend_xmin FROM pg_stat_replication) AS f(x)`, xid).Scan(&past); err != nil {
			t.Fatal(err)
		}
	}
	if !past {
		t.Fatal("a standby's feedback still holds back the delete after 30 s")
	}
	s := settle(ctx, db)
	if s.Error != "" || !slices.Contains(s.Tables, "public.settle_probe") {
		t.Fatalf("settle = %+v, want public.settle_probe vacuumed", s)
	}
	var vacuums, analyzes, dead int64
	if err := db.QueryRowContext(ctx, `SELECT vacuum_count, analyze_count, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'settle_probe'`).Scan(&vacuums, &analyzes, &dead); err != nil {
		t.Fatal(err)
	}
	if vacuums != 1 || analyzes != 1 || dead != 0 {
		t.Errorf("settle_probe: %d vacuums, %d analyses, %d dead rows; want 1, 1, 0", vacuums, analyzes, dead)
	}
	if again := settle(ctx, db); again.Error != "" || len(again.Tables) != 0 {
		t.Errorf("second settle = %+v, want nothing left to vacuum", again)
	}
	for n, want := range map[int]string{1: "1 changed table vacuumed and analysed in 0.2 s", 3: "3 changed tables vacuumed and analysed in 0.2 s"} {
		if got := (settled{Tables: make([]string, n), Took: 0.2}).String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
