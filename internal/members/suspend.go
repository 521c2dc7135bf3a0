package members

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// Suspension is an operator's suspension of a member (a member_suspensions
// row): open while LiftedAt is nil. members.suspended_at says whether a
// member is suspended now; the rows say why and since when, for audits.
type Suspension struct {
	ID          int64      `db:"id"`
	MemberID    int64      `db:"member_id"`
	Handle      string     `db:"handle"`
	SuspendedAt time.Time  `db:"suspended_at"`
	Reason      string     `db:"reason"`
	LiftedAt    *time.Time `db:"lifted_at"`
	LiftReason  *string    `db:"lift_reason"`
}

// ErrAlreadySuspended and ErrNotSuspended are what Suspend and Unsuspend
// answer (wrapped in an *apperr.Error that names the member) when there is
// nothing to do: they write nothing then.
var (
	ErrAlreadySuspended = errors.New("member already suspended")
	ErrNotSuspended     = errors.New("member not suspended")
)

// unrecordedReason is the reason of the record Unsuspend writes for a
// suspension that has none (one written before suspensions were recorded,
// or by a fixture), so that every lifting is recorded with its reason.
const unrecordedReason = "Not recorded: suspended before suspensions were recorded."

// validReason checks an operator's reason: 1 to 1000 characters, not only
// white space (the schema bounds the length too).
func validReason(reason string) error {
	if strings.TrimSpace(reason) == "" || utf8.RuneCountInString(reason) > 1000 {
		return apperr.Field("/reason", apperr.FieldInvalid, "reason must be 1 to 1000 characters, not only white space")
	}
	return nil
}

// lockSQL reads the member with the handle $1 and locks the row: two
// operators' commands on one member take turns, and the second reads what
// the first wrote (it then finds nothing to do).
const lockSQL = `
	SELECT id, handle, suspended_at FROM members WHERE lower(handle) = lower($1) FOR NO KEY UPDATE`

type locked struct {
	ID          int64      `db:"id"`
	Handle      string     `db:"handle"`
	SuspendedAt *time.Time `db:"suspended_at"`
}

// lock reads and locks the member with handle within tx; an unknown handle
// is NotFound.
func lock(ctx context.Context, tx *sqlx.Tx, handle string) (locked, error) {
	var m locked
	err := tx.GetContext(ctx, &m, lockSQL, handle)
	if errors.Is(err, sql.ErrNoRows) {
		return locked{}, apperr.New(apperr.NotFound, fmt.Sprintf("no member with handle %q", handle))
	}
	if err != nil {
		return locked{}, pg.Classify(ctx, fmt.Errorf("find member: %w", err))
	}
	return m, nil
}

// suspendSQL suspends the member $1 now and opens the record of it with
// the reason $2.
const suspendSQL = `
	WITH m AS (
	    UPDATE members SET suspended_at = now() WHERE id = $1 RETURNING id, handle, suspended_at
	), s AS (
	    INSERT INTO member_suspensions (member_id, suspended_at, reason)
	    SELECT id, suspended_at, $2 FROM m
	    RETURNING id, member_id, suspended_at, reason, lifted_at, lift_reason
	)
	SELECT s.*, m.handle FROM s JOIN m ON m.id = s.member_id`

// Suspend suspends the member with handle for reason, in one transaction:
// members.suspended_at is set and an open member_suspensions row records
// why. From then on the member's tokens answer account_suspended and what
// they wrote is hidden from everyone (internal/visibility). Suspending a
// suspended member writes nothing and answers ErrAlreadySuspended.
func (s *Store) Suspend(ctx context.Context, handle, reason string) (Suspension, error) {
	var out Suspension
	err := s.change(ctx, handle, reason, false, func(tx *sqlx.Tx, m locked) error {
		if err := tx.GetContext(ctx, &out, suspendSQL, m.ID, reason); err != nil {
			return pg.Classify(ctx, fmt.Errorf("suspend member: %w", err))
		}
		return nil
	})
	return out, err
}

