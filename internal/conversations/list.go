package conversations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Member is the short form of a member.
type Member struct {
	ID        int64   `db:"id" json:"id"`
	Handle    string  `db:"handle" json:"handle"`
	Name      string  `db:"name" json:"name"`
	AvatarURL *string `db:"avatar_url" json:"avatar_url"`
	Verified  bool    `db:"verified" json:"verified"`
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
	// Others is the participants column of itemColumns.
	Others pg.JSON[[]Member] `db:"participants"`
}

// listRow is a row of the conversation list: an item and the caller's
// number of conversations with unread messages (the same on every row).
type listRow struct {
	Item
	UnreadTotal int `db:"unread_total"`
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

// itemColumns is the select list of an Item over itemFrom, for the
// participant $1: the other participants come as one JSON array (by id), so
// a page of conversations is one statement. The array is an ARRAY(subquery)
// in the primary key's order, not a json_agg: an aggregate with ORDER BY
// sorts again for every row and is dear to set up (hydrate.liveColumns).
const itemColumns = `
	c.id, cp.unread_count, cp.last_activity_at AS updated_at,
	lm.id AS "last.id", lm.sender_id AS "last.sender_id", s.handle AS "last.handle", s.name AS "last.name",
	s.avatar_url AS "last.avatar_url", s.verified AS "last.verified", lm.body AS "last.body",
	lm.created_at AS "last.created_at",
	to_json(ARRAY(SELECT json_build_object('id', om.id, 'handle', om.handle, 'name', om.name,
	                                       'avatar_url', om.avatar_url, 'verified', om.verified)
	                FROM conversation_participants op
	                JOIN members om ON om.id = op.member_id
	               WHERE op.conversation_id = c.id AND op.member_id <> $1
	               ORDER BY op.member_id)) AS participants`

const itemFrom = `
	  FROM conversation_participants cp
	  JOIN conversations c ON c.id = cp.conversation_id
	  LEFT JOIN messages lm ON lm.id = c.last_message_id
	  LEFT JOIN members s ON s.id = lm.sender_id`

// unreadTotal is the number of conversations of the member $1 with unread
// messages: uncorrelated, so PostgreSQL computes it once per statement.
const unreadTotal = `(SELECT count(*) FROM conversation_participants u WHERE u.member_id = $1 AND u.unread_count > 0)`

// listSQL selects a page of the conversations of the member $1, up to $2,
// with unreadTotal on every row, for the caller whose token the guard $3
// checks (auth.GuardSQL); listAfterSQL starts after the position ($4, $5).
var listSQL, listAfterSQL = listPage(""), listPage(" AND (cp.last_activity_at, cp.conversation_id) < ($4, $5)")

func listPage(keyset string) string {
	return `SELECT ` + itemColumns + `, ` + unreadTotal + ` AS unread_total` + itemFrom + `
		 WHERE cp.member_id = $1` + keyset + ` AND ` + auth.GuardSQL("$3") + `
		 ORDER BY cp.last_activity_at DESC, cp.conversation_id DESC
		 LIMIT $2`
}

// List returns up to limit conversations of memberID after the position
// after (nil: from the start), latest activity first, and how many of
// memberID's conversations have unread messages: one statement, or two
// when the page is empty.
func (s *Store) List(ctx context.Context, memberID int64, after *cursor.Position, limit int) ([]Item, int, error) {
	q, args := listSQL, []any{memberID, limit, auth.GuardArg(ctx)}
	if after != nil {
		q, args = listAfterSQL, append(args, after.Time, after.ID)
	}
	rows := []listRow{}
	if err := sqlx.SelectContext(ctx, s.prep, &rows, q, args...); err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("list conversations: %w", err))
	}
	if len(rows) == 0 {
		// Nothing confirmed the token: the edge authenticates in full.
		n, err := s.UnreadCount(ctx, memberID)
		return []Item{}, n, err
	}
	auth.Confirm(ctx)
	items := make([]Item, len(rows))
	for i, r := range rows {
		items[i] = r.Item.complete()
	}
	return items, rows[0].UnreadTotal, nil
}

// Get returns conversation id as memberID sees it; NotFound when it does not
// exist or memberID does not take part in it.
func (s *Store) Get(ctx context.Context, memberID, id int64) (Item, error) {
	return get(ctx, s.prep, memberID, id)
}

// getSQL selects the conversation $2 as the participant $1 sees it.
const getSQL = `SELECT ` + itemColumns + itemFrom + ` WHERE cp.member_id = $1 AND cp.conversation_id = $2`

func get(ctx context.Context, ex sqlx.QueryerContext, memberID, id int64) (Item, error) {
	var it Item
	err := sqlx.GetContext(ctx, ex, &it, getSQL, memberID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, notFound()
	}
	if err != nil {
		return Item{}, pg.Classify(ctx, fmt.Errorf("get conversation: %w", err))
	}
	return it.complete(), nil
}

// notFound is the one answer for a conversation that does not exist and for
// one the caller does not take part in.
func notFound() error { return apperr.New(apperr.NotFound, "No such conversation.") }

