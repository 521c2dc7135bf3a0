// Package notifications lists a member's notifications and marks them read.
// The write paths that create notifications live with the operations that
// cause them (follows, reactions, comments, posts, conversations); every read
// here applies the visibility predicate to the subject post and to the actor,
// so a member is never told about something, or by someone, they can no
// longer see.
package notifications

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Filter narrows a notification list.
type Filter struct {
	Unread bool   // only unread ones
	Type   string // "" for every type
}

// Item is a notification as the list shows it.
type Item struct {
	ID             int64
	Type           string
	PostID         *int64
	PostAuthor     *string // handle of the subject post's author
	CommentID      *int64
	ConversationID *int64
	MessageID      *int64
	Reaction       *string
	Read           bool
	CreatedAt      time.Time
	Actor          Member
}

// Position is the keyset position of it in its recipient's list.
func (it Item) Position() cursor.Position { return cursor.Position{Time: it.CreatedAt, ID: it.ID} }

// Member is the short form of a member.
type Member struct {
	ID        int64
	Handle    string
	Name      string
	AvatarURL *string
	Verified  bool
}

// Store reads notifications and marks them read.
type Store struct {
	db   *sqlx.DB
	prep *pg.Prepared // the reads
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db, prep: pg.NewPrepared(db)} }

// visible is true for a notification n (with its post LEFT JOINed as p)
// of the recipient $1 when the list shows it: the recipient may still see
// its subject, the post (the one visibility rule) and the conversation
// (still a participant), and its actor (AuthorInStream: a notification is
// a stream's item, so neither a block, a suspension nor a mute of the
// actor stands). It is the rule's shared form (visibility.For("$1")), for
// a statement that begins WithVisible: the statement reads the recipient's
// hidden members once. The list, its unread count, mark-read, the event
// stream's rendering (ByIDs) and the account's count (GET /me) all use it,
// so they count and show the same set.
var (
	// WithVisible begins a statement that uses visible (or UnreadSQL).
	WithVisible = "WITH " + visibility.For("$1").With() + "\n"
	visible     = "((n.post_id IS NULL OR " + visibility.For("$1").Post("p") + ") AND " +
		visibility.For("$1").AuthorInStream("n.actor_id") + participant("$1") + ")"
)

// participant is the part of visible about the conversation.
func participant(recipient string) string {
	return " AND (n.conversation_id IS NULL OR EXISTS (SELECT 1 FROM conversation_participants cp" +
		" WHERE cp.conversation_id = n.conversation_id AND cp.member_id = " + recipient + "))"
}

// List returns up to limit notifications of recipientID matching f after the
// position after (nil: from the start), newest first, and how many
// notifications of recipientID are unread (UnreadCount): one statement, two
// when the page is empty.
func (s *Store) List(ctx context.Context, recipientID int64, f Filter, after *cursor.Position, limit int) ([]Item, int, error) {
	args := []any{recipientID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"n.recipient_id = $1", visible}
	if f.Unread {
		where = append(where, "n.read_at IS NULL")
	}
	if f.Type != "" {
		where = append(where, "n.type = "+arg(f.Type))
	}
	if after != nil {
		where = append(where, fmt.Sprintf("(n.created_at, n.id) < (%s, %s)", arg(after.Time), arg(after.ID)))
	}
	where = append(where, auth.GuardSQL(arg(auth.GuardArg(ctx))))
	q := WithVisible + `
		SELECT n.id, n.type, n.post_id, pa.handle AS post_author, n.comment_id, n.conversation_id, n.message_id,
		       n.reaction, n.read_at IS NOT NULL AS read, n.created_at,
		       a.id, a.handle, a.name, a.avatar_url, a.verified,
		       (` + UnreadSQL + `) AS unread
		  FROM notifications n
		  JOIN members a ON a.id = n.actor_id
		  LEFT JOIN posts p ON p.id = n.post_id
		  LEFT JOIN members pa ON pa.id = p.author_id
		 WHERE ` + strings.Join(where, " AND ") + `
		 ORDER BY n.created_at DESC, n.id DESC
		 LIMIT ` + arg(limit)
	rows, err := s.prep.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("list notifications: %w", err))
	}
	items, unread, err := scanItems(rows, limit)
	if err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("list notifications: %w", err))
	}
	if len(items) == 0 {
		unread, err := s.UnreadCount(ctx, recipientID)
		return []Item{}, unread, err
	}
	auth.Confirm(ctx)
	return items, unread, nil
}

