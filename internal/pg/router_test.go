package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// TestRouter runs a Router over a real hot standby that replays late
// (pgtest.ReplicaURL): reads of a routed context run there (prepared or
// not), a member's fresh write keeps that member's reads on the primary
// until the standby has replayed it, others read the standby meanwhile, and
// a standby that stops answering is skipped with no read failing.
func TestRouter(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t)
	primary, err := pg.Open(context.Background(), dsn, pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	replica, err := pg.Connect(pgtest.ReplicaURL(t, dsn), pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	rt := pg.NewRouter(primary, map[string]*sqlx.DB{"r1": replica}, []string{"r1"}, pg.RouterOptions{Poll: 20 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go rt.Run(ctx)
	waitState(t, rt, pg.StateOK)

	const recovery = `SELECT pg_is_in_recovery()`
	inRecovery := func(q sqlx.QueryerContext, ctx context.Context) bool {
		t.Helper()
		var b bool
		if err := sqlx.GetContext(ctx, q, &b, recovery); err != nil {
			t.Fatal(err)
		}
		return b
	}
	p := pg.NewPrepared(primary)
	defer p.Close()
	routed, counts := rt.Route(ctx, 1, nil)
	if !counts {
		t.Fatal("Route: the check without a token does not count")
	}
	if _, ok := pg.OnReplica(routed); !ok || !inRecovery(p, routed) || !inRecovery(pg.Reader(routed, primary), routed) {
		t.Error("a routed read did not run on the replica")
	}
	if inRecovery(p, ctx) || inRecovery(p, pg.OnPrimary(routed)) || inRecovery(pg.Reader(ctx, primary), ctx) {
		t.Error("a read that was not routed ran on the replica")
	}
	err = pg.WithTx(routed, primary, func(tx *sqlx.Tx) error {
		if inRecovery(p.Tx(tx), routed) {
			t.Error("a transaction's read ran on the replica")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Member 1 writes: their reads stay on the primary until the standby
	// replays the write; member 2's go to the standby meanwhile.
	if _, err := primary.Exec(`CREATE TABLE written (n int)`); err != nil {
		t.Fatal(err)
	}
	if err := rt.MarkWrite(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if c, _ := rt.Route(ctx, 1, nil); c != ctx {
		t.Error("the writer was routed to a replica that cannot have replayed the write (it replays late)")
	}
	if c, _ := rt.Route(ctx, 2, nil); c == ctx {
		t.Error("another member was not routed to the replica")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _ := rt.Route(ctx, 1, nil)
		if c != ctx {
			var n int
			if err := sqlx.GetContext(c, p, &n, `SELECT count(*) FROM written`); err != nil {
				t.Fatalf("the writer, routed to the replica once it replayed the write, cannot read it: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer never went back to the replica")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRouterUnreachableReplica: a replica that does not answer is skipped,
// and a read routed to it before that was known runs on the primary.
func TestRouterUnreachableReplica(t *testing.T) {
	t.Parallel()
	primary := pgtest.New(t)
	dead, err := pg.Connect("postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1", pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	rt := pg.NewRouter(primary, map[string]*sqlx.DB{"dead": dead}, []string{"dead"}, pg.RouterOptions{Poll: 20 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go rt.Run(ctx)
	waitState(t, rt, pg.StateUnreachable)
	if c, _ := rt.Route(ctx, 1, nil); c != ctx {
		t.Error("a read was routed to an unreachable replica")
	}
	if rt.PrimaryReads() == 0 {
		t.Error("the read sent to the primary was not counted")
	}
}

func waitState(t *testing.T, rt *pg.Router, state string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for rt.States()[0].State != state {
		if time.Now().After(deadline) {
			t.Fatalf("replica state %v, want %s", rt.States()[0], state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
