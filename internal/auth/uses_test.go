package auth_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// usesFixture is a store over a fresh database with member alice, a clock at
// a whole microsecond (what PostgreSQL keeps) and helpers to read a token's
// last use and its api_tokens row version.
type usesFixture struct {
	t   *testing.T
	db  *sqlx.DB
	clk *clock
	st  *auth.Store
}

func newUsesFixture(t *testing.T) *usesFixture {
	t.Helper()
	db := pgtest.New(t)
	pgtest.Members(t, db, "alice")
	clk := &clock{t: time.Now().Truncate(time.Microsecond)}
	return &usesFixture{t: t, db: db, clk: clk, st: auth.NewStore(db, clk.now)}
}

func (f *usesFixture) token() (auth.Token, string) {
	f.t.Helper()
	tk, tok, err := f.st.Create(context.Background(), auth.NewToken{Handle: "alice", Scope: auth.ScopeRead})
	if err != nil {
		f.t.Fatal(err)
	}
	return tk, tok
}

// lastUsed is the token's api_token_uses time (nil: no row).
func (f *usesFixture) lastUsed(id int64) *time.Time {
	f.t.Helper()
	var at time.Time
	err := f.db.Get(&at, `SELECT last_used_at FROM api_token_uses WHERE token_id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return &at
}

func (f *usesFixture) wantLastUsed(id int64, want time.Time) {
	f.t.Helper()
	if got := f.lastUsed(id); got == nil || !got.Equal(want) {
		f.t.Fatalf("token %d: last used %v, want %v", id, got, want)
	}
}

// version is the api_tokens row's version (tokenRowVersion).
func (f *usesFixture) version(id int64) string { return tokenRowVersion(f.t, f.db, id) }

// tokenRowVersion is api_tokens row id's xmin and ctid: any UPDATE of the
// row, HOT or not, changes both (a row lock, as a foreign key check takes,
// neither).
func tokenRowVersion(t *testing.T, db *sqlx.DB, id int64) string {
	t.Helper()
	var v string
	if err := db.Get(&v, `SELECT xmin::text || ' ' || ctid::text FROM api_tokens WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return v
}

// touch records due (token id → when used) in one batch, as the recall's
// background writer does.
func (f *usesFixture) touch(due map[int64]time.Time) {
	f.t.Helper()
	if err := f.st.TouchBatch(context.Background(), due); err != nil {
		f.t.Fatal(err)
	}
}

// touchedPair creates two tokens and records a use of both, at the clock's
// time, in one batch.
func (f *usesFixture) touchedPair() (a, b auth.Token, at time.Time) {
	f.t.Helper()
	a, _ = f.token()
	b, _ = f.token()
	at = f.clk.now()
	f.touch(map[int64]time.Time{a.ID: at, b.ID: at})
	return a, b, at
}

// wantNoUse fails the test if token id has a recorded use.
func (f *usesFixture) wantNoUse(id int64) {
	f.t.Helper()
	if got := f.lastUsed(id); got != nil {
		f.t.Errorf("token %d (deleted) last used %v", id, got)
	}
}

// TestUsesLeaveTokensAlone: recording a token's use, by Authenticate or by a
// recall's batch, writes api_token_uses and never api_tokens, whose every
// change would make the hot statements plan again once vacuumed.
func TestUsesLeaveTokensAlone(t *testing.T) {
	t.Parallel()
	f := newUsesFixture(t)
	ctx := context.Background()
	tk, tok := f.token()
	if tk.LastUsedAt != nil {
		t.Errorf("a new token was last used %v", tk.LastUsedAt)
	}
	v := f.version(tk.ID)

	first := f.clk.now()
	if _, err := f.st.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	f.wantLastUsed(tk.ID, first)

	// Within lastUsedEvery nothing is written; past it, the row is updated.
	f.clk.add(time.Minute)
	if _, err := f.st.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	f.wantLastUsed(tk.ID, first)
	f.clk.add(5 * time.Minute)
	second := f.clk.now()
	if _, err := f.st.Authenticate(ctx, tok); err != nil {
		t.Fatal(err)
	}
	f.wantLastUsed(tk.ID, second)

	third := second.Add(6 * time.Minute)
	f.touch(map[int64]time.Time{tk.ID: third})
	f.wantLastUsed(tk.ID, third)
	if got := f.version(tk.ID); got != v {
		t.Errorf("api_tokens row went from version %s to %s", v, got)
	}

	ts, err := f.st.List(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].LastUsedAt == nil || !ts[0].LastUsedAt.Equal(third) {
		t.Fatalf("List = %+v, want the token last used %v", ts, third)
	}
	rv, err := f.st.Revoke(ctx, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rv.LastUsedAt == nil || !rv.LastUsedAt.Equal(third) || rv.RevokedAt == nil {
		t.Errorf("Revoke = %+v, want it revoked and last used %v", rv, third)
	}
}

// TestTouchBatchNeverBack: a batch written late (a use it carries is older
// than one Authenticate recorded meanwhile) leaves the newer time.
func TestTouchBatchNeverBack(t *testing.T) {
	t.Parallel()
	f := newUsesFixture(t)
	a, b, at := f.touchedPair()
	f.touch(map[int64]time.Time{a.ID: at.Add(-time.Minute), b.ID: at.Add(time.Minute)})
	f.wantLastUsed(a.ID, at)
	f.wantLastUsed(b.ID, at.Add(time.Minute))
}

// TestTouchBatchDeletedToken: a token deleted after it was recalled does not
// keep the batch from recording the others, whether it was gone when the
// batch began or its delete committed while the batch waited for it.
func TestTouchBatchDeletedToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("gone before", func(t *testing.T) {
		t.Parallel()
		f := newUsesFixture(t)
		a, _ := f.token()
		b, _ := f.token()
		f.db.MustExec(`DELETE FROM api_tokens WHERE id = $1`, b.ID)
		at := f.clk.now()
		f.touch(map[int64]time.Time{a.ID: at, b.ID: at})
		f.wantLastUsed(a.ID, at)
		f.wantNoUse(b.ID)
	})
	for _, usedBefore := range []bool{false, true} {
		name := "deleted meanwhile, never used"
		if usedBefore {
			name = "deleted meanwhile, used before"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newUsesFixture(t)
			a, _ := f.token()
			b, _ := f.token()
			at := f.clk.now()
			if usedBefore {
				f.touch(map[int64]time.Time{a.ID: at.Add(-time.Hour), b.ID: at.Add(-time.Hour)})
			}
			// The delete holds b's row until it commits: the batch, whose
			// snapshot still has b, waits for it, then finds b gone.
			tx := f.db.MustBegin()
			defer tx.Rollback()
			tx.MustExec(`DELETE FROM api_tokens WHERE id = $1`, b.ID)
			done := make(chan error, 1)
			go func() { done <- f.st.TouchBatch(ctx, map[int64]time.Time{a.ID: at, b.ID: at}) }()
			f.waitForLock("the batch")
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("TouchBatch: %v", err)
			}
			f.wantLastUsed(a.ID, at)
			f.wantNoUse(b.ID)
		})
	}
}

