// Package pg opens PostgreSQL, runs transactions, applies migrations and
// translates driver errors into apperr kinds in one place.
package pg

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
)

// PoolConfig sizes the connection pool.
type PoolConfig struct {
	MaxOpen     int
	MaxIdle     int
	MaxLifetime time.Duration
	MaxIdleTime time.Duration
	// StatementTimeout, when positive, is the statement_timeout every
	// connection starts with: PostgreSQL itself stops a statement that runs
	// longer (SQLSTATE 57014, classified Unavailable), even one whose client
	// has stopped listening. Zero keeps the role's or database's setting.
	// The same bound applies to a transaction left idle (an open
	// transaction holds back the event streams' delivery horizon:
	// migration 000036).
	StatementTimeout time.Duration
}

// DefaultPool is sized for a small machine: 2-4x the database's cores.
var DefaultPool = PoolConfig{MaxOpen: 16, MaxIdle: 16, MaxLifetime: 30 * time.Minute, MaxIdleTime: 5 * time.Minute}

// Open connects to dsn, sizes the pool and checks the connection within ctx.
func Open(ctx context.Context, dsn string, pc PoolConfig) (*sqlx.DB, error) {
	db, err := Connect(dsn, pc)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return db, nil
}

// Connect prepares a sized pool for dsn without contacting the database, so a
// server can start before PostgreSQL does (connections are made on demand).
func Connect(dsn string, pc PoolConfig) (*sqlx.DB, error) {
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if pc.StatementTimeout > 0 {
		// A start-up parameter: it holds from the first statement on, and
		// RESET (or a pooler's DISCARD ALL) returns to it.
		cfg = cfg.Clone()
		ms := strconv.FormatInt(max(pc.StatementTimeout.Milliseconds(), 1), 10)
		cfg.Runtime["statement_timeout"] = ms
		cfg.Runtime["idle_in_transaction_session_timeout"] = ms
	}
	db := sqlx.NewDb(sql.OpenDB(&connector{cfg: cfg}), "postgres")
	db.SetMaxOpenConns(pc.MaxOpen)
	db.SetMaxIdleConns(pc.MaxIdle)
	db.SetConnMaxLifetime(pc.MaxLifetime)
	db.SetConnMaxIdleTime(pc.MaxIdleTime)
	return db, nil
}

// WithTx runs fn in a transaction: committed when fn returns nil, rolled back
// on error or panic.
func WithTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		if sqlState(err) == "0A000" {
			// lib/pq always begins READ WRITE; a hot standby (a database
			// that is read-only for now) refuses that as "not supported".
			return apperr.TryLater(fmt.Errorf("begin: %w", err))
		}
		return Classify(ctx, fmt.Errorf("begin: %w", err))
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.Commit(); err != nil {
		return Classify(ctx, fmt.Errorf("commit: %w", err))
	}
	return nil
}

// ConstraintOf returns the name of the constraint err violated, or "".
func ConstraintOf(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return pe.Constraint
	}
	return ""
}

// Classify turns a database error into an apperr kind: an unreachable,
// restarting, read-only or overloaded database (or a request whose deadline
// ran out while waiting for it) becomes Unavailable; anything already
// classified passes through; the rest is Internal. The cause is kept.
func Classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	if IsUnavailable(ctx, err) {
		return apperr.TryLater(err)
	}
	return apperr.Wrap(apperr.Internal, "An unexpected error occurred.", err)
}

// IsUnavailable reports whether err means the database cannot serve right now
// rather than that the query is wrong.
func IsUnavailable(ctx context.Context, err error) bool {
	if ctx != nil && ctx.Err() != nil {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		c := string(pe.Code)
		switch {
		case strings.HasPrefix(c, "08"), // connection exception
			strings.HasPrefix(c, "53"), // insufficient resources (too many connections)
			strings.HasPrefix(c, "57"), // operator intervention: shutdown, cannot connect now, query canceled (statement_timeout)
			c == "25006",               // read-only transaction
			c == "40001", c == "40P01": // serialization failure, deadlock: retryable
			return true
		}
	}
	return false
}

// IsReadOnly reports whether err is PostgreSQL refusing a write because the
// transaction or database is read-only (SQLSTATE 25006).
func IsReadOnly(err error) bool {
	return sqlState(err) == "25006"
}

// sqlState is the SQLSTATE of a PostgreSQL error in err's chain, or "".
func sqlState(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// IsUniqueViolation reports whether err is PostgreSQL refusing a row whose
// key a unique index already holds (SQLSTATE 23505).
func IsUniqueViolation(err error) bool {
	return sqlState(err) == "23505"
}
