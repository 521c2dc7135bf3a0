package seed

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/pg"
)

// Mismatch is a denormalised value that differs from what its rows say.
type Mismatch struct {
	Table   string `db:"tbl"`
	Key     string `db:"key"` // the row's primary key, e.g. "12" or "3:7"
	Column  string `db:"col"`
	Stored  int64  `db:"stored"`
	Counted int64  `db:"counted"`
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s %s %s: stored %d, counted %d", m.Table, m.Key, m.Column, m.Stored, m.Counted)
}

// reactionTypes are the per-type counter columns of posts.
var reactionTypes = []string{"like", "love", "haha", "wow", "sad", "angry"}

// CheckCounters compares every denormalised value with the rows it stands
// for and returns the differences (none: consistent):
//
//   - members.follower_count, following_count: follows rows;
//   - posts.comment_count (replies included), posts.<type>_count: comments,
//     reactions;
//   - comments.reply_count: direct replies;
//   - polls.votes_count, voters_count, poll_options.votes: poll_votes;
//   - conversations.last_message_id: the latest message by (created_at, id);
//   - conversation_participants.unread_count: the other participants'
//     messages after last_read_message_id.
func CheckCounters(ctx context.Context, db sqlx.QueryerContext) ([]Mismatch, error) {
	parts := []string{
		`SELECT 'members', m.id::text, 'follower_count', m.follower_count::bigint,
		        (SELECT count(*) FROM follows f WHERE f.followee_id = m.id) FROM members m`,
		`SELECT 'members', m.id::text, 'following_count', m.following_count::bigint,
		        (SELECT count(*) FROM follows f WHERE f.follower_id = m.id) FROM members m`,
		`SELECT 'posts', p.id::text, 'comment_count', p.comment_count::bigint,
		        (SELECT count(*) FROM comments c WHERE c.post_id = p.id) FROM posts p`,
		`SELECT 'comments', c.id::text, 'reply_count', c.reply_count::bigint,
		        (SELECT count(*) FROM comments r WHERE r.parent_id = c.id) FROM comments c`,
		`SELECT 'polls', pl.id::text, 'votes_count', pl.votes_count::bigint,
		        (SELECT count(*) FROM poll_votes v WHERE v.poll_id = pl.id) FROM polls pl`,
		`SELECT 'polls', pl.id::text, 'voters_count', pl.voters_count::bigint,
		        (SELECT count(DISTINCT v.member_id) FROM poll_votes v WHERE v.poll_id = pl.id) FROM polls pl`,
		`SELECT 'poll_options', o.poll_id || ':' || o.position, 'votes', o.votes::bigint,
		        (SELECT count(*) FROM poll_votes v WHERE v.poll_id = o.poll_id AND v.position = o.position)
		   FROM poll_options o`,
		`SELECT 'conversations', c.id::text, 'last_message_id', COALESCE(c.last_message_id, 0),
		        COALESCE((SELECT m.id FROM messages m WHERE m.conversation_id = c.id
		                   ORDER BY m.created_at DESC, m.id DESC LIMIT 1), 0)
		   FROM conversations c`,
		`SELECT 'conversation_participants', cp.conversation_id || ':' || cp.member_id, 'unread_count',
		        cp.unread_count::bigint,
		        (SELECT count(*) FROM messages m
		          WHERE m.conversation_id = cp.conversation_id AND m.sender_id <> cp.member_id
		            AND m.id > COALESCE(cp.last_read_message_id, 0))
		   FROM conversation_participants cp`,
	}
	for _, t := range reactionTypes {
		parts = append(parts, fmt.Sprintf(`SELECT 'posts', p.id::text, '%[1]s_count', p.%[1]s_count::bigint,
		        (SELECT count(*) FROM reactions r WHERE r.post_id = p.id AND r.type = '%[1]s') FROM posts p`, t))
	}
	q := `SELECT tbl, key, col, stored, counted FROM (` + strings.Join(parts, "\nUNION ALL\n") +
		`) AS x(tbl, key, col, stored, counted) WHERE stored <> counted ORDER BY tbl, key, col`
	ms := []Mismatch{}
	if err := sqlx.SelectContext(ctx, db, &ms, q); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("check counters: %w", err))
	}
	return ms, nil
}
