package members_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// record is a member_suspensions row as the tests compare it.
type record struct {
	SuspendedAt time.Time  `db:"suspended_at"`
	Reason      string     `db:"reason"`
	LiftedAt    *time.Time `db:"lifted_at"`
	LiftReason  *string    `db:"lift_reason"`
}

// state is a member's suspension state: members.suspended_at and the
// member's records, oldest first.
type state struct {
	suspendedAt *time.Time
	records     []record
}

func stateOf(t *testing.T, db *sqlx.DB, id int64) state {
	t.Helper()
	var st state
	if err := db.Get(&st.suspendedAt, `SELECT suspended_at FROM members WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := db.Select(&st.records, `SELECT suspended_at, reason, lifted_at, lift_reason FROM member_suspensions WHERE member_id = $1 ORDER BY id`, id); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSuspend: suspending sets members.suspended_at and opens a record with
// the reason; unsuspending clears it and closes the record with its
// reason; suspending again opens a second record. Suspending a suspended
// member, unsuspending one who is not, an unknown handle and a bad reason
// are errors that write nothing.
func TestSuspend(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "alice", "bob")["alice"]
	s := members.NewStore(db)

	sus, err := s.Suspend(ctx, "ALICE", "Spam, repeatedly.")
	if err != nil {
		t.Fatal(err)
	}
	if sus.MemberID != id || sus.Handle != "alice" || sus.Reason != "Spam, repeatedly." || sus.LiftedAt != nil || sus.LiftReason != nil || sus.ID == 0 {
		t.Errorf("Suspend = %+v", sus)
	}
	st := stateOf(t, db, id)
	if st.suspendedAt == nil || !st.suspendedAt.Equal(sus.SuspendedAt) || len(st.records) != 1 ||
		!st.records[0].SuspendedAt.Equal(sus.SuspendedAt) || st.records[0].Reason != "Spam, repeatedly." || st.records[0].LiftedAt != nil {
		t.Fatalf("after Suspend: %+v", st)
	}

	nothing := func(step string, err error, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", step, err, want)
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Detail == "" {
			t.Errorf("%s: %v has no detail for the operator", step, err)
		}
		if got := stateOf(t, db, id); !equalState(got, st) {
			t.Errorf("%s wrote: %+v, then %+v", step, st, got)
		}
	}
	_, err = s.Suspend(ctx, "alice", "Again.")
	nothing("suspend a suspended member", err, members.ErrAlreadySuspended)

	lifted, err := s.Unsuspend(ctx, "alice", "Appeal granted.")
	if err != nil {
		t.Fatal(err)
	}
	if lifted.ID != sus.ID || lifted.Handle != "alice" || !lifted.SuspendedAt.Equal(sus.SuspendedAt) || lifted.Reason != sus.Reason ||
		lifted.LiftedAt == nil || lifted.LiftReason == nil || *lifted.LiftReason != "Appeal granted." {
		t.Errorf("Unsuspend = %+v", lifted)
	}
	st = stateOf(t, db, id)
	if st.suspendedAt != nil || len(st.records) != 1 || st.records[0].LiftedAt == nil || *st.records[0].LiftReason != "Appeal granted." {
		t.Fatalf("after Unsuspend: %+v", st)
	}
	_, err = s.Unsuspend(ctx, "alice", "Again.")
	nothing("unsuspend a member who is not suspended", err, members.ErrNotSuspended)

	for _, reason := range []string{"", "   ", "\n\t", strings.Repeat("x", 1001), strings.Repeat("é", 1001)} {
		_, err := s.Suspend(ctx, "alice", reason)
		if ae := (*apperr.Error)(nil); !errors.As(err, &ae) || ae.Code != apperr.ValidationFailed {
			t.Errorf("Suspend with a reason of %d characters: %v, want a validation error", len(reason), err)
		}
		if got := stateOf(t, db, id); !equalState(got, st) {
			t.Errorf("Suspend with a bad reason wrote: %+v", got)
		}
	}
	for _, h := range []string{"nobody", ""} {
		if _, err := s.Suspend(ctx, h, "x"); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("Suspend(%q) = %v, want not found", h, err)
		}
		if _, err := s.Unsuspend(ctx, h, "x"); !apperr.Is(err, apperr.NotFound) {
			t.Errorf("Unsuspend(%q) = %v, want not found", h, err)
		}
	}

	// The longest reason, in characters that take two bytes.
	long := strings.Repeat("é", 1000)
	if _, err := s.Suspend(ctx, "alice", long); err != nil {
		t.Fatalf("Suspend with 1000 characters: %v", err)
	}
	if _, err := s.Unsuspend(ctx, "alice", long); err != nil {
		t.Fatalf("Unsuspend with 1000 characters: %v", err)
	}
	st = stateOf(t, db, id)
	if st.suspendedAt != nil || len(st.records) != 2 || st.records[1].Reason != long || *st.records[1].LiftReason != long {
		t.Errorf("second suspension: %+v", st)
	}
}

func equalState(a, b state) bool {
	if (a.suspendedAt == nil) != (b.suspendedAt == nil) || (a.suspendedAt != nil && !a.suspendedAt.Equal(*b.suspendedAt)) || len(a.records) != len(b.records) {
		return false
	}
	for i := range a.records {
		x, y := a.records[i], b.records[i]
		if !x.SuspendedAt.Equal(y.SuspendedAt) || x.Reason != y.Reason || (x.LiftedAt == nil) != (y.LiftedAt == nil) ||
			(x.LiftReason == nil) != (y.LiftReason == nil) || (x.LiftReason != nil && *x.LiftReason != *y.LiftReason) {
			return false
		}
	}
	return true
}

// TestUnsuspendUnrecorded: a suspension written without its record (before
// suspensions were recorded, or by a fixture) is lifted, and the lifting
// recorded, closed, with the suspension's time.
func TestUnsuspendUnrecorded(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "old")["old"]
	since := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	db.MustExec(`UPDATE members SET suspended_at = $2 WHERE id = $1`, id, since)
	s := members.NewStore(db)
	lifted, err := s.Unsuspend(ctx, "old", "Cleared.")
	if err != nil {
		t.Fatal(err)
	}
	if !lifted.SuspendedAt.Equal(since) || lifted.LiftedAt == nil || *lifted.LiftReason != "Cleared." || lifted.Reason == "" || lifted.Handle != "old" {
		t.Errorf("Unsuspend = %+v", lifted)
	}
	st := stateOf(t, db, id)
	if st.suspendedAt != nil || len(st.records) != 1 || !st.records[0].SuspendedAt.Equal(since) || st.records[0].LiftedAt == nil {
		t.Errorf("after Unsuspend: %+v", st)
	}
}

// TestSuspendConcurrent: of two suspensions of one member at once, one
// suspends and the other finds the member suspended; the same for two
// unsuspensions.
func TestSuspendConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "alice")["alice"]
	s := members.NewStore(db)
	for _, op := range []struct {
		name string
		run  func() error
		none error
	}{
		{"suspend", func() error { _, err := s.Suspend(ctx, "alice", "x"); return err }, members.ErrAlreadySuspended},
		{"unsuspend", func() error { _, err := s.Unsuspend(ctx, "alice", "y"); return err }, members.ErrNotSuspended},
	} {
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = op.run() }()
		}
		wg.Wait()
		done := 0
		for _, err := range errs {
			switch {
			case err == nil:
				done++
			case !errors.Is(err, op.none):
				t.Errorf("%s: %v", op.name, err)
			}
		}
		if done != 1 {
			t.Errorf("%s: %d of 4 concurrent calls succeeded, want 1", op.name, done)
		}
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM member_suspensions WHERE member_id = $1 AND lifted_at IS NOT NULL`, id); err != nil || n != 1 {
		t.Errorf("%d closed records, %v; want 1", n, err)
	}
}