// change runs write for the member with handle, locked, in one transaction,
// once reason is valid and the member's state is the one the change starts
// from: suspended (else ErrNotSuspended) or not (else ErrAlreadySuspended).
func (s *Store) change(ctx context.Context, handle, reason string, suspended bool, write func(tx *sqlx.Tx, m locked) error) error {
	if err := validReason(reason); err != nil {
		return err
	}
	return pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		m, err := lock(ctx, tx, handle)
		switch {
		case err != nil:
			return err
		case !suspended && m.SuspendedAt != nil:
			return apperr.Wrap(apperr.ValidationFailed, fmt.Sprintf("@%s is already suspended (since %s)",
				m.Handle, m.SuspendedAt.UTC().Format(time.RFC3339)), ErrAlreadySuspended)
		case suspended && m.SuspendedAt == nil:
			return apperr.Wrap(apperr.ValidationFailed, fmt.Sprintf("@%s is not suspended", m.Handle), ErrNotSuspended)
		}
		return write(tx, m)
	})
}

// unsuspendSQL lifts the suspension of the member $1 now: clears
// members.suspended_at and closes the open record with the reason $2.
const unsuspendSQL = `
	WITH m AS (
	    UPDATE members SET suspended_at = NULL WHERE id = $1 RETURNING id, handle
	), s AS (
	    UPDATE member_suspensions SET lifted_at = now(), lift_reason = $2
	     WHERE member_id = $1 AND lifted_at IS NULL
	    RETURNING id, member_id, suspended_at, reason, lifted_at, lift_reason
	)
	SELECT s.*, m.handle FROM m LEFT JOIN s ON s.member_id = m.id`

// recordSQL records, closed, a suspension of the member $1 since $2 that
// had no record, lifted now with the reason $3.
const recordSQL = `
	INSERT INTO member_suspensions (member_id, suspended_at, reason, lifted_at, lift_reason)
	VALUES ($1, $2, '` + unrecordedReason + `', now(), $3)
	RETURNING id, member_id, suspended_at, reason, lifted_at, lift_reason, $4::text AS handle`

// Unsuspend lifts the suspension of the member with handle for reason, in
// one transaction: members.suspended_at is cleared and the open
// member_suspensions row is closed (lifted_at, lift_reason); a suspension
// without a record gets a closed one. Everything the suspension hid is
// seen again. Unsuspending a member who is not suspended writes nothing and
// answers ErrNotSuspended.
func (s *Store) Unsuspend(ctx context.Context, handle, reason string) (Suspension, error) {
	var out Suspension
	err := s.change(ctx, handle, reason, true, func(tx *sqlx.Tx, m locked) error {
		var row struct {
			ID          *int64     `db:"id"`
			MemberID    *int64     `db:"member_id"`
			Handle      string     `db:"handle"`
			SuspendedAt *time.Time `db:"suspended_at"`
			Reason      *string    `db:"reason"`
			LiftedAt    *time.Time `db:"lifted_at"`
			LiftReason  *string    `db:"lift_reason"`
		}
		if err := tx.GetContext(ctx, &row, unsuspendSQL, m.ID, reason); err != nil {
			return pg.Classify(ctx, fmt.Errorf("unsuspend member: %w", err))
		}
		if row.ID == nil {
			if err := tx.GetContext(ctx, &out, recordSQL, m.ID, *m.SuspendedAt, reason, m.Handle); err != nil {
				return pg.Classify(ctx, fmt.Errorf("record the lifted suspension: %w", err))
			}
			return nil
		}
		out = Suspension{ID: *row.ID, MemberID: *row.MemberID, Handle: row.Handle, SuspendedAt: *row.SuspendedAt,
			Reason: *row.Reason, LiftedAt: row.LiftedAt, LiftReason: row.LiftReason}
		return nil
	})
	return out, err
}