// TestUsesGoWithTheirToken: deleting a token, or its member, deletes its
// last use.
func TestUsesGoWithTheirToken(t *testing.T) {
	t.Parallel()
	f := newUsesFixture(t)
	a, b, at := f.touchedPair()
	f.db.MustExec(`DELETE FROM api_tokens WHERE id = $1`, a.ID)
	f.wantNoUse(a.ID)
	f.wantLastUsed(b.ID, at)
	f.db.MustExec(`DELETE FROM members WHERE handle = 'alice'`)
	var n int
	if err := f.db.Get(&n, `SELECT count(*) FROM api_token_uses`); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d uses left after their member was deleted", n)
	}
}

// TestAuthenticateTokenDeletedMeanwhile: a token deleted between
// Authenticate's lookup and its write of the use is accepted as the lookup
// found it (as if the delete came just after), not an error.
func TestAuthenticateTokenDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	f := newUsesFixture(t)
	ctx := context.Background()
	tk, tok := f.token()
	tx := f.db.MustBegin()
	defer tx.Rollback()
	tx.MustExec(`DELETE FROM api_tokens WHERE id = $1`, tk.ID)
	type result struct {
		p   auth.Principal
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := f.st.Authenticate(ctx, tok)
		done <- result{p, err}
	}()
	f.waitForLock("Authenticate's write")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.p.TokenID != tk.ID {
		t.Fatalf("Authenticate = %+v, %v; want token %d", r.p, r.err, tk.ID)
	}
	f.wantNoUse(tk.ID)
}

// waitForLock waits (at most 10 s) until a statement on api_token_uses waits
// for a lock: what, a write started on another goroutine, is then blocked by
// the test's uncommitted delete (a write that ended without waiting fails
// the test here).
func (f *usesFixture) waitForLock(what string) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var waiting bool
		if err := f.db.Get(&waiting, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%api_token_uses%')`); err != nil {
			f.t.Fatal(err)
		}
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatal(what + " is not waiting for the delete")
		}
	}
}
