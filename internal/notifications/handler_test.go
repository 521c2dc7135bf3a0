package notifications_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/comments"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/reactions"
)

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func vis(s string) *string { return &s }

type fixture struct {
	env                     *apitest.Env
	alice, bob              int64
	read, write             string
	publicPost, hiddenPost  posts.Post
	comment                 comments.Comment
	conversation, messageID int64
}

// newFixture gives alice one notification of every type, plus one about a
// followers-only post of bob's that she no longer sees (she followed bob when
// he mentioned her, then unfollowed him).
func newFixture(t *testing.T) fixture {
	t.Helper()
	env := apitest.New(t)
	ctx := context.Background()
	f := fixture{env: env, alice: env.Member(t, "alice"), bob: env.Member(t, "bob")}
	env.Member(t, "carol")
	f.read, f.write = env.Token(t, "alice", auth.ScopeRead), env.Token(t, "alice", auth.ScopeWrite)
	ps, db := posts.NewStore(env.DB, nil), env.DB
	mine := must[posts.Post](t)(ps.Create(ctx, f.alice, posts.NewPost{Body: "Hello world", Visibility: vis("public")}))
	if _, _, err := follows.NewStore(db).Toggle(ctx, f.bob, "alice"); err != nil {
		t.Fatal(err)
	}
	must[reactions.Result](t)(reactions.NewStore(db).Set(ctx, f.bob, mine.ID, "love"))
	f.comment = must[comments.Comment](t)(comments.NewStore(db).Create(ctx, f.bob, mine.ID, comments.NewComment{Body: "Nice"}))
	f.publicPost = must[posts.Post](t)(ps.Create(ctx, f.bob, posts.NewPost{Body: "Hi @alice", Visibility: vis("public")}))
	toggle := func(follower int64, followee string) {
		t.Helper()
		if _, _, err := follows.NewStore(db).Toggle(ctx, follower, followee); err != nil {
			t.Fatal(err)
		}
	}
	toggle(f.alice, "bob")
	f.hiddenPost = must[posts.Post](t)(ps.Create(ctx, f.bob, posts.NewPost{Body: "Secret for @alice", Visibility: vis("followers")}))
	toggle(f.alice, "bob")
	must[posts.Post](t)(ps.Create(ctx, f.bob, posts.NewPost{Body: "Private note about @alice", Visibility: vis("private")}))
	c := must[conversations.Conversation](t)(conversations.NewStore(db).Start(ctx, f.bob, []string{"alice"}, "Hey"))
	f.conversation, f.messageID = c.ID, c.FirstMessage.ID
	return f
}

func (f fixture) list(t *testing.T, query string) gen.NotificationList {
	t.Helper()
	resp := f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/notifications" + query, Token: f.read})
	if resp.Status != 200 {
		t.Fatalf("GET notifications%s: %d %s", query, resp.Status, resp.Body)
	}
	var l gen.NotificationList
	resp.JSON(t, &l)
	return l
}

func (f fixture) unreadOnMe(t *testing.T) int {
	t.Helper()
	var me gen.MeResponse
	f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: f.read}).JSON(t, &me)
	return int(me.Data.Unread.Notifications)
}

func types(l gen.NotificationList) []string {
	var out []string
	for _, n := range l.Data {
		out = append(out, string(n.Type))
	}
	return out
}

func TestListNotifications(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.list(t, "")
	if diff := cmp.Diff([]string{"message", "mention", "comment", "reaction", "follow"}, types(l)); diff != "" {
		t.Fatalf("types, newest first (-want +got):\n%s", diff)
	}
	if l.Meta.UnreadCount != 5 || f.unreadOnMe(t) != 5 {
		t.Errorf("unread_count = %d, /me %d, want 5 (the hidden mentions are not counted)", l.Meta.UnreadCount, f.unreadOnMe(t))
	}
	pub := apitest.PublicURL
	wantURLs := []string{
		fmt.Sprintf("%s/messages/%d#message-%d", pub, f.conversation, f.messageID),
		fmt.Sprintf("%s/@bob/posts/%d", pub, f.publicPost.ID),
		fmt.Sprintf("%s/@alice/posts/%d#comment-%d", pub, f.comment.PostID, f.comment.ID),
		fmt.Sprintf("%s/@alice/posts/%d", pub, f.comment.PostID),
		pub + "/@bob",
	}
	for i, n := range l.Data {
		if n.URL != wantURLs[i] || n.Actor.Handle != "bob" || n.Read {
			t.Errorf("notification %d (%s): url %s actor %s read %v, want %s by bob, unread", i, n.Type, n.URL, n.Actor.Handle, n.Read, wantURLs[i])
		}
	}
	if r := l.Data[3].Reaction; r == nil || *r != "love" {
		t.Errorf("reaction = %v, want love", r)
	}
	if c := l.Data[0].ConversationID; c == nil || *c != f.conversation || l.Data[0].PostID != nil {
		t.Errorf("message notification: conversation %v post %v", c, l.Data[0].PostID)
	}

	// Filters, and pages of every size give the same sequence.
	if got := types(f.list(t, "?type=reaction")); !slices.Equal(got, []string{"reaction"}) {
		t.Errorf("type=reaction: %v", got)
	}
	if got := f.list(t, "?type=mention&unread=true"); len(got.Data) != 1 || got.Data[0].PostID == nil || *got.Data[0].PostID != f.publicPost.ID {
		t.Errorf("type=mention: %+v", got.Data)
	}
	var walked []int64
	for _, p := range f.env.Walk(t, f.read, "/api/v1/notifications?per_page=2", 5) {
		walked = append(walked, apitest.IDs(t, p)...)
	}
	var all []int64
	for _, n := range l.Data {
		all = append(all, n.ID)
	}
	if diff := cmp.Diff(all, walked); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}

	// Following bob again makes his followers-only post visible, and with it the mention.
	if _, _, err := follows.NewStore(f.env.DB).Toggle(context.Background(), f.alice, "bob"); err != nil {
		t.Fatal(err)
	}
	l = f.list(t, "?type=mention")
	if len(l.Data) != 2 || *l.Data[0].PostID != f.hiddenPost.ID || l.Meta.UnreadCount != 6 || f.unreadOnMe(t) != 6 {
		t.Errorf("after following bob: %d mentions, unread %d, want 2 and 6", len(l.Data), l.Meta.UnreadCount)
	}
	for _, q := range []string{"?type=like", "?unread=yes", "?per_page=0", "?cursor=%21"} {
		resp := f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/notifications" + q, Token: f.read})
		if resp.Status != 400 {
			t.Errorf("%s: status %d", q, resp.Status)
		}
	}
	resp := f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/notifications?per_page=1&unread=true", Token: f.read})
	var page gen.NotificationList
	resp.JSON(t, &page)
	resp = f.env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/notifications?cursor=" + *page.Meta.NextCursor, Token: f.read})
	if resp.Status != 400 || resp.Problem(t).Code != "invalid_cursor" {
		t.Errorf("cursor reused without unread=true: %d %s", resp.Status, resp.Body)
	}
}

func TestMarkNotificationsRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if _, err := conversations.NewStore(f.env.DB).Send(context.Background(), f.alice, f.conversation, "Hi bob", nil); err != nil {
		t.Fatal(err)
	}
	l := f.list(t, "")
	mark := func(body string) gen.NotificationsReadResult {
		t.Helper()
		resp := f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/notifications/read", Token: f.write, Body: body})
		if resp.Status != 200 {
			t.Fatalf("mark %q: %d %s", body, resp.Status, resp.Body)
		}
		var r gen.NotificationsReadResponse
		resp.JSON(t, &r)
		return r.Data
	}
	// Up to the third newest: the three oldest become read.
	if got := mark(fmt.Sprintf(`{"up_to_id":%d}`, l.Data[2].ID)); got != (gen.NotificationsReadResult{Marked: 3, UnreadCount: 2}) {
		t.Errorf("mark up to the comment = %+v, want 3 marked, 2 unread", got)
	}
	u := f.list(t, "?unread=true")
	if diff := cmp.Diff([]string{"message", "mention"}, types(u)); diff != "" || u.Meta.UnreadCount != 2 || f.unreadOnMe(t) != 2 {
		t.Errorf("unread after marking (-want +got):\n%s unread_count %d", diff, u.Meta.UnreadCount)
	}
	if got := mark(fmt.Sprintf(`{"up_to_id":%d}`, l.Data[2].ID)); got != (gen.NotificationsReadResult{Marked: 0, UnreadCount: 2}) {
		t.Errorf("marking again = %+v, want idempotent", got)
	}
	// A new message arrives, then everything is marked read (empty body).
	if _, err := conversations.NewStore(f.env.DB).Send(context.Background(), f.bob, f.conversation, "Still there?", nil); err != nil {
		t.Fatal(err)
	}
	if n := f.list(t, "").Meta.UnreadCount; n != 3 || f.unreadOnMe(t) != 3 {
		t.Errorf("unread after a new message = %d, want 3", n)
	}
	resp := f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/notifications/read", Token: f.write})
	var r gen.NotificationsReadResponse
	resp.JSON(t, &r)
	if resp.Status != 200 || r.Data != (gen.NotificationsReadResult{Marked: 3, UnreadCount: 0}) {
		t.Errorf("mark all with no body: %d %s", resp.Status, resp.Body)
	}
	if got := mark(`{}`); got != (gen.NotificationsReadResult{}) || f.unreadOnMe(t) != 0 {
		t.Errorf("mark all again = %+v", got)
	}
	for _, n := range f.list(t, "").Data {
		if !n.Read {
			t.Errorf("notification %d still unread", n.ID)
		}
	}
	// Bob's notifications are his own: alice marking everything read left them alone.
	var bobUnread int
	if err := f.env.DB.Get(&bobUnread, `SELECT count(*) FROM notifications WHERE recipient_id = $1 AND read_at IS NULL`, f.bob); err != nil || bobUnread == 0 {
		t.Errorf("bob's unread notifications = %d (%v), want untouched", bobUnread, err)
	}
	tests := []struct {
		token, body string
		status      int
		code        string
	}{
		{f.read, `{}`, 403, "insufficient_scope"},
		{f.write, `{"up_to_id":0}`, 422, "validation_failed"},
		{f.write, `{"up_to_id":"7"}`, 422, "validation_failed"},
		{f.write, `{"all":true}`, 422, "validation_failed"},
		{f.write, `{`, 400, "invalid_json"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			resp := f.env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/notifications/read", Token: tt.token, Body: tt.body})
			if resp.Status != tt.status || resp.Problem(t).Code != tt.code {
				t.Errorf("%s: %d %s, want %d %s", tt.body, resp.Status, resp.Body, tt.status, tt.code)
			}
		})
	}
}
