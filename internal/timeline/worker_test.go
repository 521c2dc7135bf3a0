package timeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// publish writes n public posts by author, a minute apart from start, the
// way posts.Create records them for the timelines (Publish): the author's
// own rows at once, the followers' through the outbox.
func publish(t *testing.T, db *sqlx.DB, author int64, n int, start time.Time) {
	t.Helper()
	q := `
		WITH x AS (
		    INSERT INTO posts (author_id, body, visibility, created_at)
		    SELECT $1::bigint, 'post ' || g, 'public', $2::timestamptz + g * interval '1 minute'
		      FROM generate_series(1, $3::int) g
		    RETURNING id, author_id, created_at, visibility
		), ` + Publish("x") + `
		SELECT count(*) FROM x`
	var got int
	if err := db.Get(&got, q, author, start, n); err != nil || got != n {
		t.Fatalf("publish %d posts by %d = %d, %v", n, author, got, err)
	}
}

// follow makes follower follow followee without the follow toggle's merge.
func follow(t *testing.T, db *sqlx.DB, follower, followee int64) {
	t.Helper()
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2)`, follower, followee)
}

// drainBatch is how many posts drain's fan-outs take.
const drainBatch = 7

// drain fans out everything pending through w, as Run does, and returns
// how many fan-outs it ran (the last one finding nothing).
func drain(t *testing.T, w *Worker) (calls int) {
	t.Helper()
	for {
		n, err := w.fanOut(context.Background(), drainBatch)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if n == 0 {
			return calls
		}
	}
}

func rows(t *testing.T, db *sqlx.DB, member int64) int {
	t.Helper()
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM timeline WHERE member_id = $1`, member); err != nil {
		t.Fatal(err)
	}
	return n
}

// newest returns the position of member's kth newest timeline row (from 1).
func newest(t *testing.T, db *sqlx.DB, member int64, k int) cursor.Position {
	t.Helper()
	var r struct {
		CreatedAt time.Time `db:"created_at"`
		PostID    int64     `db:"post_id"`
	}
	const q = `SELECT created_at, post_id FROM timeline WHERE member_id = $1
		ORDER BY created_at DESC, post_id DESC OFFSET $2 - 1 LIMIT 1`
	if err := db.Get(&r, q, member, k); err != nil {
		t.Fatal(err)
	}
	return cursor.Position{Time: r.CreatedAt, ID: r.PostID}
}

// at reports whether h is the position want.
func at(h *cursor.Position, want cursor.Position) bool {
	return h != nil && h.Time.Equal(want.Time) && h.ID == want.ID
}

// run starts w.Run and returns what stops it and waits for it to return.
func run(w *Worker) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		w.Run(ctx)
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}

// readerOfAuthor returns a fresh database where reader follows author, and
// the time their posts start at.
func readerOfAuthor(t *testing.T) (*sqlx.DB, map[string]int64, time.Time) {
	t.Helper()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "reader", "author")
	follow(t, db, id["reader"], id["author"])
	return db, id, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
}

