package hydrate_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/synth"
	"github.com/socialnet/socialapi/internal/timeline"
)

// TestCoalescedReadsStayOnTheirTarget: single-post reads, then home pages,
// routed to a
// replica (pg.Router) and reads on the primary, made at once through one
// slot, coalesce only with reads of the same target, and each batch runs
// where its reads were routed: a reader who must read the primary (a fresh
// write of theirs) never gets an answer from a replica's batch.
func TestCoalescedReadsStayOnTheirTarget(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t)
	db, err := pg.Open(context.Background(), dsn, pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := synth.Config{Scale: synth.ForMembers(40), Seed: 7, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := synth.Generate(context.Background(), db.DB, cfg); err != nil {
		t.Fatal(err)
	}
	replica, err := pg.Connect(pgtest.ReplicaURL(t, dsn), pg.DefaultPool)
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()
	rt := pg.NewRouter(db, map[string]*sqlx.DB{"r": replica}, []string{"r"}, pg.RouterOptions{Poll: 20 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go rt.Run(ctx)
	for deadline := time.Now().Add(30 * time.Second); rt.States()[0].State != pg.StateOK; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("replica state %v", rt.States()[0])
		}
	}
	var ids, viewers []int64
	if err := db.SelectContext(ctx, &ids, `SELECT id FROM posts ORDER BY id LIMIT 200`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &viewers, `SELECT id FROM members ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	// Odd viewers read a replica, even ones the primary.
	routed := map[int64]context.Context{}
	for _, v := range viewers {
		routed[v] = ctx
		if v%2 == 1 {
			c, _ := rt.Route(ctx, v, nil)
			if _, ok := pg.OnReplica(c); !ok {
				t.Fatalf("viewer %d was not routed to the replica", v)
			}
			routed[v] = c
		}
	}
	rec := &recorder{q: db}
	g := hydrate.NewGetter(hydrate.NewCache(1000), rec, coalesce.NewPool(1), 16)
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 640; i += 32 {
				v := viewers[i%len(viewers)]
				if _, err := g.Get(routed[v], v, ids[i%len(ids)]); err != nil && !apperr.Is(err, apperr.NotFound) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rec.report(t, "single posts")

	// Home pages, the same way.
	pages := &recorder{q: db}
	c := hydrate.NewCache(1000).CoalescePages(coalesce.NewPool(1))
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 320; i += 32 {
				v := viewers[i%len(viewers)]
				q, args := timeline.PageSQL(nil, []any{v, 21})
				if _, _, _, err := c.Page(routed[v], pages, v, 20, hydrate.FromCache, q, args); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	pages.report(t, "home pages")
}

func (r *recorder) report(t *testing.T, what string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.batches == 0 {
		t.Logf("%s: no read was coalesced: nothing to check", what)
	}
	for _, b := range r.mixed {
		t.Errorf("%s: a batch on the %s read for viewers %v", what, b.where, b.viewers)
	}
	t.Logf("%s: %d batches", what, r.batches)
}

// recorder runs every statement on q and checks the coalesced batches
// (three arrays, the first the readers' viewers): on a replica, only odd
// viewers; on the primary, only even ones.
type recorder struct {
	q       sqlx.QueryerContext
	mu      sync.Mutex
	batches int
	mixed   []struct {
		where   string
		viewers []int64
	}
}

func (r *recorder) check(ctx context.Context, args []any) {
	// A batch's arguments are three arrays: the viewers, the post ids or
	// page sizes, the token checks.
	if len(args) != 3 {
		return
	}
	a, ok := args[0].(*pq.Int64Array)
	_, ok2 := args[1].(*pq.Int64Array)
	_, ok3 := args[2].(*pq.Int64Array)
	if !ok || !ok2 || !ok3 {
		return
	}
	_, onReplica := pg.OnReplica(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches++
	for _, v := range *a {
		if (v%2 == 1) != onReplica {
			where := "primary"
			if onReplica {
				where = "replica"
			}
			r.mixed = append(r.mixed, struct {
				where   string
				viewers []int64
			}{where, *a})
			return
		}
	}
}

func (r *recorder) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.check(ctx, args)
	return r.q.QueryContext(ctx, q, args...)
}

func (r *recorder) QueryxContext(ctx context.Context, q string, args ...any) (*sqlx.Rows, error) {
	r.check(ctx, args)
	return r.q.QueryxContext(ctx, q, args...)
}

func (r *recorder) QueryRowxContext(ctx context.Context, q string, args ...any) *sqlx.Row {
	r.check(ctx, args)
	return r.q.QueryRowxContext(ctx, q, args...)
}
