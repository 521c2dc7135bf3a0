// Package members creates and reads member accounts (the operator CLI and the
// fixture importer create them; the API only reads them).
package members

import (
	"context"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// HandlePattern is the shape of a handle (also in openapi.yaml and the schema).
var HandlePattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,30}$`)

// Member is a stored member.
type Member struct {
	ID                int64      `db:"id"`
	Handle            string     `db:"handle"`
	Name              string     `db:"name"`
	Bio               *string    `db:"bio"`
	AvatarURL         *string    `db:"avatar_url"`
	Verified          bool       `db:"verified"`
	DefaultVisibility string     `db:"default_visibility"`
	CreatedAt         time.Time  `db:"created_at"`
	SuspendedAt       *time.Time `db:"suspended_at"`
}

// New describes a member to create.
type New struct {
	Handle            string
	Name              string
	Verified          bool
	Bio               *string
	AvatarURL         *string
	DefaultVisibility string     // "" means public
	CreatedAt         *time.Time // nil means now
}

// Validate checks what the database would reject, with a message that names
// the field.
func (n New) Validate() error {
	switch {
	case !HandlePattern.MatchString(n.Handle):
		return apperr.Field("/handle", apperr.FieldInvalid, "handle must be 1 to 30 letters, digits or underscores")
	case n.Name == "" || utf8.RuneCountInString(n.Name) > 100:
		return apperr.Field("/name", apperr.FieldInvalid, "name must be 1 to 100 characters")
	case n.Bio != nil && utf8.RuneCountInString(*n.Bio) > 500:
		return apperr.Field("/bio", apperr.FieldTooLong, "bio must be at most 500 characters")
	}
	switch n.DefaultVisibility {
	case "", "public", "followers", "private":
	default:
		return apperr.Field("/default_visibility", apperr.FieldInvalid, "default_visibility must be public, followers or private")
	}
	return nil
}

// Store writes members.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Create stores a new member.
func (s *Store) Create(ctx context.Context, n New) (Member, error) { return CreateTx(ctx, s.db, n) }

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, n New) (Member, error) {
	if err := n.Validate(); err != nil {
		return Member{}, err
	}
	vis := n.DefaultVisibility
	if vis == "" {
		vis = "public"
	}
	const q = `
		INSERT INTO members (handle, name, verified, bio, avatar_url, default_visibility, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, date_trunc('second', COALESCE($7, now())))
		RETURNING id, handle, name, bio, avatar_url, verified, default_visibility, created_at, suspended_at`
	var m Member
	err := sqlx.GetContext(ctx, ex, &m, q, n.Handle, n.Name, n.Verified, n.Bio, n.AvatarURL, vis, n.CreatedAt)
	if err != nil {
		if pg.ConstraintOf(err) == "members_handle_lower_key" {
			return Member{}, apperr.Field("/handle", apperr.FieldTaken, fmt.Sprintf("handle %q is already taken", n.Handle))
		}
		return Member{}, pg.Classify(ctx, fmt.Errorf("create member: %w", err))
	}
	return m, nil
}