// scanItems reads List's rows (at most limit, a capacity hint) and the
// unread count they all carry, scanning each row in place: sqlx's mapping
// of columns to struct fields by reflection was a quarter of the server's
// CPU for a notification page.
func scanItems(rows *sql.Rows, limit int) ([]Item, int, error) {
	defer rows.Close()
	items := make([]Item, 0, limit)
	var unread int
	for rows.Next() {
		items = append(items, Item{})
		it := &items[len(items)-1]
		a := &it.Actor
		if err := rows.Scan(&it.ID, &it.Type, &it.PostID, &it.PostAuthor, &it.CommentID, &it.ConversationID,
			&it.MessageID, &it.Reaction, &it.Read, &it.CreatedAt,
			&a.ID, &a.Handle, &a.Name, &a.AvatarURL, &a.Verified, &unread); err != nil {
			return nil, 0, err
		}
	}
	return items, unread, rows.Err()
}

// UnreadSQL counts the unread notifications of $1 that List would show,
// within a statement that begins WithVisible.
var UnreadSQL = `
		SELECT count(*)
		  FROM notifications n
		  LEFT JOIN posts p ON p.id = n.post_id
		 WHERE n.recipient_id = $1 AND n.read_at IS NULL AND ` + visible

// UnreadCount is the number of unread notifications of recipientID that
// List would show, whatever the filters.
func (s *Store) UnreadCount(ctx context.Context, recipientID int64) (int, error) {
	return unreadCount(ctx, s.prep, recipientID)
}

func unreadCount(ctx context.Context, ex sqlx.QueryerContext, recipientID int64) (int, error) {
	var n int
	if err := sqlx.GetContext(ctx, ex, &n, WithVisible+UnreadSQL, recipientID); err != nil {
		return 0, pg.Classify(ctx, fmt.Errorf("count unread notifications: %w", err))
	}
	return n, nil
}

// MarkRead marks the unread notifications of recipientID read: those with
// an id up to upTo, or all when upTo is nil. It returns how many changed and
// how many unread remain. Notifications the recipient cannot see are left
// alone (and so not counted): the answer reveals nothing about them.
func (s *Store) MarkRead(ctx context.Context, recipientID int64, upTo *int64) (marked, unread int, err error) {
	err = pg.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		q := WithVisible + `
			UPDATE notifications u SET read_at = now()
			  FROM (SELECT n.id FROM notifications n LEFT JOIN posts p ON p.id = n.post_id
			         WHERE n.recipient_id = $1 AND n.read_at IS NULL AND ($2::bigint IS NULL OR n.id <= $2)
			           AND ` + visible + `) v
			 WHERE u.id = v.id AND u.read_at IS NULL`
		res, err := tx.ExecContext(ctx, q, recipientID, upTo)
		if err != nil {
			return pg.Classify(ctx, fmt.Errorf("mark notifications read: %w", err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return pg.Classify(ctx, fmt.Errorf("mark notifications read: %w", err))
		}
		marked = int(n)
		unread, err = unreadCount(ctx, tx, recipientID)
		return err
	})
	return marked, unread, err
}

// ByIDs returns the notifications of recipientID among ids that List would
// show (visible), in id order: the event stream renders its notification
// events through it, so an event obeys the list's rule when it is sent.
func (s *Store) ByIDs(ctx context.Context, recipientID int64, ids []int64) ([]Item, error) {
	q := WithVisible + `
		SELECT n.id, n.type, n.post_id, pa.handle AS post_author, n.comment_id, n.conversation_id, n.message_id,
		       n.reaction, n.read_at IS NOT NULL AS read, n.created_at,
		       a.id, a.handle, a.name, a.avatar_url, a.verified, 0 AS unread
		  FROM notifications n
		  JOIN members a ON a.id = n.actor_id
		  LEFT JOIN posts p ON p.id = n.post_id
		  LEFT JOIN members pa ON pa.id = p.author_id
		 WHERE n.recipient_id = $1 AND n.id = ANY ($2) AND ` + visible + `
		 ORDER BY n.id`
	rows, err := s.prep.QueryContext(ctx, q, recipientID, pq.Array(ids))
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("notifications by id: %w", err))
	}
	items, _, err := scanItems(rows, len(ids))
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("notifications by id: %w", err))
	}
	return items, nil
}
