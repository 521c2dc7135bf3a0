// Package conversations writes and reads private conversations and their
// messages; only participants ever see one (anyone else gets NotFound). A
// one-to-one conversation is reused, and every message moves the
// conversation's last message, every participant's activity time, the other
// participants' unread counts and their `message` notifications.
package conversations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// MaxParticipants bounds a conversation, the creator included.
const MaxParticipants = 50

// Conversation is a conversation as Start returns it.
type Conversation struct {
	ID             int64
	Created        bool    // false when an existing one-to-one conversation was reused
	ParticipantIDs []int64 // ascending, the creator included
	// FirstMessage is the message Start sent, or nil.
	FirstMessage *Message
}

// Message is a stored message.
type Message struct {
	ID             int64     `db:"id"`
	ConversationID int64     `db:"conversation_id"`
	SenderID       int64     `db:"sender_id"`
	Body           string    `db:"body"`
	CreatedAt      time.Time `db:"created_at"`
}

// Store writes conversations and messages.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Start opens a conversation between creatorID and the members with handles
// (case-insensitive; the creator's own handle is ignored) and sends
// firstMessage in it. With exactly one other member the existing one-to-one
// conversation of the pair is reused. An unknown or suspended handle is a
// validation error on /participants/<i>.
func (s *Store) Start(ctx context.Context, creatorID int64, handles []string, firstMessage string) (Conversation, error) {
	var c Conversation
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		c, err = StartTx(ctx, tx, creatorID, handles, firstMessage, nil)
		return err
	})
	return c, err
}

// StartTx is Start within a caller's transaction, at the time at (nil: now).
// An empty firstMessage sends nothing (the fixture importer sends each
// message with SendTx).
func StartTx(ctx context.Context, ex sqlx.ExtContext, creatorID int64, handles []string, firstMessage string, at *time.Time) (Conversation, error) {
	const find = `
		SELECT h.ord, m.id
		  FROM unnest($1::text[]) WITH ORDINALITY AS h(handle, ord)
		  LEFT JOIN members m ON lower(m.handle) = lower(h.handle) AND m.suspended_at IS NULL
		 ORDER BY h.ord`
	var found []struct {
		Ord int           `db:"ord"`
		ID  sql.NullInt64 `db:"id"`
	}
	if err := sqlx.SelectContext(ctx, ex, &found, find, pq.Array(handles)); err != nil {
		return Conversation{}, pg.Classify(ctx, fmt.Errorf("find participants: %w", err))
	}
	ids := []int64{creatorID}
	for _, f := range found {
		if !f.ID.Valid {
			i := f.Ord - 1
			return Conversation{}, apperr.Field(fmt.Sprintf("/participants/%d", i), "unknown",
				fmt.Sprintf("no member with handle %q", handles[i]))
		}
		if !slices.Contains(ids, f.ID.Int64) {
			ids = append(ids, f.ID.Int64)
		}
	}
	switch {
	case len(ids) < 2:
		return Conversation{}, apperr.Field("/participants", "required", "a conversation needs another participant")
	case len(ids) > MaxParticipants:
		return Conversation{}, apperr.Field("/participants", "too_many",
			fmt.Sprintf("a conversation has at most %d participants", MaxParticipants))
	}
	slices.Sort(ids)
	var directKey *string
	if len(ids) == 2 {
		k := fmt.Sprintf("%d:%d", ids[0], ids[1])
		directKey = &k
	}
	// The no-op DO UPDATE returns the existing one-to-one conversation (and
	// locks it) where DO NOTHING would return no row.
	const ins = `
		INSERT INTO conversations (direct_key, created_at) VALUES ($1, COALESCE($2, now()))
		ON CONFLICT (direct_key) DO UPDATE SET direct_key = EXCLUDED.direct_key
		RETURNING id, created_at, (xmax = 0) AS created`
	var conv struct {
		ID        int64     `db:"id"`
		CreatedAt time.Time `db:"created_at"`
		Created   bool      `db:"created"`
	}
	if err := sqlx.GetContext(ctx, ex, &conv, ins, directKey, at); err != nil {
		return Conversation{}, pg.Classify(ctx, fmt.Errorf("create conversation: %w", err))
	}
	const join = `
		INSERT INTO conversation_participants (conversation_id, member_id, joined_at, last_activity_at)
		SELECT $1, unnest($2::bigint[]), $3, $3
		ON CONFLICT DO NOTHING`
	if _, err := ex.ExecContext(ctx, join, conv.ID, pq.Array(ids), conv.CreatedAt); err != nil {
		return Conversation{}, pg.Classify(ctx, fmt.Errorf("add participants: %w", err))
	}
	c := Conversation{ID: conv.ID, Created: conv.Created, ParticipantIDs: ids}
	if firstMessage != "" {
		m, err := SendTx(ctx, ex, creatorID, conv.ID, firstMessage, at)
		if err != nil {
			return Conversation{}, err
		}
		c.FirstMessage = &m
	}
	return c, nil
}

