package seed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/db"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/relations"
	"github.com/socialnet/socialapi/internal/seed"
)

func count(t *testing.T, db *sqlx.DB, q string) int {
	t.Helper()
	var n int
	if err := db.Get(&n, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestImportDemo(t *testing.T) {
	t.Parallel()
	fx, err := seed.Parse(db.Demo)
	if err != nil {
		t.Fatalf("Parse(db.Demo): %v", err)
	}
	conn := pgtest.New(t)
	ctx := context.Background()
	sum, err := seed.Import(ctx, conn, fx)
	if err != nil {
		t.Fatalf("Import(demo): %v", err)
	}
	t.Log(sum)
	if len(sum.Warnings) > 0 {
		t.Errorf("Import(demo) warnings: %v", sum.Warnings)
	}

	tokens, votes, messages, messageNotes := 0, 0, 0, 0
	for _, m := range fx.Members {
		tokens += len(m.Tokens)
	}
	for _, p := range fx.Posts {
		if p.Poll != nil {
			votes += len(p.Poll.Votes)
		}
	}
	for _, c := range fx.Conversations {
		messages += len(c.Messages)
		messageNotes += len(c.Messages) * (len(c.Participants) - 1)
	}
	selfReactions := 0
	author := map[string]string{}
	for _, p := range fx.Posts {
		author[p.Key] = strings.ToLower(p.Author)
	}
	for _, r := range fx.Reactions {
		if author[r.Post] == strings.ToLower(r.Member) {
			selfReactions++
		}
	}
	want := map[string]int{
		"members": len(fx.Members), "api_tokens": tokens, "follows": len(fx.Follows), "posts": len(fx.Posts),
		"poll_votes_voters": votes, "comments": len(fx.Comments), "reactions": len(fx.Reactions),
		"conversations": len(fx.Conversations), "messages": messages, "listings": len(fx.Listings), "jobs": len(fx.Jobs),
		"follow_notes": len(fx.Follows), "reaction_notes": len(fx.Reactions) - selfReactions, "message_notes": messageNotes,
	}
	got := map[string]int{
		"members": count(t, conn, `SELECT count(*) FROM members`), "api_tokens": count(t, conn, `SELECT count(*) FROM api_tokens`),
		"follows": count(t, conn, `SELECT count(*) FROM follows`), "posts": count(t, conn, `SELECT count(*) FROM posts`),
		"poll_votes_voters": count(t, conn, `SELECT count(DISTINCT (poll_id, member_id)) FROM poll_votes`),
		"comments":          count(t, conn, `SELECT count(*) FROM comments`), "reactions": count(t, conn, `SELECT count(*) FROM reactions`),
		"conversations": count(t, conn, `SELECT count(*) FROM conversations`), "messages": count(t, conn, `SELECT count(*) FROM messages`),
		"listings": count(t, conn, `SELECT count(*) FROM listings`), "jobs": count(t, conn, `SELECT count(*) FROM jobs`),
		"follow_notes":   count(t, conn, `SELECT count(*) FROM notifications WHERE type = 'follow'`),
		"reaction_notes": count(t, conn, `SELECT count(*) FROM notifications WHERE type = 'reaction'`),
		"message_notes":  count(t, conn, `SELECT count(*) FROM notifications WHERE type = 'message'`),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows after Import(demo) (-want +got):\n%s", diff)
	}
	wantSum := seed.Summary{Members: len(fx.Members), Tokens: tokens, Follows: len(fx.Follows), Posts: len(fx.Posts),
		PollVotes: votes, Comments: len(fx.Comments), Reactions: len(fx.Reactions), Conversations: len(fx.Conversations),
		Messages: messages, Listings: len(fx.Listings), Jobs: len(fx.Jobs)}
	if diff := cmp.Diff(wantSum, sum); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
	ms, err := seed.CheckCounters(ctx, conn)
	if err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters after Import(demo) = %v, %v, want none", ms, err)
	}
	// No notification about something its recipient cannot see.
	const hidden = `
		SELECT count(*) FROM notifications n JOIN posts p ON p.id = n.post_id
		 WHERE NOT (p.visibility = 'public' OR p.author_id = n.recipient_id OR (p.visibility = 'followers'
		        AND EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = n.recipient_id AND f.followee_id = p.author_id)))`
	if n := count(t, conn, hidden); n != 0 {
		t.Errorf("%d notifications about posts their recipient cannot see", n)
	}
	// The demo tokens authenticate.
	for _, m := range fx.Members {
		for _, tok := range m.Tokens {
			if tok.Value == "" {
				continue
			}
			p, err := auth.NewStore(conn, nil).Authenticate(ctx, tok.Value)
			if err != nil || !strings.EqualFold(p.Handle, m.Handle) {
				t.Errorf("Authenticate(%s's %s token) = %+v, %v", m.Handle, tok.Scope, p, err)
			}
		}
	}
}

// small is a fixture with one entry of every kind and the interesting
// cases: a suspended member, revoked and generated tokens, a followers-only
// post, a reply, a group conversation.
const small = `{
  "members": [
    {"handle": "alice", "name": "Alice", "created_at": "2026-06-01T08:00:00+00:00",
     "tokens": [{"scope": "write", "name": "gen"}, {"scope": "read", "revoked_at": "2026-07-01T00:00:00Z"}]},
    {"handle": "Bob", "name": "Bob", "default_visibility": "followers"},
    {"handle": "carol", "name": "Carol"},
    {"handle": "dave", "name": "Dave", "suspended_at": "2026-10-01T00:00:00+00:00"}
  ],
  "follows": [
    {"follower": "alice", "followee": "bob", "created_at": "2026-07-01T10:00:00+00:00"},
    {"follower": "dave", "followee": "alice"}
  ],
  "posts": [
    {"key": "p1", "author": "bob", "body": "Hello @alice and @carol #Hello", "created_at": "2026-08-01T10:00:00+00:00"},
    {"key": "p2", "author": "alice", "body": "Vote!", "visibility": "public",
     "poll": {"question": "Tabs?", "options": ["yes", "no"], "votes": [{"voter": "carol", "choices": [1]}, {"voter": "dave", "choices": [0]}]}}
  ],
  "comments": [
    {"key": "c1", "post": "p1", "author": "alice", "body": "hi", "created_at": "2026-08-01T11:00:00+00:00"},
    {"key": "c2", "post": "p1", "author": "bob", "body": "hi back @alice", "parent": "c1", "created_at": "2026-08-01T12:00:00+00:00"}
  ],
  "reactions": [
    {"post": "p1", "member": "alice", "type": "love"},
    {"post": "p2", "member": "carol", "type": "haha"}
  ],
  "conversations": [
    {"key": "k1", "participants": ["alice", "bob", "carol"], "messages": [
      {"sender": "alice", "body": "hi all", "created_at": "2026-09-01T10:00:00+00:00"},
      {"sender": "carol", "body": "hey", "created_at": "2026-09-01T10:05:00+00:00"}]}
  ],
  "listings": [
    {"seller": "carol", "category": "books", "title": "Go book", "description": "", "price_minor": 1500,
     "currency": "EUR", "condition": "good", "city": "Lyon", "country": "FR",
     "images": [{"url": "https://cdn.example/b.jpg", "width": 10, "height": 10}]}
  ],
  "jobs": [
    {"title": "Gopher", "company": {"name": "Acme"}, "workplace": "remote", "employment_type": "full_time",
     "description": "Write Go", "closed": true}
  ]
}`

func TestImportSmall(t *testing.T) {
	t.Parallel()
	fx, err := seed.Parse([]byte(small))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	conn := pgtest.New(t)
	ctx := context.Background()
	sum, err := seed.Import(ctx, conn, fx)
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	wantString := "imported 4 members, 2 tokens, 2 follows, 2 posts, 2 poll votes, 2 comments, 2 reactions, " +
		"1 conversation, 2 messages, 1 listing, 1 job"
	if got := sum.String(); got != wantString {
		t.Errorf("Summary.String() = %q, want %q", got, wantString)
	}
	if len(sum.GeneratedTokens) != 2 || sum.GeneratedTokens[0].Scope != "write" || sum.GeneratedTokens[1].Scope != "read" {
		t.Fatalf("GeneratedTokens = %+v, want alice's write and read tokens", sum.GeneratedTokens)
	}
	as := auth.NewStore(conn, nil)
	if _, err := as.Authenticate(ctx, sum.GeneratedTokens[0].Value); err != nil {
		t.Errorf("the generated write token does not authenticate: %v", err)
	}
	if _, err := as.Authenticate(ctx, sum.GeneratedTokens[1].Value); !apperr.Is(err, apperr.TokenRevoked) {
		t.Errorf("Authenticate(revoked token) = %v, want token_revoked", err)
	}

	type note struct {
		Recipient string `db:"recipient"`
		Type      string `db:"type"`
		Actor     string `db:"actor"`
		At        string `db:"at"`
	}
	got := []note{}
	const q = `
		SELECT r.handle AS recipient, n.type, a.handle AS actor,
		       CASE WHEN n.created_at < '2026-10-01' THEN to_char(n.created_at AT TIME ZONE 'UTC', 'MM-DD HH24:MI') ELSE 'import' END AS at
		  FROM notifications n JOIN members r ON r.id = n.recipient_id JOIN members a ON a.id = n.actor_id
		 ORDER BY n.id`
	if err := conn.Select(&got, q); err != nil {
		t.Fatal(err)
	}
	want := []note{
		{"Bob", "follow", "alice", "07-01 10:00"},
		{"alice", "follow", "dave", "import"},
		// p1 is followers-only: alice follows bob, carol does not.
		{"alice", "mention", "Bob", "08-01 10:00"},
		{"Bob", "comment", "alice", "08-01 11:00"},
		// c2 replies to alice and mentions her: one notification, the reply.
		{"alice", "reply", "Bob", "08-01 12:00"},
		{"Bob", "reaction", "alice", "import"},
		{"alice", "reaction", "carol", "import"},
		{"Bob", "message", "alice", "09-01 10:00"},
		{"carol", "message", "alice", "09-01 10:00"},
		{"alice", "message", "carol", "09-01 10:05"},
		{"Bob", "message", "carol", "09-01 10:05"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	type state struct {
		Suspended      []string `db:"-"`
		Revoked        int      `db:"revoked"`
		TokenCreatedAt string   `db:"token_created"`
		Closed         int      `db:"closed"`
		Votes          string   `db:"votes"`
	}
	var st state
	const sq = `
		SELECT (SELECT count(*) FROM api_tokens WHERE revoked_at IS NOT NULL) AS revoked,
		       (SELECT string_agg(DISTINCT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), ',') FROM api_tokens) AS token_created,
		       (SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL) AS closed,
		       (SELECT string_agg(position || ':' || votes, ',' ORDER BY position) FROM poll_options) AS votes`
	if err := conn.Get(&st, sq); err != nil {
		t.Fatal(err)
	}
	if err := conn.Select(&st.Suspended, `SELECT handle FROM members WHERE suspended_at IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	wantState := state{Suspended: []string{"dave"}, Revoked: 1, TokenCreatedAt: "2026-06-01", Closed: 1, Votes: "0:1,1:1"}
	if diff := cmp.Diff(wantState, st); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	ms, err := seed.CheckCounters(ctx, conn)
	if err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters = %v, %v, want none", ms, err)
	}
}

// edit decodes small, applies f to it and encodes it again.
func edit(t *testing.T, f func(fx map[string]any)) []byte {
	t.Helper()
	var fx map[string]any
	if err := json.Unmarshal([]byte(small), &fx); err != nil {
		t.Fatal(err)
	}
	f(fx)
	b, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func entry(fx map[string]any, kind string, i int) map[string]any {
	return fx[kind].([]any)[i].(map[string]any)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	addPost := func(fx map[string]any, author string) {
		fx["posts"] = append(fx["posts"].([]any), map[string]any{"key": "p3", "author": author, "body": "x"})
	}
	tests := []struct {
		name      string
		doc       []byte
		wantEntry string
	}{
		{"not JSON", []byte(`{"members": [`), "fixture"},
		{"unknown top-level key", []byte(`{"people": []}`), "fixture"},
		{"trailing data", []byte(`{} {}`), "fixture"},
		{"unknown field", edit(t, func(fx map[string]any) { entry(fx, "posts", 1)["colour"] = "red" }), "posts[1]"},
		{"wrong type", edit(t, func(fx map[string]any) { entry(fx, "listings", 0)["price_minor"] = "cheap" }), "listings[0].price_minor"},
		{"bad timestamp", edit(t, func(fx map[string]any) { entry(fx, "follows", 0)["created_at"] = "yesterday" }), "follows[0].created_at"},
		{"null entry", edit(t, func(fx map[string]any) { fx["jobs"].([]any)[0] = nil }), "jobs[0]"},
		{"duplicate handle", edit(t, func(fx map[string]any) { entry(fx, "members", 2)["handle"] = "BOB" }), "members[2].handle"},
		{"bad token value", edit(t, func(fx map[string]any) {
			entry(fx, "members", 0)["tokens"].([]any)[0].(map[string]any)["value"] = "snw_demoAliceWrite00000000000000000000000000000"
		}), "members[0].tokens[0].value"},
		{"unknown handle in posts[2]", edit(t, func(fx map[string]any) { addPost(fx, "zed") }), "posts[2].author"},
		{"self-follow", edit(t, func(fx map[string]any) { entry(fx, "follows", 1)["followee"] = "DAVE" }), "follows[1]"},
		{"duplicate follow", edit(t, func(fx map[string]any) {
			fx["follows"] = append(fx["follows"].([]any), map[string]any{"follower": "Alice", "followee": "bob"})
		}), "follows[2]"},
		{"duplicate post key", edit(t, func(fx map[string]any) { entry(fx, "posts", 1)["key"] = "p1" }), "posts[1].key"},
		{"poll option out of range", edit(t, func(fx map[string]any) {
			entry(fx, "posts", 1)["poll"].(map[string]any)["votes"].([]any)[0].(map[string]any)["choices"] = []int{2}
		}), "posts[1].poll.votes[0].choices[0]"},
		{"second vote", edit(t, func(fx map[string]any) {
			entry(fx, "posts", 1)["poll"].(map[string]any)["votes"].([]any)[1].(map[string]any)["voter"] = "Carol"
		}), "posts[1].poll.votes[1].voter"},
		{"bad link", edit(t, func(fx map[string]any) { entry(fx, "posts", 0)["link"] = "javascript:alert(1)" }), "posts[0].link"},
		{"parent of another post", edit(t, func(fx map[string]any) { entry(fx, "comments", 1)["post"] = "p2" }), "comments[1].parent"},
		{"parent after its reply", edit(t, func(fx map[string]any) { entry(fx, "comments", 0)["parent"] = "c2" }), "comments[0].parent"},
		{"unknown post", edit(t, func(fx map[string]any) { entry(fx, "reactions", 1)["post"] = "p9" }), "reactions[1].post"},
		{"second reaction", edit(t, func(fx map[string]any) {
			entry(fx, "reactions", 1)["post"] = "p1"
			entry(fx, "reactions", 1)["member"] = "ALICE"
		}), "reactions[1]"},
		{"sender not a participant", edit(t, func(fx map[string]any) {
			entry(fx, "conversations", 0)["messages"].([]any)[1].(map[string]any)["sender"] = "dave"
		}), "conversations[0].messages[1].sender"},
		{"messages out of order", edit(t, func(fx map[string]any) {
			entry(fx, "conversations", 0)["messages"].([]any)[1].(map[string]any)["created_at"] = "2026-08-01T00:00:00Z"
		}), "conversations[0].messages[1].created_at"},
		{"unknown seller", edit(t, func(fx map[string]any) { entry(fx, "listings", 0)["seller"] = "zed" }), "listings[0].seller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := seed.Parse(tt.doc)
			var ee *seed.EntryError
			if !errors.As(err, &ee) || ee.Entry != tt.wantEntry {
				t.Errorf("Parse error = %v, want one about %s", err, tt.wantEntry)
			}
		})
	}
}

// TestImportRollback imports fixtures that fail half-way (decoded without
// Parse, so that the importer and the stores meet the problem): the error
// names the entry and nothing is left behind.
func TestImportRollback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		doc       []byte
		wantEntry string
		wantCode  apperr.Code // "" when the importer itself rejects the reference
	}{
		{"unknown handle in posts[2]", edit(t, func(fx map[string]any) {
			fx["posts"] = append(fx["posts"].([]any), map[string]any{"key": "p3", "author": "zed", "body": "x"})
		}), "posts[2].author", ""},
		{"comment whose parent belongs to another post", edit(t, func(fx map[string]any) {
			entry(fx, "comments", 1)["post"] = "p2"
		}), "comments[1]", apperr.ValidationFailed},
		{"comment on a post its author cannot see", edit(t, func(fx map[string]any) {
			entry(fx, "comments", 0)["author"] = "carol" // p1 is Bob's followers-only post
		}), "comments[0]", apperr.NotFound},
		{"database check", edit(t, func(fx map[string]any) { entry(fx, "jobs", 0)["country"] = "Germany" }), "jobs[0]", apperr.ValidationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var fx seed.Fixture
			if err := json.Unmarshal(tt.doc, &fx); err != nil {
				t.Fatal(err)
			}
			conn := pgtest.New(t)
			_, err := seed.Import(context.Background(), conn, &fx)
			var ee *seed.EntryError
			if !errors.As(err, &ee) || ee.Entry != tt.wantEntry {
				t.Fatalf("Import error = %v, want one about %s", err, tt.wantEntry)
			}
			if tt.wantCode != "" && !apperr.Is(err, tt.wantCode) {
				t.Errorf("Import error = %v, want code %s", err, tt.wantCode)
			}
			for _, table := range []string{"members", "api_tokens", "follows", "posts", "comments", "reactions",
				"notifications", "conversations", "messages", "listings", "jobs"} {
				if n := count(t, conn, `SELECT count(*) FROM `+table); n != 0 {
					t.Errorf("%d rows in %s after a failed import, want 0", n, table)
				}
			}
		})
	}
}

// importedSmall returns a fresh database holding the small fixture.
func importedSmall(t *testing.T) (*sqlx.DB, context.Context) {
	t.Helper()
	fx, err := seed.Parse([]byte(small))
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.New(t)
	ctx := context.Background()
	if _, err := seed.Import(ctx, conn, fx); err != nil {
		t.Fatal(err)
	}
	return conn, ctx
}

func TestCheckCountersFindsDrift(t *testing.T) {
	t.Parallel()
	conn, ctx := importedSmall(t)
	conn.MustExec(`UPDATE members SET follower_count = follower_count + 2 WHERE handle = 'Bob'`)
	conn.MustExec(`UPDATE posts SET love_count = 0, comment_count = 7`)
	conn.MustExec(`UPDATE conversation_participants SET unread_count = unread_count + 1`)
	// A vote counted twice, and one option's votes lost.
	conn.MustExec(`UPDATE polls SET votes_count = votes_count + 1, voters_count = voters_count + 1`)
	conn.MustExec(`UPDATE poll_options SET votes = 0 WHERE position = 0`)
	ms, err := seed.CheckCounters(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range ms {
		got = append(got, m.Table+"."+m.Column)
	}
	want := []string{
		"conversation_participants.unread_count", "conversation_participants.unread_count", "conversation_participants.unread_count",
		"members.follower_count", "posts.comment_count", "posts.love_count", "posts.comment_count",
		"poll_options.votes", "polls.voters_count", "polls.votes_count",
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("CheckCounters (-want +got):\n%s", diff)
	}
}

// TestCheckCountersBlocks: members.block_count counts the blocks rows of
// each blocker. Blocks written by the relations store keep it; a counter
// moved, or a row written without its counter, is a mismatch.
func TestCheckCountersBlocks(t *testing.T) {
	t.Parallel()
	conn, ctx := importedSmall(t)
	var alice int64
	if err := conn.Get(&alice, `SELECT id FROM members WHERE lower(handle) = 'alice'`); err != nil {
		t.Fatal(err)
	}
	rs := relations.NewStore(conn)
	for _, h := range []string{"Bob", "carol"} {
		if _, err := rs.Set(ctx, alice, h, relations.Block, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rs.Set(ctx, alice, "carol", relations.Block, false); err != nil {
		t.Fatal(err)
	}
	if ms, err := seed.CheckCounters(ctx, conn); len(ms) != 0 || err != nil {
		t.Fatalf("CheckCounters after blocks through the store = %v, %v, want none", ms, err)
	}
	mismatches := func() []string {
		return checkLines(t, ctx, conn, func(m seed.Mismatch) string {
			return fmt.Sprintf("%s.%s %d/%d", m.Table, m.Column, m.Stored, m.Counted)
		})
	}
	conn.MustExec(`UPDATE members SET block_count = block_count + 2 WHERE id = $1`, alice)
	if diff := cmp.Diff([]string{"members.block_count 3/1"}, mismatches()); diff != "" {
		t.Errorf("counter moved (-want +got):\n%s", diff)
	}
	conn.MustExec(`UPDATE members SET block_count = 0 WHERE id = $1`, alice)
	conn.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) SELECT $1, id FROM members WHERE lower(handle) = 'carol'`, alice)
	if diff := cmp.Diff([]string{"members.block_count 0/2"}, mismatches()); diff != "" {
		t.Errorf("rows without their counter (-want +got):\n%s", diff)
	}
}

// TestCheckMemberHides: member_hides holds blocks (both directions) and
// mutes from the viewer's side. Blocks, mutes and their removal through the
// relations store keep it; a row lost or a row left over is a mismatch.
func TestCheckMemberHides(t *testing.T) {
	t.Parallel()
	conn, ctx := importedSmall(t)
	alice, bob := memberID(t, conn, "alice"), memberID(t, conn, "bob")
	rs := relations.NewStore(conn)
	for _, s := range []struct {
		handle string
		kind   relations.Kind
		on     bool
	}{{"Bob", relations.Block, true}, {"carol", relations.Block, true}, {"carol", relations.Mute, true},
		{"carol", relations.Block, false}, {"Bob", relations.Mute, true}} {
		if _, err := rs.Set(ctx, alice, s.handle, s.kind, s.on); err != nil {
			t.Fatal(err)
		}
	}
	var rows []string
	if err := conn.Select(&rows, `SELECT h.cause || ' ' || lower(m.handle) FROM member_hides h JOIN members m ON m.id = h.member_id
	                               WHERE h.viewer_id = $1 ORDER BY 1`, alice); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"blocks bob", "mutes bob", "mutes carol"}, rows); diff != "" {
		t.Errorf("alice's hidden members (-want +got):\n%s", diff)
	}
	if ms, err := seed.CheckCounters(ctx, conn); len(ms) != 0 || err != nil {
		t.Fatalf("CheckCounters after blocks and mutes through the store = %v, %v, want none", ms, err)
	}
	conn.MustExec(`DELETE FROM member_hides WHERE viewer_id = $1 AND cause = 'blocked_by'`, bob)
	conn.MustExec(`INSERT INTO member_hides VALUES ($1, $2, 'mutes')`, bob, alice)
	want := []string{
		fmt.Sprintf("member_hides %d:%d:blocked_by 0/1", bob, alice),
		fmt.Sprintf("member_hides %d:%d:mutes 1/0", bob, alice),
	}
	if diff := cmp.Diff(want, checkLines(t, ctx, conn, rowMismatch)); diff != "" {
		t.Errorf("rows lost and left over (-want +got):\n%s", diff)
	}
}

// TestCheckSuspendedMembers: suspended_members follows members.suspended_at
// through suspension and its lifting; a row lost or left over is a
// mismatch.
func TestCheckSuspendedMembers(t *testing.T) {
	t.Parallel()
	conn, ctx := importedSmall(t)
	alice, bob := memberID(t, conn, "alice"), memberID(t, conn, "bob")
	conn.MustExec(`UPDATE members SET suspended_at = now() WHERE id IN ($1, $2)`, alice, bob)
	conn.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, bob)
	conn.MustExec(`UPDATE members SET follower_count = follower_count WHERE id = $1`, alice)
	var rows []int64
	if err := conn.Select(&rows, `SELECT member_id FROM suspended_members WHERE member_id IN ($1, $2) ORDER BY 1`, alice, bob); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{alice}, rows); diff != "" {
		t.Errorf("suspended_members (-want +got):\n%s", diff)
	}
	if ms, err := seed.CheckCounters(ctx, conn); len(ms) != 0 || err != nil {
		t.Fatalf("CheckCounters after suspensions = %v, %v, want none", ms, err)
	}
	conn.MustExec(`DELETE FROM suspended_members WHERE member_id = $1`, alice)
	conn.MustExec(`INSERT INTO suspended_members VALUES ($1)`, bob)
	want := []string{fmt.Sprintf("suspended_members %d 0/1", alice), fmt.Sprintf("suspended_members %d 1/0", bob)}
	got := checkLines(t, ctx, conn, rowMismatch)
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("rows lost and left over (-want +got):\n%s", diff)
	}
}

// checkLines returns CheckCounters' mismatches as lines.
func checkLines(t *testing.T, ctx context.Context, conn *sqlx.DB, line func(seed.Mismatch) string) []string {
	t.Helper()
	ms, err := seed.CheckCounters(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range ms {
		got = append(got, line(m))
	}
	return got
}

// rowMismatch is a mismatch of a row's presence: "table key stored/counted".
func rowMismatch(m seed.Mismatch) string {
	return fmt.Sprintf("%s %s %d/%d", m.Table, m.Key, m.Stored, m.Counted)
}

// memberID is the id of the member with handle.
func memberID(t *testing.T, conn *sqlx.DB, handle string) int64 {
	t.Helper()
	var id int64
	if err := conn.Get(&id, `SELECT id FROM members WHERE lower(handle) = $1`, handle); err != nil {
		t.Fatal(err)
	}
	return id
}