// waitOnLock waits (at most 10 s, else fails with failure) until a
// statement of the test's database whose text holds part waits for a lock.
func waitOnLock(t *testing.T, db *sqlx.DB, part, failure string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := db.Get(&waiting, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'
			  AND pid <> pg_backend_pid())`, part); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(failure)
		}
	}
}

// waitRows waits (at most within, else fails naming what) until member's
// timeline holds want rows.
func waitRows(t *testing.T, db *sqlx.DB, member int64, want int, within time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		got := rows(t, db, member)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d rows after %s, want %d", what, got, within, want)
		}
	}
}

func newWorker(db *sqlx.DB) *Worker {
	return NewWorker(db, slog.New(slog.DiscardHandler))
}

// TestWorkerTrimsWhatItFannedOut: the trim tick cuts, without looking at
// every timeline, the timelines the worker's own fan-out grew past Slack,
// and raises their horizons; timelines that grew otherwise (here by their
// members' own posts) are left to the full trim.
func TestWorkerTrimsWhatItFannedOut(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "reader", "author", "lurker")
	follow(t, db, id["reader"], id["author"])
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	publish(t, db, id["author"], Cap+Slack+10, start)
	publish(t, db, id["lurker"], Cap+Slack+20, start)
	w := newWorker(db)
	drain(t, w)
	if got := w.added[id["reader"]]; got != Cap+Slack+10 {
		t.Fatalf("worker counted %d rows for reader, want %d", got, Cap+Slack+10)
	}
	if _, ok := w.added[id["lurker"]]; ok {
		t.Fatal("worker counted rows for lurker, whose rows are their own posts")
	}
	wantHorizon := newest(t, db, id["reader"], Cap)

	if _, err := w.trim(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, db, id["reader"]); got != Cap {
		t.Errorf("reader's timeline holds %d rows after the tick, want %d", got, Cap)
	}
	h, err := Horizon(ctx, db, id["reader"])
	if err != nil || !at(h, wantHorizon) {
		t.Errorf("reader's horizon after the tick = %v, %v; want %v", h, err, wantHorizon)
	}
	if _, ok := w.added[id["reader"]]; ok {
		t.Error("reader is still counted after their timeline was cut")
	}
	for _, m := range []string{"author", "lurker"} {
		t.Run(m, func(t *testing.T) {
			want := map[string]int{"author": Cap + Slack + 10, "lurker": Cap + Slack + 20}[m]
			if got := rows(t, db, id[m]); got != want {
				t.Errorf("%s's timeline holds %d rows after the tick, want %d (untouched)", m, got, want)
			}
			if h, err := Horizon(ctx, db, id[m]); err != nil || h != nil {
				t.Errorf("%s's horizon after the tick = %v, %v; want none", m, h, err)
			}
		})
	}

	// The full trim cuts the timelines the worker did not see grow.
	wantLurker := newest(t, db, id["lurker"], Cap)
	if _, err := w.trim(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"reader", "author", "lurker"} {
		t.Run(m, func(t *testing.T) {
			if got := rows(t, db, id[m]); got != Cap {
				t.Errorf("%s's timeline holds %d rows after the full trim, want %d", m, got, Cap)
			}
		})
	}
	if h, err := Horizon(ctx, db, id["lurker"]); err != nil || !at(h, wantLurker) {
		t.Errorf("lurker's horizon after the full trim = %v, %v; want %v", h, err, wantLurker)
	}
	if h, err := Horizon(ctx, db, id["reader"]); err != nil || !at(h, wantHorizon) {
		t.Errorf("reader's horizon after the full trim = %v, %v; want %v (unchanged)", h, err, wantHorizon)
	}
}

// TestWorkerTrimThreshold: a member becomes a candidate when the worker has
// fanned Slack rows out to them, not before, whatever their timeline's
// length; and the count starts again after the cut.
func TestWorkerTrimThreshold(t *testing.T) {
	t.Parallel()
	db, id, start := readerOfAuthor(t)
	ctx := context.Background()
	// A long timeline the worker did not see grow.
	publish(t, db, id["reader"], Cap+Slack, start)
	w := newWorker(db)
	drain(t, w)

	publish(t, db, id["author"], Slack-1, start.Add(24*time.Hour))
	drain(t, w)
	if _, err := w.trim(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got, want := rows(t, db, id["reader"]), Cap+2*Slack-1; got != want {
		t.Fatalf("reader's timeline holds %d rows after a tick with %d rows counted, want %d (not a candidate)", got, Slack-1, want)
	}

	publish(t, db, id["author"], 1, start.Add(48*time.Hour))
	drain(t, w)
	cut, err := w.trim(ctx, false)
	if err != nil || cut != 1 {
		t.Fatalf("tick with reader at %d rows counted cut %d timelines, %v; want 1", Slack, cut, err)
	}
	if got := rows(t, db, id["reader"]); got != Cap {
		t.Fatalf("reader's timeline holds %d rows after the tick, want %d", got, Cap)
	}

	publish(t, db, id["author"], Slack-1, start.Add(72*time.Hour))
	drain(t, w)
	if got := w.added[id["reader"]]; got != Slack-1 {
		t.Fatalf("worker counted %d rows for reader after the cut, want %d", got, Slack-1)
	}
}

// TestWorkerTrack: the worker counts at most Track members; the others wait
// for the full trim, which starts the counts afresh.
func TestWorkerTrack(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "a", "b", "author")
	follow(t, db, id["a"], id["author"])
	follow(t, db, id["b"], id["author"])
	w := newWorker(db)
	w.Track = 1
	publish(t, db, id["author"], 3, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	drain(t, w)
	if len(w.added) != 1 || !w.overflowed {
		t.Fatalf("worker counts %v (overflowed %v), want one member and overflowed", w.added, w.overflowed)
	}
	if _, err := w.trim(ctx, true); err != nil {
		t.Fatal(err)
	}
	if len(w.added) != 0 || w.overflowed {
		t.Fatalf("after the full trim the worker counts %v (overflowed %v), want none", w.added, w.overflowed)
	}
}

// TestWorkerRun: Run fans out, and trims in full every FullTrimEvery.
func TestWorkerRun(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "reader", "author", "lurker")
	follow(t, db, id["reader"], id["author"])
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	publish(t, db, id["author"], 3, start)
	publish(t, db, id["lurker"], Cap+Slack+1, start)
	w := newWorker(db)
	w.Idle, w.TrimEvery, w.FullTrimEvery = 10*time.Millisecond, 10*time.Millisecond, 50*time.Millisecond
	defer run(w)()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if rows(t, db, id["reader"]) == 3 && rows(t, db, id["lurker"]) == Cap {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s of Run, reader's timeline holds %d rows (want 3), lurker's %d (want %d)",
				rows(t, db, id["reader"]), rows(t, db, id["lurker"]), Cap)
		}
	}
}

// TestWorkerRunRests: Run makes members idle for DormantAfter dormant every
// RestEvery, and leaves the others (here: one who joined lately) alone.
func TestWorkerRunRests(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "idle", "new")
	db.MustExec(`UPDATE members SET created_at = now() - interval '30 days' WHERE id = $1`, id["idle"])
	w := newWorker(db)
	w.Idle, w.RestEvery, w.DormantAfter = 10*time.Millisecond, 20*time.Millisecond, 14*24*time.Hour
	defer run(w)()
	dormant := func(m string) bool {
		t.Helper()
		var ok bool
		if err := db.Get(&ok, `SELECT EXISTS (SELECT 1 FROM timeline_dormant WHERE member_id = $1)`, id[m]); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for deadline := time.Now().Add(30 * time.Second); !dormant("idle"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("after 30 s of Run, the idle member is not dormant")
		}
	}
	if dormant("new") {
		t.Fatal("a member who joined today was made dormant")
	}
}

// TestFanOutSkipsRowsAlreadyThere: a post a follow's merge already put in a
// timeline while it waited in the outbox is not written (nor counted) again,
// and a merge that commits the same row while the fan-out waits for it makes
// the fan-out run again rather than fail.
func TestFanOutSkipsRowsAlreadyThere(t *testing.T) {
	t.Parallel()
	db, id, start := readerOfAuthor(t)
	ctx := context.Background()
	publish(t, db, id["author"], 5, start)
	merge := `INSERT INTO timeline (member_id, created_at, post_id, author_id)
		SELECT $1, created_at, id, author_id FROM posts WHERE author_id = $2
		 ORDER BY id LIMIT $3`
	db.MustExec(merge, id["reader"], id["author"], 2)
	w := newWorker(db)
	drain(t, w)
	if got := rows(t, db, id["reader"]); got != 5 {
		t.Fatalf("reader's timeline holds %d rows, want 5", got)
	}
	if got := w.added[id["reader"]]; got != 3 {
		t.Errorf("worker counted %d rows for reader, want the 3 it wrote", got)
	}

	// The race: the merge's row is written, not yet committed, when the
	// fan-out's statement starts; the fan-out waits for it on the key.
	publish(t, db, id["author"], 1, start.Add(time.Hour))
	tx := db.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`INSERT INTO timeline (member_id, created_at, post_id, author_id)
		SELECT $1, created_at, id, author_id FROM posts WHERE author_id = $2
		 ORDER BY id DESC LIMIT 1`, id["reader"], id["author"])
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, _, err := FanOut(ctx, db, 10)
		done <- result{n, err}
	}()
	// Commit once the fan-out is waiting on the merge's transaction.
	waitOnLock(t, db, "claimed AS", "the fan-out never waited for the merge's row")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.err != nil || r.n != 1 {
		t.Fatalf("fan-out racing a merge = %d posts, %v; want 1, nil", r.n, r.err)
	}
	if got := rows(t, db, id["reader"]); got != 6 {
		t.Errorf("reader's timeline holds %d rows, want 6", got)
	}
	var pending int
	if err := db.Get(&pending, `SELECT count(*) FROM feed_outbox`); err != nil || pending != 0 {
		t.Errorf("outbox holds %d posts (%v), want 0", pending, err)
	}
}

// TestFanOutKeepsOneGenericPlan checks that the worker's fan-out runs as a
// prepared statement that PostgreSQL plans once: with its batch size as a
// parameter it was planned again on every call, a fifth of its cost.
func TestFanOutKeepsOneGenericPlan(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	db.SetMaxOpenConns(1) // every call on the connection whose plans are read below
	id := pgtest.Members(t, db, "reader", "author")
	follow(t, db, id["reader"], id["author"])
	publish(t, db, id["author"], 9, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	calls := drain(t, newWorker(db))
	if got := rows(t, db, id["reader"]); got != 9 {
		t.Fatalf("reader's timeline holds %d rows, want 9", got)
	}
	conn, err := db.Connx(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if generic, custom := pgtest.Plans(t, conn, fanOutSQL(drainBatch, false)); custom != 0 || generic != int64(calls) {
		t.Errorf("%d fan-outs: %d generic and %d custom plans, want every call on the generic plan", calls, generic, custom)
	}
}

// TestNextBatch: the worker's batch grows while statements come back full
// (a backlog), up to BurstFactor × Batch, falls back to Batch once one does
// not, and halves on failure.
func TestNextBatch(t *testing.T) {
	t.Parallel()
	failed := errors.New("statement timeout")
	cases := []struct {
		cur  int
		n    int64
		err  error
		want int
	}{
		{20, 20, nil, 40},
		{40, 40, nil, 80},
		{80, 80, nil, 100},
		{100, 100, nil, 100},
		{100, 37, nil, 20},
		{20, 3, nil, 20},
		{20, 0, nil, 20},
		{100, 0, failed, 50},
		{1, 0, failed, 1},
		{5, 5, nil, 10},
		{5, 2, nil, 10},
		{10, 1, nil, 20},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("cur %d n %d err %v", c.cur, c.n, c.err), func(t *testing.T) {
			if got := nextBatch(c.cur, 20, c.n, c.err); got != c.want {
				t.Errorf("nextBatch(%d, 20, %d, %v) = %d, want %d", c.cur, c.n, c.err, got, c.want)
			}
		})
	}
}

// TestWorkerFansOutWhileTrimming: Run's trim does not hold up the fan-out.
// Here the tick's cut of reader's timeline waits on a row another
// transaction holds, and meanwhile another author's new posts still reach
// their follower. With the trim in the fan-out's loop, a benchmark's tick
// stopped the fan-out for seconds (docs/performance-journal.md, "Trim
// beside the fan-out").
func TestWorkerFansOutWhileTrimming(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	id := pgtest.Members(t, db, "reader", "author", "reader2", "author2")
	follow(t, db, id["reader"], id["author"])
	follow(t, db, id["reader2"], id["author2"])
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	publish(t, db, id["author"], Cap+Slack+10, start)
	w := newWorker(db)
	drain(t, w) // reader is now due for a cut

	tx := db.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`SELECT 1 FROM timeline WHERE member_id = $1 AND author_id = $2
		ORDER BY created_at, post_id LIMIT 1 FOR UPDATE`, id["reader"], id["author"])
	w.Idle, w.TrimEvery = 10*time.Millisecond, 10*time.Millisecond
	defer run(w)()
	waitOnLock(t, db, "edge AS", "the trim never waited for the held row")
	publish(t, db, id["author2"], 3, start.Add(time.Hour))
	waitRows(t, db, id["reader2"], 3, 10*time.Second, "while a trim waited, reader2's timeline")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	waitRows(t, db, id["reader"], Cap, 10*time.Second, "after the row was let go, reader's timeline")
}

// TestWorkerHelpsWithABacklog: a backlog of full bursts wakes the helper
// loop, which fans out beside the main one, every post exactly once; a few
// posts do not wake it.
func TestWorkerHelpsWithABacklog(t *testing.T) {
	t.Parallel()
	db, id, start := readerOfAuthor(t)
	w := newWorker(db)
	w.Idle, w.Batch = 10*time.Millisecond, 2 // bursts of 10
	publish(t, db, id["author"], 3, start)
	stop := run(w)
	waitRows(t, db, id["reader"], 3, 10*time.Second, "reader's timeline")
	if h := w.helped.Load(); h != 0 {
		t.Fatalf("the helper fanned out %d of 3 posts, want none (no backlog)", h)
	}
	stop()

	// Large enough that the main loop cannot drain it alone before the
	// helper's first statement: with 600 posts, a full `make test` on a
	// clean clone once saw the main loop take all of them (the helper,
	// woken, found the outbox empty).
	const backlog = 4000
	publish(t, db, id["author"], backlog, start.Add(time.Hour))
	defer run(w)()
	waitRows(t, db, id["reader"], 3+backlog, 30*time.Second, "reader's timeline")
	var pending int
	if err := db.Get(&pending, `SELECT count(*) FROM feed_outbox`); err != nil || pending != 0 {
		t.Fatalf("outbox holds %d posts (%v), want 0", pending, err)
	}
	t.Logf("the helper fanned out %d of %d posts", w.helped.Load(), backlog)
	if h := w.helped.Load(); h == 0 || h >= backlog {
		t.Errorf("the helper fanned out %d of a backlog of %d posts, want some and not all", h, backlog)
	}
}

// TestWorkerVacuumsTheOutbox: the worker vacuums feed_outbox itself once
// it has fanned out OutboxVacuumPosts posts (outbox.go).
func TestWorkerVacuumsTheOutbox(t *testing.T) {
	t.Parallel()
	db, id, start := readerOfAuthor(t)
	vacuums := func() (n int) {
		t.Helper()
		if err := db.Get(&n, `SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'feed_outbox'`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := vacuums()
	w := newWorker(db)
	w.OutboxVacuumPosts = 30
	publish(t, db, id["author"], 20, start)
	drain(t, w)
	w.vacuum.wait()
	if n := w.vacuum.done.Load(); n != 0 {
		t.Fatalf("%d vacuums after 20 posts, want none before 30", n)
	}
	publish(t, db, id["author"], 20, start.Add(time.Hour))
	drain(t, w)
	w.vacuum.wait()
	if n := w.vacuum.done.Load(); n != 1 {
		t.Fatalf("%d vacuums after 40 posts, want 1", n)
	}
	for deadline := time.Now().Add(5 * time.Second); vacuums() == before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("feed_outbox was not vacuumed (pg_stat_user_tables.vacuum_count)")
		}
	}
	if got := rows(t, db, id["reader"]); got != 40 {
		t.Fatalf("reader's timeline holds %d rows, want 40", got)
	}
}

// TestOutboxVacuumTurns: a vacuum starts once enough posts have gone, at
// most one at a time and one a second, and never when turned off.
func TestOutboxVacuumTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	release := make(chan struct{})
	var runs int
	run := func(context.Context) error { runs++; <-release; return nil }
	fail := func(err error) { t.Errorf("vacuum failed: %v", err) }

	v := &outboxVacuum{}
	v.fannedOut(ctx, 9, 10, run, fail)
	if v.running.Load() {
		t.Fatal("a vacuum started after 9 of 10 posts")
	}
	v.fannedOut(ctx, 1, 10, run, fail)
	if !v.running.Load() {
		t.Fatal("no vacuum after 10 of 10 posts")
	}
	v.fannedOut(ctx, 50, 10, run, fail) // one in flight, and within the gap
	close(release)
	v.wait()
	if runs != 1 {
		t.Fatalf("%d vacuums, want 1", runs)
	}
	v.fannedOut(ctx, 50, 10, run, fail) // past the count, within the gap
	v.wait()
	if runs != 1 {
		t.Fatalf("%d vacuums within a second of the last, want 1", runs)
	}
	v.last.Store(time.Now().Add(-outboxVacuumGap).UnixNano())
	v.fannedOut(ctx, 1, 10, run, fail)
	v.wait()
	if runs != 2 {
		t.Fatalf("%d vacuums once the gap passed, want 2", runs)
	}

	off := &outboxVacuum{}
	off.fannedOut(ctx, 1_000_000, -1, run, fail)
	off.wait()
	if runs != 2 {
		t.Fatalf("a vacuum ran with vacuums turned off")
	}
}
