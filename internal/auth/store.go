package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// Principal is who a request acts for: the token's member and the token's scope.
type Principal struct {
	MemberID       int64
	Handle         string
	TokenID        int64
	Scope          Scope
	TokenCreatedAt time.Time
	TokenExpiresAt *time.Time

	pending *Pending // set on recalled principals (recall.go)
}

// Token is a stored token as operators see it (never the secret).
type Token struct {
	ID            int64      `db:"id"`
	MemberID      int64      `db:"member_id"`
	Handle        string     `db:"handle"`
	Name          string     `db:"name"`
	Scope         Scope      `db:"scope"`
	DisplayPrefix string     `db:"display_prefix"`
	CreatedAt     time.Time  `db:"created_at"`
	LastUsedAt    *time.Time `db:"last_used_at"`
	ExpiresAt     *time.Time `db:"expires_at"`
	RevokedAt     *time.Time `db:"revoked_at"`
}

// lastUsedEvery bounds how often a token's last_used_at is written: coarse on
// purpose, so authentication is not a write per request. The time is kept in
// api_token_uses, not api_tokens, which every hot statement reads: the vacuums
// those writes bring would otherwise re-plan them all (migration 20).
const lastUsedEvery = 5 * time.Minute

// usesTokenFK is the foreign key of api_token_uses to api_tokens: a write of
// last_used_at violates it when the token was deleted meanwhile.
const usesTokenFK = "api_token_uses_token_id_fkey"

// Store reads and writes api_tokens and their last uses (api_token_uses).
type Store struct {
	db     *sqlx.DB
	prep   *pg.Prepared // the per-request lookup
	now    func() time.Time
	recall recallCache // principals Authenticate accepted (recall.go)
	touch  touches     // last_used_at writes of recalled tokens (recall.go)
}

// NewStore returns a Store; now is injectable for tests (nil means time.Now).
func NewStore(db *sqlx.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, prep: pg.NewPrepared(db), now: now}
}

// Authenticate resolves a bearer token. Malformed or unknown tokens are
// invalid_token; revoked and expired ones say so, and so do the other tokens
// of a suspended member (account_suspended, from the request after the
// suspension on: a recalled principal is confirmed by this too, recall.go).
// The four bodies differ only in code and detail.
func (s *Store) Authenticate(ctx context.Context, tok string) (Principal, error) {
	if _, ok := Parse(tok); !ok {
		return Principal{}, apperr.New(apperr.InvalidToken, "The access token is malformed or unknown.")
	}
	key := hashKey(tok)
	const q = `
		SELECT t.id, t.member_id, m.handle, t.scope, t.created_at, t.expires_at, t.revoked_at,
		       m.suspended_at IS NOT NULL AS suspended,
		       u.last_used_at, (u.last_used_at IS NULL OR u.last_used_at < $2) AS stale
		  FROM api_tokens t
		  JOIN members m ON m.id = t.member_id
		  LEFT JOIN api_token_uses u ON u.token_id = t.id
		 WHERE t.token_hash = $1`
	var row struct {
		ID        int64      `db:"id"`
		MemberID  int64      `db:"member_id"`
		Handle    string     `db:"handle"`
		Scope     Scope      `db:"scope"`
		CreatedAt time.Time  `db:"created_at"`
		ExpiresAt *time.Time `db:"expires_at"`
		RevokedAt *time.Time `db:"revoked_at"`
		Suspended bool       `db:"suspended"`
		LastUsed  *time.Time `db:"last_used_at"`
		Stale     bool       `db:"stale"`
	}
	now := s.now()
	err := sqlx.GetContext(ctx, s.prep, &row, q, key[:], now.Add(-lastUsedEvery))
	if errors.Is(err, sql.ErrNoRows) {
		s.recall.drop(key)
		return Principal{}, apperr.New(apperr.InvalidToken, "The access token is malformed or unknown.")
	}
	if err != nil {
		return Principal{}, pg.Classify(ctx, fmt.Errorf("authenticate: %w", err))
	}
	switch {
	case row.RevokedAt != nil:
		s.recall.drop(key)
		return Principal{}, apperr.New(apperr.TokenRevoked, "The access token has been revoked.")
	case row.ExpiresAt != nil && !row.ExpiresAt.After(now):
		s.recall.drop(key)
		return Principal{}, apperr.New(apperr.TokenExpired, "The access token has expired.")
	case row.Suspended:
		// Checked after revocation and expiry: those last, a suspension may
		// be lifted.
		s.recall.drop(key)
		return Principal{}, apperr.New(apperr.AccountSuspended, "This account is suspended.")
	}
	touched := now
	if !row.Stale {
		touched = *row.LastUsed
	} else {
		const u = `
			INSERT INTO api_token_uses AS u (token_id, last_used_at) VALUES ($1, $2)
			ON CONFLICT (token_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at
			 WHERE u.last_used_at < $3`
		// On a read-only database last_used_at stays as it is: reads go on.
		// A token deleted since the lookup above has no use to record.
		_, err := s.db.ExecContext(ctx, u, row.ID, now, now.Add(-lastUsedEvery))
		if err != nil && !pg.IsReadOnly(err) && pg.ConstraintOf(err) != usesTokenFK {
			return Principal{}, pg.Classify(ctx, fmt.Errorf("touch token: %w", err))
		}
	}
	p := Principal{
		MemberID: row.MemberID, Handle: row.Handle, TokenID: row.ID, Scope: row.Scope,
		TokenCreatedAt: row.CreatedAt, TokenExpiresAt: row.ExpiresAt,
	}
	s.recall.put(key, p, touched)
	return p, nil
}