// complete returns it with its last message and other participants filled
// from the columns read.
func (it Item) complete() Item {
	it.Participants = it.Others.V
	if it.Participants == nil {
		it.Participants = []Member{}
	}
	it.Others = pg.JSON[[]Member]{}
	if l := it.Last; l.ID.Valid {
		it.LastMessage = &MessageItem{ID: l.ID.Int64, ConversationID: it.ID, Body: l.Body.String, CreatedAt: l.CreatedAt.Time,
			Sender: Member{ID: l.SenderID.Int64, Handle: l.Handle.String, Name: l.Name.String, AvatarURL: l.AvatarURL, Verified: l.Verified.Bool}}
	}
	return it
}

// UnreadCount is the number of memberID's conversations with unread messages.
func (s *Store) UnreadCount(ctx context.Context, memberID int64) (int, error) {
	var n int
	if err := sqlx.GetContext(ctx, s.prep, &n, `SELECT `+unreadTotal, memberID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("count unread conversations: %w", err))
	}
	return n, nil
}

// Participant reports nil when memberID takes part in conversation id, else
// NotFound.
func (s *Store) Participant(ctx context.Context, memberID, id int64) error {
	return participant(ctx, s.prep, memberID, id)
}

func participant(ctx context.Context, q sqlx.QueryerContext, memberID, id int64) error {
	var ok bool
	if err := sqlx.GetContext(ctx, q, &ok, `SELECT `+participates("$2"), id, memberID); err != nil {
		return pg.Classify(ctx, fmt.Errorf("find participant: %w", err))
	}
	if !ok {
		return notFound()
	}
	return nil
}

// participates is true when the member param takes part in the
// conversation $1.
func participates(param string) string {
	return `EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = $1 AND p.member_id = ` + param + `)`
}

// messagesSQL selects up to $2 messages of the conversation $1, newest
// first, when the member $3 takes part in it and the guard $4 passes
// (auth.GuardSQL; both uncorrelated, so checked once per statement);
// messagesAfterSQL starts after the position ($5, $6).
var messagesSQL, messagesAfterSQL = messagesPage(""), messagesPage(" AND (m.created_at, m.id) < ($5, $6)")

func messagesPage(keyset string) string {
	return `
		SELECT ` + messageColumns + `
		  FROM messages m
		  JOIN members s ON s.id = m.sender_id
		 WHERE m.conversation_id = $1` + keyset + `
		   AND ` + participates("$3") + `
		   AND ` + auth.GuardSQL("$4") + `
		 ORDER BY m.created_at DESC, m.id DESC
		 LIMIT $2`
}

// Messages returns up to limit messages of conversation id after the
// position after (nil: from the start), newest first. NotFound when memberID
// does not take part in it. One statement; an empty page asks once more
// whether memberID takes part.
func (s *Store) Messages(ctx context.Context, memberID, id int64, after *cursor.Position, limit int) ([]MessageItem, error) {
	q, args := messagesSQL, []any{id, limit, memberID, auth.GuardArg(ctx)}
	if after != nil {
		q, args = messagesAfterSQL, append(args, after.Time, after.ID)
	}
	msgs := []MessageItem{}
	if err := sqlx.SelectContext(ctx, s.prep, &msgs, q, args...); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list messages: %w", err))
	}
	if len(msgs) > 0 {
		auth.Confirm(ctx)
		return msgs, nil
	}
	// Nothing confirmed the token: the edge authenticates in full.
	if err := s.Participant(ctx, memberID, id); err != nil {
		return nil, err
	}
	return msgs, nil
}

// messageColumns is the select list of a MessageItem over messages m and
// members s (the sender).
const messageColumns = `
	m.id, m.conversation_id, m.body, m.created_at,
	s.id AS "sender.id", s.handle AS "sender.handle", s.name AS "sender.name",
	s.avatar_url AS "sender.avatar_url", s.verified AS "sender.verified"`

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

// MessagesByID returns the messages among ids of the conversations memberID
// takes part in, in id order, as the messages list shows them (the event
// stream's message events), but only those whose sender memberID would be
// notified of (visibility.For(memberID).AuthorInStream, the rule sendSQL
// notifies by, read when the event is sent): a message event is the live
// form of the message's notification, so a block either way, a mute or a
// suspension of the sender withholds it as it withholds the notification.
// The message stays in the conversation's list.
func (s *Store) MessagesByID(ctx context.Context, memberID int64, ids []int64) ([]MessageItem, error) {
	q := `
		WITH ` + visibility.For("$1").With() + `
		SELECT ` + messageColumns + `
		  FROM messages m
		  JOIN members s ON s.id = m.sender_id
		 WHERE m.id = ANY ($2)
		   AND EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = m.conversation_id AND p.member_id = $1)
		   AND ` + visibility.For("$1").AuthorInStream("m.sender_id") + `
		 ORDER BY m.id`
	msgs := []MessageItem{}
	if err := sqlx.SelectContext(ctx, s.prep, &msgs, q, memberID, pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("messages by id: %w", err))
	}
	return msgs, nil
}

// UnreadCounts returns memberID's unread count of each conversation among
// ids that they take part in (the event stream's conversation events).
func (s *Store) UnreadCounts(ctx context.Context, memberID int64, ids []int64) (map[int64]int, error) {
	var rows []struct {
		ID     int64 `db:"conversation_id"`
		Unread int   `db:"unread_count"`
	}
	const q = `SELECT conversation_id, unread_count FROM conversation_participants WHERE member_id = $1 AND conversation_id = ANY ($2)`
	if err := sqlx.SelectContext(ctx, s.prep, &rows, q, memberID, pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("unread counts: %w", err))
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Unread
	}
	return out, nil
}
