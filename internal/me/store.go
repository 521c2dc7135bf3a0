// Package me serves the caller's own account (GET /api/v1/me).
package me

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/notifications"
	"github.com/socialnet/socialapi/internal/pg"
)

// Account is the caller's member row with its counters.
type Account struct {
	ID                  int64     `db:"id"`
	Handle              string    `db:"handle"`
	Name                string    `db:"name"`
	Bio                 *string   `db:"bio"`
	AvatarURL           *string   `db:"avatar_url"`
	Verified            bool      `db:"verified"`
	DefaultVisibility   string    `db:"default_visibility"`
	CreatedAt           time.Time `db:"created_at"`
	Followers           int       `db:"follower_count"`
	Following           int       `db:"following_count"`
	Posts               int       `db:"posts"`
	UnreadNotifications int       `db:"unread_notifications"`
	UnreadConversations int       `db:"unread_conversations"`
}

// Store reads accounts.
type Store struct {
	// prep runs getSQL prepared: PostgreSQL plans it on every call
	// otherwise, and its planning costs several times its execution
	// (docs/performance-journal.md, "GET /me prepared").
	prep *pg.Prepared
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{prep: pg.NewPrepared(db)} }

// getSQL reads the account of the member $1. The unread notifications are
// those the notification list counts (notifications.UnreadSQL).
var getSQL = notifications.WithVisible + `
	SELECT m.id, m.handle, m.name, m.bio, m.avatar_url, m.verified, m.default_visibility, m.created_at,
	       m.follower_count, m.following_count,
	       (SELECT count(*) FROM posts p WHERE p.author_id = m.id) AS posts,
	       (` + notifications.UnreadSQL + `) AS unread_notifications,
	       (SELECT count(*) FROM conversation_participants cp WHERE cp.member_id = m.id AND cp.unread_count > 0) AS unread_conversations
	  FROM members m
	 WHERE m.id = $1`

// Get returns the account of member id in one round trip.
func (s *Store) Get(ctx context.Context, id int64) (Account, error) {
	var a Account
	err := sqlx.GetContext(ctx, s.prep, &a, getSQL, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, apperr.New(apperr.NotFound, "The account does not exist.")
	}
	if err != nil {
		return Account{}, pg.Classify(ctx, fmt.Errorf("get account: %w", err))
	}
	return a, nil
}