// NewToken describes a token to create. Value, when set, must be a
// well-formed token of the same scope (used by fixtures for stable demo
// tokens); otherwise a random one is generated.
type NewToken struct {
	Handle    string
	Scope     Scope
	Name      string
	ExpiresAt *time.Time
	Value     string
}

// Create stores a token for the member with the given handle and returns it
// with its secret, which is never retrievable again.
func (s *Store) Create(ctx context.Context, nt NewToken) (Token, string, error) {
	return CreateTx(ctx, s.db, nt)
}

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, nt NewToken) (Token, string, error) {
	if nt.Scope != ScopeRead && nt.Scope != ScopeWrite {
		return Token{}, "", apperr.Field("/scope", apperr.FieldInvalid, `scope must be "read" or "write"`)
	}
	if len(nt.Name) > 100 {
		return Token{}, "", apperr.Field("/name", apperr.FieldTooLong, "name must be at most 100 characters")
	}
	secret := nt.Value
	if secret == "" {
		var err error
		if secret, err = Generate(nt.Scope); err != nil {
			return Token{}, "", fmt.Errorf("generate token: %w", err)
		}
	} else if s, ok := Parse(secret); !ok || s != nt.Scope {
		return Token{}, "", apperr.Field("/value", apperr.FieldInvalid, "token value is not a well-formed token of scope "+string(nt.Scope))
	}
	const q = `
		INSERT INTO api_tokens (member_id, name, scope, token_hash, display_prefix, expires_at)
		SELECT m.id, $2, $3, $4, $5, $6 FROM members m WHERE lower(m.handle) = lower($1)
		RETURNING id, member_id, (SELECT handle FROM members WHERE id = member_id) AS handle,
		          name, scope, display_prefix, created_at, NULL::timestamptz AS last_used_at, expires_at, revoked_at`
	var t Token
	err := sqlx.GetContext(ctx, ex, &t, q, nt.Handle, nt.Name, nt.Scope, Hash(secret), DisplayPrefix(secret), nt.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, "", apperr.New(apperr.NotFound, fmt.Sprintf("no member with handle %q", nt.Handle))
	}
	if err != nil {
		if pg.ConstraintOf(err) == "api_tokens_token_hash_key" {
			return Token{}, "", apperr.Field("/value", apperr.FieldTaken, "this token value is already in use")
		}
		return Token{}, "", pg.Classify(ctx, fmt.Errorf("create token: %w", err))
	}
	return t, secret, nil
}

// List returns the member's tokens, newest first.
func (s *Store) List(ctx context.Context, handle string) ([]Token, error) {
	const q = `
		SELECT t.id, t.member_id, m.handle, t.name, t.scope, t.display_prefix, t.created_at,
		       u.last_used_at, t.expires_at, t.revoked_at
		  FROM api_tokens t JOIN members m ON m.id = t.member_id
		  LEFT JOIN api_token_uses u ON u.token_id = t.id
		 WHERE lower(m.handle) = lower($1)
		 ORDER BY t.created_at DESC, t.id DESC`
	var exists bool
	if err := s.db.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM members WHERE lower(handle) = lower($1))`, handle); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("find member: %w", err))
	}
	if !exists {
		return nil, apperr.New(apperr.NotFound, fmt.Sprintf("no member with handle %q", handle))
	}
	ts := []Token{}
	if err := s.db.SelectContext(ctx, &ts, q, handle); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list tokens: %w", err))
	}
	return ts, nil
}

// Revoke revokes a token; it takes effect on the next request. Revoking a
// revoked token is a no-op.
func (s *Store) Revoke(ctx context.Context, id int64) (Token, error) {
	const q = `
		UPDATE api_tokens t SET revoked_at = COALESCE(t.revoked_at, $2)
		  FROM members m
		 WHERE t.id = $1 AND m.id = t.member_id
		RETURNING t.id, t.member_id, m.handle, t.name, t.scope, t.display_prefix, t.created_at,
		          (SELECT u.last_used_at FROM api_token_uses u WHERE u.token_id = t.id) AS last_used_at,
		          t.expires_at, t.revoked_at`
	var t Token
	err := s.db.GetContext(ctx, &t, q, id, s.now())
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, apperr.New(apperr.NotFound, fmt.Sprintf("no token with id %d", id))
	}
	if err != nil {
		return Token{}, pg.Classify(ctx, fmt.Errorf("revoke token: %w", err))
	}
	return t, nil
}
