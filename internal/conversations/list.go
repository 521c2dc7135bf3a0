package conversations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// Member is the short form of a member.
type Member struct {
	ID        int64   `db:"id"`
	Handle    string  `db:"handle"`
	Name      string  `db:"name"`
	AvatarURL *string `db:"avatar_url"`
	Verified  bool    `db:"verified"`
}

// Item is a conversation as one participant sees it.
type Item struct {
	ID           int64     `db:"id"`
	UnreadCount  int       `db:"unread_count"`
	UpdatedAt    time.Time `db:"updated_at"` // the participant's last activity time
	Participants []Member  `db:"-"`          // the others, by id
	// LastMessage is the latest message, or nil.
	LastMessage *MessageItem `db:"-"`
	Last        lastMessage  `db:"last"`
}

// lastMessage is the nullable last-message columns of an Item row.
type lastMessage struct {
	ID        sql.NullInt64  `db:"id"`
	SenderID  sql.NullInt64  `db:"sender_id"`
	Handle    sql.NullString `db:"handle"`
	Name      sql.NullString `db:"name"`
	AvatarURL *string        `db:"avatar_url"`
	Verified  sql.NullBool   `db:"verified"`
	Body      sql.NullString `db:"body"`
	CreatedAt sql.NullTime   `db:"created_at"`
}

// MessageItem is a message with its sender.
type MessageItem struct {
	ID             int64     `db:"id"`
	ConversationID int64     `db:"conversation_id"`
	Body           string    `db:"body"`
	CreatedAt      time.Time `db:"created_at"`
	Sender         Member    `db:"sender"`
}

const itemColumns = `
	c.id, cp.unread_count, cp.last_activity_at AS updated_at,
	lm.id AS "last.id", lm.sender_id AS "last.sender_id", s.handle AS "last.handle", s.name AS "last.name",
	s.avatar_url AS "last.avatar_url", s.verified AS "last.verified", lm.body AS "last.body",
	lm.created_at AS "last.created_at"`

const itemFrom = `
	  FROM conversation_participants cp
	  JOIN conversations c ON c.id = cp.conversation_id
	  LEFT JOIN messages lm ON lm.id = c.last_message_id
	  LEFT JOIN members s ON s.id = lm.sender_id`

// List returns up to limit conversations of memberID after the position
// after (nil: from the start), latest activity first.
func (s *Store) List(ctx context.Context, memberID int64, after *cursor.Position, limit int) ([]Item, error) {
	args := []any{memberID, limit}
	where := "cp.member_id = $1"
	if after != nil {
		where += " AND (cp.last_activity_at, cp.conversation_id) < ($3, $4)"
		args = append(args, after.Time, after.ID)
	}
	args = append(args, auth.GuardArg(ctx))
	where += " AND " + auth.GuardSQL("$"+strconv.Itoa(len(args)))
	q := `SELECT ` + itemColumns + itemFrom + `
		 WHERE ` + where + `
		 ORDER BY cp.last_activity_at DESC, cp.conversation_id DESC
		 LIMIT $2`
	items := []Item{}
	if err := s.db.SelectContext(ctx, &items, q, args...); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list conversations: %w", err))
	}
	if len(items) > 0 {
		auth.Confirm(ctx)
	}
	return items, complete(ctx, s.db, memberID, items)
}

// Get returns conversation id as memberID sees it; NotFound when it does not
// exist or memberID does not take part in it.
func (s *Store) Get(ctx context.Context, memberID, id int64) (Item, error) {
	return get(ctx, s.db, memberID, id)
}

func get(ctx context.Context, ex sqlx.QueryerContext, memberID, id int64) (Item, error) {
	q := `SELECT ` + itemColumns + itemFrom + ` WHERE cp.member_id = $1 AND cp.conversation_id = $2`
	var it Item
	err := sqlx.GetContext(ctx, ex, &it, q, memberID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, notFound()
	}
	if err != nil {
		return Item{}, pg.Classify(ctx, fmt.Errorf("get conversation: %w", err))
	}
	items := []Item{it}
	if err := complete(ctx, ex, memberID, items); err != nil {
		return Item{}, err
	}
	return items[0], nil
}

// notFound is the one answer for a conversation that does not exist and for
// one the caller does not take part in.
func notFound() error { return apperr.New(apperr.NotFound, "No such conversation.") }

// complete fills the last message and the other participants of items.
func complete(ctx context.Context, ex sqlx.QueryerContext, memberID int64, items []Item) error {
	if len(items) == 0 {
		return nil
	}
	ids := make([]int64, len(items))
	at := make(map[int64]int, len(items))
	for i := range items {
		it := &items[i]
		ids[i], at[it.ID] = it.ID, i
		it.Participants = []Member{}
		if l := it.Last; l.ID.Valid {
			it.LastMessage = &MessageItem{ID: l.ID.Int64, ConversationID: it.ID, Body: l.Body.String, CreatedAt: l.CreatedAt.Time,
				Sender: Member{ID: l.SenderID.Int64, Handle: l.Handle.String, Name: l.Name.String, AvatarURL: l.AvatarURL, Verified: l.Verified.Bool}}
		}
	}
	const q = `
		SELECT cp.conversation_id, m.id, m.handle, m.name, m.avatar_url, m.verified
		  FROM conversation_participants cp
		  JOIN members m ON m.id = cp.member_id
		 WHERE cp.conversation_id = ANY($1) AND cp.member_id <> $2
		 ORDER BY cp.conversation_id, m.id`
	var rows []struct {
		ConversationID int64 `db:"conversation_id"`
		Member
	}
	if err := sqlx.SelectContext(ctx, ex, &rows, q, pq.Array(ids), memberID); err != nil {
		return pg.Classify(ctx, fmt.Errorf("list participants: %w", err))
	}
	for _, r := range rows {
		i := at[r.ConversationID]
		items[i].Participants = append(items[i].Participants, r.Member)
	}
	return nil
}

