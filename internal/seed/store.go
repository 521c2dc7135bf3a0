// Package seed imports fixture documents (db/FIXTURES.md): Parse decodes and
// checks one, Import replays it in one transaction through the same write
// functions as the API, so the same events produce the same notifications
// and counters; CheckCounters compares every denormalised counter with the
// rows it counts.
package seed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/comments"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/reactions"
	"github.com/socialnet/socialapi/internal/timeline"
)

// Summary counts what Import stored.
type Summary struct {
	Members, Tokens, Follows, Posts, PollVotes, Comments, Reactions int
	Conversations, Messages, Listings, Jobs                         int
	// GeneratedTokens are the tokens the fixture gave no value; their secrets
	// are shown nowhere else.
	GeneratedTokens []GeneratedToken
	// Warnings name entries that imported but look wrong, e.g. a comment
	// dated before its post.
	Warnings []string
}

// GeneratedToken is a token Import created with a random value.
type GeneratedToken struct {
	Handle, Name, Scope, Value string
}

// String reads like "imported 8 members, 3 tokens, 23 follows, ...".
func (s Summary) String() string {
	parts := []string{}
	for _, c := range []struct {
		n    int
		noun string
	}{
		{s.Members, "member"}, {s.Tokens, "token"}, {s.Follows, "follow"}, {s.Posts, "post"},
		{s.PollVotes, "poll vote"}, {s.Comments, "comment"}, {s.Reactions, "reaction"},
		{s.Conversations, "conversation"}, {s.Messages, "message"}, {s.Listings, "listing"}, {s.Jobs, "job"},
	} {
		if c.n != 1 {
			c.noun += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", c.n, c.noun))
	}
	return "imported " + strings.Join(parts, ", ")
}

// Import stores fx in one transaction, in the order members, tokens,
// follows, posts (with poll votes), comments, reactions, conversations and
// messages, listings, jobs, and finally the members' suspensions. Any
// failure rolls everything back and is returned as an *EntryError naming
// the entry.
func Import(ctx context.Context, db *sqlx.DB, fx *Fixture) (Summary, error) {
	var sum Summary
	err := pg.WithTx(ctx, db, func(tx *sqlx.Tx) error {
		im := importer{ctx: ctx, tx: tx, members: map[string]int64{}, posts: map[string]stamped{}, comments: map[string]stamped{}}
		var err error
		if sum, err = im.run(fx); err != nil {
			return err
		}
		// Fan the imported posts out now rather than leave it to a server.
		return timeline.Drain(ctx, tx)
	})
	if err != nil {
		return Summary{}, err
	}
	return sum, nil
}

type importer struct {
	ctx      context.Context
	tx       *sqlx.Tx
	members  map[string]int64   // lower-cased handle → id
	posts    map[string]stamped // key → post
	comments map[string]stamped // key → comment
}

// stamped is a stored post or comment.
type stamped struct {
	id        int64
	createdAt time.Time
}

// wrap names the entry an error is about.
func wrap(entry string, err error) error {
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	return &EntryError{Entry: entry, Err: err}
}

func (im *importer) member(entry, handle string) (int64, error) {
	id, ok := im.members[strings.ToLower(handle)]
	if !ok {
		return 0, entryErr(entry, "unknown member %q", handle)
	}
	return id, nil
}

func (im *importer) post(entry, key string) (stamped, error) {
	p, ok := im.posts[key]
	if !ok {
		return stamped{}, entryErr(entry, "unknown post %q", key)
	}
	return p, nil
}

func (im *importer) run(fx *Fixture) (Summary, error) {
	var s Summary
	ctx, tx := im.ctx, im.tx
	for i, m := range fx.Members {
		e := fmt.Sprintf("members[%d]", i)
		mem, err := members.CreateTx(ctx, tx, members.New{
			Handle: m.Handle, Name: m.Name, Verified: m.Verified, Bio: m.Bio, AvatarURL: m.Avatar,
			DefaultVisibility: m.DefaultVisibility, CreatedAt: m.CreatedAt,
		})
		if err != nil {
			return s, wrap(e, err)
		}
		im.members[strings.ToLower(m.Handle)] = mem.ID
		s.Members++
	}
	for i, m := range fx.Members {
		for j, t := range m.Tokens {
			e := fmt.Sprintf("members[%d].tokens[%d]", i, j)
			tok, secret, err := auth.CreateTx(ctx, tx, auth.NewToken{
				Handle: m.Handle, Scope: auth.Scope(t.Scope), Name: t.Name, ExpiresAt: t.ExpiresAt, Value: t.Value,
			})
			if err != nil {
				return s, wrap(e, err)
			}
			// A token is as old as its member (FIXTURES.md); auth.CreateTx
			// stamps now, so the fixture-only fields are set here.
			const q = `
				UPDATE api_tokens t SET created_at = m.created_at, revoked_at = $2
				  FROM members m WHERE t.id = $1 AND m.id = t.member_id`
			if _, err := tx.ExecContext(ctx, q, tok.ID, t.RevokedAt); err != nil {
				return s, wrap(e, pg.Classify(ctx, fmt.Errorf("date token: %w", err)))
			}
			if t.Value == "" {
				s.GeneratedTokens = append(s.GeneratedTokens, GeneratedToken{Handle: m.Handle, Name: t.Name, Scope: t.Scope, Value: secret})
			}
			s.Tokens++
		}
	}
	for i, f := range fx.Follows {
		e := fmt.Sprintf("follows[%d]", i)
		followerID, err := im.member(e+".follower", f.Follower)
		if err != nil {
			return s, err
		}
		created, _, err := follows.FollowTx(ctx, tx, followerID, f.Followee, f.CreatedAt)
		if err != nil {
			return s, wrap(e, err)
		}
		if !created {
			return s, entryErr(e, "%s already follows %s", f.Follower, f.Followee)
		}
		s.Follows++
	}
	for i, p := range fx.Posts {
		e := fmt.Sprintf("posts[%d]", i)
		if _, dup := im.posts[p.Key]; dup {
			return s, entryErr(e+".key", "duplicate key %q", p.Key)
		}
		authorID, err := im.member(e+".author", p.Author)
		if err != nil {
			return s, err
		}
		np := posts.NewPost{
			Body: p.Body, Visibility: p.Visibility, Link: p.Link, Type: p.Type, CreatedAt: p.CreatedAt,
			Views: p.Views, Shares: p.Shares,
		}
		for _, m := range p.Media {
			np.Media = append(np.Media, posts.Media{Kind: m.Kind, URL: m.URL, PreviewURL: m.PreviewURL, Width: m.Width, Height: m.Height, Alt: m.Alt})
		}
		if p.Poll != nil {
			np.Poll = &posts.NewPoll{Question: p.Poll.Question, Options: p.Poll.Options, Multiple: p.Poll.Multiple, ExpiresAt: p.Poll.ExpiresAt}
		}
		stored, err := posts.CreateTx(ctx, tx, authorID, np)
		if err != nil {
			return s, wrap(e, err)
		}
		im.posts[p.Key] = stamped{stored.ID, stored.CreatedAt}
		s.Posts++
		if p.Poll == nil {
			continue
		}
		for j, v := range p.Poll.Votes {
			ve := fmt.Sprintf("%s.poll.votes[%d]", e, j)
			voterID, err := im.member(ve+".voter", v.Voter)
			if err != nil {
				return s, err
			}
			if err := posts.VotePollTx(ctx, tx, stored.ID, voterID, v.Choices, &stored.CreatedAt); err != nil {
				return s, wrap(ve, err)
			}
			s.PollVotes++
		}
	}
	for i, c := range fx.Comments {
		e := fmt.Sprintf("comments[%d]", i)
		if _, dup := im.comments[c.Key]; dup {
			return s, entryErr(e+".key", "duplicate key %q", c.Key)
		}
		post, err := im.post(e+".post", c.Post)
		if err != nil {
			return s, err
		}
		authorID, err := im.member(e+".author", c.Author)
		if err != nil {
			return s, err
		}
		nc := comments.NewComment{Body: c.Body, CreatedAt: c.CreatedAt}
		earliest := post.createdAt
		if c.Parent != nil {
			parent, ok := im.comments[*c.Parent]
			if !ok {
				return s, entryErr(e+".parent", "unknown comment %q", *c.Parent)
			}
			nc.ParentID = &parent.id
			earliest = parent.createdAt
		}
		stored, err := comments.CreateTx(ctx, tx, authorID, post.id, nc)
		if err != nil {
			return s, wrap(e, err)
		}
		if stored.CreatedAt.Before(earliest) {
			s.Warnings = append(s.Warnings, e+".created_at: before the post or parent it answers")
		}
		im.comments[c.Key] = stamped{stored.ID, stored.CreatedAt}
		s.Comments++
	}
	for i, r := range fx.Reactions {
		e := fmt.Sprintf("reactions[%d]", i)
		post, err := im.post(e+".post", r.Post)
		if err != nil {
			return s, err
		}
		memberID, err := im.member(e+".member", r.Member)
		if err != nil {
			return s, err
		}
		if _, err := reactions.SetTx(ctx, tx, memberID, post.id, r.Type, r.CreatedAt); err != nil {
			return s, wrap(e, err)
		}
		s.Reactions++
	}
	for i, c := range fx.Conversations {
		e := fmt.Sprintf("conversations[%d]", i)
		if len(c.Participants) < 2 {
			return s, entryErr(e+".participants", "a conversation needs at least 2 participants")
		}
		creatorID, err := im.member(e+".participants[0]", c.Participants[0])
		if err != nil {
			return s, err
		}
		var at *time.Time
		if len(c.Messages) > 0 {
			at = c.Messages[0].CreatedAt
		}
		conv, err := conversations.StartTx(ctx, tx, creatorID, c.Participants[1:], "", at)
		if err != nil {
			return s, wrap(e, err)
		}
		if !conv.Created {
			return s, entryErr(e, "reuses the one-to-one conversation of an earlier entry")
		}
		s.Conversations++
		for j, m := range c.Messages {
			me := fmt.Sprintf("%s.messages[%d]", e, j)
			senderID, err := im.member(me+".sender", m.Sender)
			if err != nil {
				return s, err
			}
			if _, err := conversations.SendTx(ctx, tx, senderID, conv.ID, m.Body, m.CreatedAt); err != nil {
				return s, wrap(me, err)
			}
			s.Messages++
		}
	}
	for i, l := range fx.Listings {
		e := fmt.Sprintf("listings[%d]", i)
		sellerID, err := im.member(e+".seller", l.Seller)
		if err != nil {
			return s, err
		}
		nl := market.NewListing{
			Category: l.Category, Title: l.Title, Description: l.Description, PriceMinor: l.PriceMinor,
			Currency: l.Currency, Condition: l.Condition, City: l.City, Region: l.Region, Country: l.Country,
			Status: l.Status, CreatedAt: l.CreatedAt,
		}
		for _, img := range l.Images {
			nl.Images = append(nl.Images, market.Image{URL: img.URL, Width: img.Width, Height: img.Height, Alt: img.Alt})
		}
		if _, err := market.CreateTx(ctx, tx, sellerID, nl); err != nil {
			return s, wrap(e, err)
		}
		s.Listings++
	}
	for i, j := range fx.Jobs {
		e := fmt.Sprintf("jobs[%d]", i)
		nj := jobs.NewJob{
			Title: j.Title, CompanyName: j.Company.Name, CompanyLogoURL: j.Company.Logo, CompanyURL: j.Company.URL,
			City: j.City, Region: j.Region, Country: j.Country, Workplace: j.Workplace, EmploymentType: j.EmploymentType,
			Description: j.Description, ApplyURL: j.ApplyURL, PostedAt: j.PostedAt, ExpiresAt: j.ExpiresAt, Closed: j.Closed,
		}
		if j.Salary != nil {
			nj.Salary = &jobs.Salary{MinMinor: j.Salary.MinMinor, MaxMinor: j.Salary.MaxMinor, Currency: j.Salary.Currency, Period: j.Salary.Period}
		}
		if _, err := jobs.CreateTx(ctx, tx, nj); err != nil {
			return s, wrap(e, err)
		}
		s.Jobs++
	}
	// Suspensions last: what a suspended member did before still happened.
	for i, m := range fx.Members {
		if m.SuspendedAt == nil {
			continue
		}
		const q = `UPDATE members SET suspended_at = $2 WHERE id = $1`
		if _, err := tx.ExecContext(ctx, q, im.members[strings.ToLower(m.Handle)], *m.SuspendedAt); err != nil {
			return s, wrap(fmt.Sprintf("members[%d].suspended_at", i), pg.Classify(ctx, fmt.Errorf("suspend: %w", err)))
		}
	}
	return s, nil
}

// Mismatch is a denormalised value that differs from what its rows say.
type Mismatch struct {
	Table   string `db:"tbl"`
	Key     string `db:"key"` // the row's primary key, e.g. "12" or "3:7"
	Column  string `db:"col"`
	Stored  int64  `db:"stored"`
	Counted int64  `db:"counted"`
}

// String reads like "members 3 follower_count: stored 2, counted 1".
func (m Mismatch) String() string {
	return fmt.Sprintf("%s %s %s: stored %d, counted %d", m.Table, m.Key, m.Column, m.Stored, m.Counted)
}

// reactionTypes are the per-type counter columns of posts.
var reactionTypes = []string{"like", "love", "haha", "wow", "sad", "angry"}

// CheckCounters compares every denormalised value with the rows it stands
// for and returns the differences (none: consistent):
//
//   - members.follower_count, following_count: follows rows;
//   - members.block_count: blocks rows, per blocker;
//   - member_hides: a row (stored 1, counted 0, or the reverse) for each
//     that differs from blocks (both directions) and mutes;
//   - suspended_members: a row likewise for each member whose presence
//     there differs from members.suspended_at;
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
		`SELECT 'members', m.id::text, 'block_count', m.block_count::bigint,
		        (SELECT count(*) FROM blocks b WHERE b.blocker_id = m.id) FROM members m`,
		`SELECT 'member_hides', COALESCE(h.viewer_id, d.viewer_id) || ':' || COALESCE(h.member_id, d.member_id) || ':' ||
		        COALESCE(h.cause, d.cause), 'row', (h.viewer_id IS NOT NULL)::int::bigint, (d.viewer_id IS NOT NULL)::int::bigint
		   FROM member_hides h
		   FULL JOIN (SELECT blocker_id, blocked_id, 'blocks' FROM blocks
		              UNION ALL SELECT blocked_id, blocker_id, 'blocked_by' FROM blocks
		              UNION ALL SELECT muter_id, muted_id, 'mutes' FROM mutes) AS d(viewer_id, member_id, cause)
		     ON d.viewer_id = h.viewer_id AND d.member_id = h.member_id AND d.cause = h.cause`,
		`SELECT 'suspended_members', m.id::text, 'row', (sm.member_id IS NOT NULL)::int::bigint,
		        (m.suspended_at IS NOT NULL)::int::bigint
		   FROM members m LEFT JOIN suspended_members sm ON sm.member_id = m.id`,
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
