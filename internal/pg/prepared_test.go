package pg_test

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestPreparedTx checks that statements run through Prepared.Tx see the
// transaction's own writes, that the same text keeps working outside it,
// and that nothing leaks once the transaction is rolled back.
func TestPreparedTx(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	p := pg.NewPrepared(db)
	defer p.Close()
	ctx := context.Background()
	const count = `SELECT count(*) FROM members WHERE handle = $1`
	for round := 0; round < 3; round++ { // prepared once, reused by later transactions
		tx, err := db.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO members (handle, name) VALUES ('prep_tx', 'P')`); err != nil {
			t.Fatal(err)
		}
		var in, out int
		if err := sqlx.GetContext(ctx, p.Tx(tx), &in, count, "prep_tx"); err != nil {
			t.Fatal(err)
		}
		if err := sqlx.GetContext(ctx, p, &out, count, "prep_tx"); err != nil {
			t.Fatal(err)
		}
		if in != 1 || out != 0 {
			t.Fatalf("round %d: %d inside the transaction (want 1), %d outside (want 0)", round, in, out)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
}