// Send sends a message from senderID in conversationID at createdAt (nil:
// now). A conversation the sender is not part of is NotFound.
func (s *Store) Send(ctx context.Context, senderID, conversationID int64, body string, createdAt *time.Time) (Message, error) {
	var m Message
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		m, err = SendTx(ctx, tx, senderID, conversationID, body, createdAt)
		return err
	})
	return m, err
}

// SendTx is Send within a caller's transaction.
func SendTx(ctx context.Context, ex sqlx.ExtContext, senderID, conversationID int64, body string, createdAt *time.Time) (Message, error) {
	// Locking the conversation serialises its messages, so the last message
	// and the participants' rows are always updated in the same order.
	const find = `
		SELECT c.id FROM conversations c
		  JOIN conversation_participants cp ON cp.conversation_id = c.id AND cp.member_id = $2
		 WHERE c.id = $1
		   FOR NO KEY UPDATE OF c`
	var id int64
	err := sqlx.GetContext(ctx, ex, &id, find, conversationID, senderID)
	if errors.Is(err, sql.ErrNoRows) {
		return Message{}, apperr.New(apperr.NotFound, "No such conversation.")
	}
	if err != nil {
		return Message{}, pg.Classify(ctx, fmt.Errorf("find conversation: %w", err))
	}
	const ins = `
		INSERT INTO messages (conversation_id, sender_id, body, created_at)
		VALUES ($1, $2, $3, COALESCE($4, now()))
		RETURNING id, conversation_id, sender_id, body, created_at`
	var m Message
	if err := sqlx.GetContext(ctx, ex, &m, ins, conversationID, senderID, body, createdAt); err != nil {
		if pg.ConstraintOf(err) == "messages_body_check" {
			return Message{}, apperr.Field("/body", "invalid", "body must be 1 to 2000 characters")
		}
		return Message{}, pg.Classify(ctx, fmt.Errorf("create message: %w", err))
	}
	// Timestamps may arrive out of order (fixtures): the latest message by
	// (created_at, id) stays the last one. Sending a message reads the
	// conversation up to it for the sender.
	const bump = `
		WITH conv AS (
		    UPDATE conversations
		       SET last_message_at = $3, last_message_id = $2
		     WHERE id = $1 AND (last_message_id IS NULL OR (last_message_at, last_message_id) < ($3, $2))
		), notify AS (
		    INSERT INTO notifications (recipient_id, type, actor_id, conversation_id, message_id, created_at)
		    SELECT member_id, 'message', $4::bigint, $1::bigint, $2::bigint, $3::timestamptz
		      FROM conversation_participants
		     WHERE conversation_id = $1 AND member_id <> $4
		     ORDER BY member_id
		)
		UPDATE conversation_participants
		   SET last_activity_at = GREATEST(last_activity_at, $3),
		       unread_count = CASE WHEN member_id = $4 THEN 0 ELSE unread_count + 1 END,
		       last_read_message_id = CASE WHEN member_id = $4 THEN $2 ELSE last_read_message_id END
		 WHERE conversation_id = $1`
	if _, err := ex.ExecContext(ctx, bump, conversationID, m.ID, m.CreatedAt, senderID); err != nil {
		return Message{}, pg.Classify(ctx, fmt.Errorf("update conversation: %w", err))
	}
	return m, nil
}
