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
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/richtext"
	"github.com/socialnet/socialapi/internal/visibility"
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
type Store struct {
	db *sqlx.DB
	// prep runs the hot statements prepared (list, messages, send).
	prep *pg.Prepared
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db, prep: pg.NewPrepared(db)} }

// Start opens a conversation between creatorID and the members with handles
// (case-insensitive; the creator's own handle is ignored) and sends
// firstMessage in it. With exactly one other member the existing one-to-one
// conversation of the pair is reused. A handle that names no member the
// creator may see (visibility.MemberRow: unknown, suspended, or blocking the
// creator) is a validation error on /participants/<i>. A one-to-one
// conversation with a member the creator blocks is CannotMessage: its first
// message is refused as any message in it would be (sendSQL), once the body
// is valid, and the transaction writes nothing.
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
	var found []struct {
		Ord int           `db:"ord"`
		ID  sql.NullInt64 `db:"id"`
	}
	if err := sqlx.SelectContext(ctx, ex, &found, findSQL, pq.Array(handles), creatorID); err != nil {
		return Conversation{}, pg.Classify(ctx, fmt.Errorf("find participants: %w", err))
	}
	ids := []int64{creatorID}
	for _, f := range found {
		if !f.ID.Valid {
			i := f.Ord - 1
			return Conversation{}, apperr.Field(fmt.Sprintf("/participants/%d", i), apperr.FieldUnknown,
				fmt.Sprintf("no member with handle %q", handles[i]))
		}
		if !slices.Contains(ids, f.ID.Int64) {
			ids = append(ids, f.ID.Int64)
		}
	}
	switch {
	case len(ids) < 2:
		return Conversation{}, apperr.Field("/participants", apperr.FieldRequired, "a conversation needs another participant")
	case len(ids) > MaxParticipants:
		return Conversation{}, apperr.Field("/participants", apperr.FieldTooMany,
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
		INSERT INTO conversations (direct_key, created_at) VALUES ($1, date_trunc('second', COALESCE($2, now())))
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

// findSQL resolves the handles $1 for the creator $2, in their order, to
// the members (NULL: none the creator may see, visibility.MemberRow).
var findSQL = `
	SELECT h.ord, m.id
	  FROM unnest($1::text[]) WITH ORDINALITY AS h(handle, ord)
	  LEFT JOIN members m ON lower(m.handle) = lower(h.handle) AND ` + visibility.MemberRow("m", "$2") + `
	 ORDER BY h.ord`

func cannotMessage() error {
	return apperr.New(apperr.CannotMessage, "You cannot message this member.")
}

// Send sends a message from senderID in conversationID at createdAt (nil:
// now) and returns it with its sender. A conversation the sender is not
// part of is NotFound; so is every send of a provisional principal whose
// token no longer counts (auth.GuardArg: the edge then answers 401), which
// writes nothing. A one-to-one conversation whose members a block separates,
// either way, or whose other member is suspended, is CannotMessage.
func (s *Store) Send(ctx context.Context, senderID, conversationID int64, body string, createdAt *time.Time) (MessageItem, error) {
	m, err := send(ctx, s.prep, senderID, conversationID, body, createdAt, auth.GuardArg(ctx))
	if err == nil || apperr.Is(err, apperr.CannotMessage) { // the guarded statement returned its row
		auth.Confirm(ctx)
	}
	return m, err
}

// SendTx is Send within a caller's transaction, for a principal
// authenticated in full.
func SendTx(ctx context.Context, ex sqlx.ExtContext, senderID, conversationID int64, body string, createdAt *time.Time) (Message, error) {
	m, err := send(ctx, ex, senderID, conversationID, body, createdAt, nil)
	if err != nil {
		return Message{}, err
	}
	return Message{ID: m.ID, ConversationID: m.ConversationID, SenderID: m.Sender.ID, Body: m.Body, CreatedAt: m.CreatedAt}, nil
}

// sendSQL sends the message $3 from the member $2 in the conversation $1 at
// $4 (null: now), truncated to whole seconds, when $2 takes part in it and the guard $5 passes
// (auth.GuardSQL), and returns it with its sender: one statement, so one
// round trip and no transaction of several.
//
// Locking the conversation (conv) serialises its messages: a concurrent send
// waits there, then sees the last message and the participants' rows as the
// first one left them (PostgreSQL re-reads a row updated meanwhile before
// updating it). Every write reads msg, so nothing is written without the
// lock, and nothing at all when conv finds no row. Timestamps may arrive out
// of order (fixtures): the latest message by (created_at, id) stays the last
// one. Times are stored in whole seconds, as the API shows them, so the
// lists' order by (time, id) is the order a client sees (migrations 000027
// and 000028); the message's notification has the message's time.
// Sending reads the conversation up to the message for the sender;
// every other participant gets an unread message, and a notification unless
// they would not see it (visibility.Notifies: they mute the sender or
// a block separates them) or are suspended.
//
// A one-to-one conversation (direct_key) refuses the message when the rule
// separates its other member from the sender (visibility.Author: suspended,
// or a block either way): the statement writes nothing and returns refused.
var sendSQL = `
	WITH conv AS (
	    SELECT c.id,
	           c.direct_key IS NOT NULL AND EXISTS (
	               SELECT 1 FROM conversation_participants o
	                WHERE o.conversation_id = c.id AND o.member_id <> $2
	                  AND NOT ` + visibility.Author("o.member_id", "$2") + `) AS refused
	      FROM conversations c
	      JOIN conversation_participants cp ON cp.conversation_id = c.id AND cp.member_id = $2
	     WHERE c.id = $1 AND ` + auth.GuardSQL("$5") + `
	       FOR NO KEY UPDATE OF c
	), msg AS (
	    INSERT INTO messages (conversation_id, sender_id, body, created_at)
	    SELECT conv.id, $2, $3, date_trunc('second', COALESCE($4, now())) FROM conv WHERE NOT conv.refused
	    RETURNING id, conversation_id, sender_id, body, created_at
	), last AS (
	    UPDATE conversations c
	       SET last_message_at = msg.created_at, last_message_id = msg.id
	      FROM msg
	     WHERE c.id = msg.conversation_id
	       AND (c.last_message_id IS NULL OR (c.last_message_at, c.last_message_id) < (msg.created_at, msg.id))
	), notify AS (
	    INSERT INTO notifications (recipient_id, type, actor_id, conversation_id, message_id, created_at)
	    SELECT cp.member_id, 'message', msg.sender_id, msg.conversation_id, msg.id, msg.created_at
	      FROM msg
	      JOIN conversation_participants cp ON cp.conversation_id = msg.conversation_id AND cp.member_id <> msg.sender_id
	     WHERE ` + visibility.Notifies("msg.sender_id", "cp.member_id") + `
	     ORDER BY cp.member_id
	), activity AS (
	    UPDATE conversation_participants cp
	       SET last_activity_at = GREATEST(cp.last_activity_at, msg.created_at),
	           unread_count = CASE WHEN cp.member_id = msg.sender_id THEN 0 ELSE cp.unread_count + 1 END,
	           last_read_message_id = CASE WHEN cp.member_id = msg.sender_id THEN msg.id ELSE cp.last_read_message_id END
	      FROM msg
	     WHERE cp.conversation_id = msg.conversation_id
	)
	SELECT conv.refused, COALESCE(msg.id, 0) AS id, conv.id AS conversation_id,
	       COALESCE(msg.body, '') AS body, COALESCE(msg.created_at, now()) AS created_at,
	       s.id AS "sender.id", s.handle AS "sender.handle", s.name AS "sender.name",
	       s.avatar_url AS "sender.avatar_url", s.verified AS "sender.verified"
	  FROM conv JOIN members s ON s.id = $2 LEFT JOIN msg ON true`

// send runs sendSQL.
func send(ctx context.Context, q sqlx.QueryerContext, senderID, conversationID int64, body string, createdAt *time.Time, guard any) (MessageItem, error) {
	if !richtext.HasContent(body) {
		// Not taking part answers 404 before a blank body 422.
		if err := participant(ctx, q, senderID, conversationID); err != nil {
			return MessageItem{}, err
		}
		return MessageItem{}, apperr.Field("/body", apperr.FieldTooShort, "body must contain at least one visible character")
	}
	var row struct {
		Refused bool `db:"refused"`
		MessageItem
	}
	err := sqlx.GetContext(ctx, q, &row, sendSQL, conversationID, senderID, body, createdAt, guard)
	if errors.Is(err, sql.ErrNoRows) {
		return MessageItem{}, apperr.New(apperr.NotFound, "No such conversation.")
	}
	if err != nil {
		if pg.ConstraintOf(err) == "messages_body_check" {
			return MessageItem{}, apperr.Field("/body", apperr.FieldInvalid, "body must be 1 to 2000 characters")
		}
		return MessageItem{}, pg.Classify(ctx, fmt.Errorf("send message: %w", err))
	}
	if row.Refused {
		return MessageItem{}, cannotMessage()
	}
	return row.MessageItem, nil
}