// UnreadCount is the number of memberID's conversations with unread messages.
func (s *Store) UnreadCount(ctx context.Context, memberID int64) (int, error) {
	const q = `SELECT count(*) FROM conversation_participants WHERE member_id = $1 AND unread_count > 0`
	var n int
	if err := s.db.GetContext(ctx, &n, q, memberID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("count unread conversations: %w", err))
	}
	return n, nil
}

// Participant reports nil when memberID takes part in conversation id, else
// NotFound.
func (s *Store) Participant(ctx context.Context, memberID, id int64) error {
	const q = `SELECT EXISTS (SELECT 1 FROM conversation_participants WHERE conversation_id = $1 AND member_id = $2)`
	var ok bool
	if err := s.db.GetContext(ctx, &ok, q, id, memberID); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find participant: %w", err))
	}
	if !ok {
		return notFound()
	}
	return nil
}

// Messages returns up to limit messages of conversation id after the
// position after (nil: from the start), newest first. NotFound when memberID
// does not take part in it.
func (s *Store) Messages(ctx context.Context, memberID, id int64, after *cursor.Position, limit int) ([]MessageItem, error) {
	if err := s.Participant(ctx, memberID, id); err != nil {
		return nil, err
	}
	args := []any{id, limit}
	where := "m.conversation_id = $1"
	if after != nil {
		where += " AND (m.created_at, m.id) < ($3, $4)"
		args = append(args, after.Time, after.ID)
	}
	q := `
		SELECT ` + messageColumns + `
		  FROM messages m
		  JOIN members s ON s.id = m.sender_id
		 WHERE ` + where + `
		 ORDER BY m.created_at DESC, m.id DESC
		 LIMIT $2`
	msgs := []MessageItem{}
	if err := s.db.SelectContext(ctx, &msgs, q, args...); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list messages: %w", err))
	}
	return msgs, nil
}

// messageColumns is the select list of a MessageItem over messages m and
// members s (the sender).
const messageColumns = `
	m.id, m.conversation_id, m.body, m.created_at,
	s.id AS "sender.id", s.handle AS "sender.handle", s.name AS "sender.name",
	s.avatar_url AS "sender.avatar_url", s.verified AS "sender.verified"`

// Message returns message id with its sender.
func (s *Store) Message(ctx context.Context, id int64) (MessageItem, error) {
	q := `SELECT ` + messageColumns + ` FROM messages m JOIN members s ON s.id = m.sender_id WHERE m.id = $1`
	var m MessageItem
	err := s.db.GetContext(ctx, &m, q, id)
	if errors.Is(err, sql.ErrNoRows) {
		return MessageItem{}, apperr.New(apperr.NotFound, "No such message.")
	}
	if err != nil {
		return MessageItem{}, pg.Classify(ctx, fmt.Errorf("get message: %w", err))
	}
	return m, nil
}

// MarkRead marks conversation id read for memberID (its unread count drops
// to zero, and so do memberID's message notifications of it) and returns it.
// NotFound when memberID does not take part in it.
func (s *Store) MarkRead(ctx context.Context, memberID, id int64) (Item, error) {
	var it Item
	err := pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		const q = `
			UPDATE conversation_participants cp
			   SET unread_count = 0, last_read_message_id = c.last_message_id
			  FROM conversations c
			 WHERE c.id = cp.conversation_id AND cp.conversation_id = $1 AND cp.member_id = $2`
		res, err := tx.ExecContext(ctx, q, id, memberID)
		if err != nil {
			return pg.Classify(ctx, fmt.Errorf("mark conversation read: %w", err))
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return pg.Classify(ctx, fmt.Errorf("mark conversation read: %w", err))
			}
			return notFound()
		}
		const notes = `
			UPDATE notifications SET read_at = now()
			 WHERE recipient_id = $2 AND conversation_id = $1 AND read_at IS NULL`
		if _, err := tx.ExecContext(ctx, notes, id, memberID); err != nil {
			return pg.Classify(ctx, fmt.Errorf("mark message notifications read: %w", err))
		}
		it, err = get(ctx, tx, memberID, id)
		return err
	})
	return it, err
}

// Position is the keyset position of it in its participant's list.
func (it Item) Position() cursor.Position { return cursor.Position{Time: it.UpdatedAt, ID: it.ID} }

// Position is the keyset position of m in its conversation.
func (m MessageItem) Position() cursor.Position { return cursor.Position{Time: m.CreatedAt, ID: m.ID} }
