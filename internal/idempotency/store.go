// Package idempotency stores the outcome of POST requests sent with an
// Idempotency-Key (Stripe semantics), in PostgreSQL so that a retry reaching
// any instance replays the first response.
package idempotency

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
)

// TTL is how long a key is remembered.
const TTL = 24 * time.Hour

// Outcome says what to do with a request that carries a key.
type Outcome int

// The outcomes of Begin.
const (
	Proceed Outcome = iota // first use: run the request, then Finish or Abandon
	Replay                 // a finished request: replay Stored
	InUse                  // the first request is still running
	Reused                 // the key was used for a different request
)

// Response is a recorded response.
type Response struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// Store reads and writes idempotency_keys.
type Store struct {
	db         *sqlx.DB
	now        func() time.Time
	staleAfter time.Duration
}

// NewStore returns a Store. An in-flight key older than staleAfter (a
// request that died with its instance) is taken over by the next retry.
func NewStore(db *sqlx.DB, staleAfter time.Duration) *Store {
	return &Store{db: db, now: time.Now, staleAfter: staleAfter}
}

// Hash fingerprints a request: its operation, path and body.
func Hash(method, path string, body []byte) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\n", method, path)
	h.Write(body)
	return h.Sum(nil)
}

// Begin claims key for a request of operation op with fingerprint hash.
func (s *Store) Begin(ctx context.Context, memberID int64, key, op string, hash []byte) (Outcome, *Response, error) {
	now := s.now()
	// One statement claims a new key or an expired one (replaced as if it
	// had been deleted first); a key in use or finished is left alone.
	const claim = `
		INSERT INTO idempotency_keys AS k (member_id, key, operation, request_hash, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (member_id, key) DO UPDATE
		   SET operation = excluded.operation, request_hash = excluded.request_hash,
		       created_at = excluded.created_at, status = NULL, response_headers = NULL, response_body = NULL
		 WHERE k.created_at < $6`
	res, err := s.db.ExecContext(ctx, claim, memberID, key, op, hash, now, now.Add(-TTL))
	if err != nil {
		return 0, nil, pg.Classify(ctx, fmt.Errorf("claim idempotency key: %w", err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return Proceed, nil, nil
	}
	var row struct {
		Operation string        `db:"operation"`
		Hash      []byte        `db:"request_hash"`
		Status    sql.NullInt64 `db:"status"`
		Headers   []byte        `db:"response_headers"`
		Body      []byte        `db:"response_body"`
		CreatedAt time.Time     `db:"created_at"`
	}
	const get = `
		SELECT operation, request_hash, status, response_headers, response_body, created_at
		  FROM idempotency_keys WHERE member_id = $1 AND key = $2`
	err = s.db.GetContext(ctx, &row, get, memberID, key)
	if errors.Is(err, sql.ErrNoRows) { // finished and abandoned in between: claim again
		return s.Begin(ctx, memberID, key, op, hash)
	}
	if err != nil {
		return 0, nil, pg.Classify(ctx, fmt.Errorf("read idempotency key: %w", err))
	}
	if row.Operation != op || string(row.Hash) != string(hash) {
		return Reused, nil, nil
	}
	if !row.Status.Valid {
		if row.CreatedAt.Before(now.Add(-s.staleAfter)) {
			const takeOver = `UPDATE idempotency_keys SET created_at = $3
			                   WHERE member_id = $1 AND key = $2 AND status IS NULL AND created_at = $4`
			res, err := s.db.ExecContext(ctx, takeOver, memberID, key, now, row.CreatedAt)
			if err != nil {
				return 0, nil, pg.Classify(ctx, fmt.Errorf("take over idempotency key: %w", err))
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return Proceed, nil, nil
			}
		}
		return InUse, nil, nil
	}
	r := &Response{Status: int(row.Status.Int64), Body: row.Body, Headers: map[string]string{}}
	if len(row.Headers) > 0 {
		if err := json.Unmarshal(row.Headers, &r.Headers); err != nil {
			return 0, nil, fmt.Errorf("decode stored headers: %w", err)
		}
	}
	return Replay, r, nil
}

// Finish records the response of a claimed key.
func (s *Store) Finish(ctx context.Context, memberID int64, key string, r Response) error {
	h, err := json.Marshal(r.Headers)
	if err != nil {
		return err
	}
	const q = `UPDATE idempotency_keys SET status = $3, response_headers = $4, response_body = $5
	            WHERE member_id = $1 AND key = $2 AND status IS NULL`
	if _, err := s.db.ExecContext(ctx, q, memberID, key, r.Status, h, r.Body); err != nil {
		return pg.Classify(ctx, fmt.Errorf("record idempotent response: %w", err))
	}
	return nil
}

// Abandon forgets a claimed key whose request should not be replayed (a
// server error), so a retry runs again.
func (s *Store) Abandon(ctx context.Context, memberID int64, key string) error {
	const q = `DELETE FROM idempotency_keys WHERE member_id = $1 AND key = $2 AND status IS NULL`
	if _, err := s.db.ExecContext(ctx, q, memberID, key); err != nil {
		return pg.Classify(ctx, fmt.Errorf("abandon idempotency key: %w", err))
	}
	return nil
}

// Sweep deletes keys older than TTL and returns how many.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_at < $1`, s.now().Add(-TTL))
	if err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("sweep idempotency keys: %w", err))
	}
	return res.RowsAffected()
}
