package polls_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/polls"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/relations"
)

// TestCloseNotifiesOnce: a closed poll's author and voters are notified
// once, dated when the poll closed, whatever number of closers run at once;
// an open poll, or one that never closes, is left alone; the rules of every
// notification hold (a voter who muted or was blocked by the author, or is
// suspended, is not told; a suspended author is not told, nor are the
// voters of their poll), and a poll is announced even when nobody is told.
func TestCloseNotifiesOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "dave", "erin", "frank", "sus")
	s := posts.NewStore(db, nil)
	newPoll := func(author string, in time.Duration) int64 {
		t.Helper()
		p, err := s.Create(ctx, ids[author], posts.NewPost{Body: "poll by " + author,
			Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}, Multiple: true, ExpiresIn: in}})
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	voteIn := func(postID int64, voter string, choices ...int) {
		t.Helper()
		if err := posts.VotePollTx(ctx, db, postID, ids[voter], choices, nil); err != nil {
			t.Fatalf("%s votes in %d: %v", voter, postID, err)
		}
	}
	closed := newPoll("alice", time.Hour)
	for _, v := range []string{"bob", "carol", "dave", "erin", "sus", "alice"} {
		voteIn(closed, v, 0, 1) // two rows each: one notification each
	}
	open := newPoll("alice", time.Hour)
	voteIn(open, "bob", 0)
	never, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "forever", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	silenced := newPoll("frank", time.Hour)
	voteIn(silenced, "bob", 1)

	rs := relations.NewStore(db)
	for _, r := range []struct {
		actor, target string
		kind          relations.Kind
	}{{"carol", "alice", relations.Mute}, {"alice", "dave", relations.Block}} {
		if _, err := rs.Set(ctx, ids[r.actor], r.target, r.kind, true); err != nil {
			t.Fatal(err)
		}
	}
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE id = ANY($1)`, []int64{ids["sus"], ids["frank"]})
	closedAt := time.Now().Add(-time.Minute).Truncate(time.Second).UTC()
	db.MustExec(`UPDATE polls SET expires_at = $1 WHERE post_id IN ($2, $3)`, closedAt, closed, silenced)

	// Closers of several instances at once, each in small batches.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var announced, notified int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, k, err := polls.Close(ctx, db, 1)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				announced, notified = announced+n, notified+k
				mu.Unlock()
				if n == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	if announced != 2 || notified != 3 {
		t.Errorf("closers announced %d polls with %d notifications, want 2 with 3", announced, notified)
	}
	type note struct {
		Recipient, Actor, Post int64
		At                     time.Time
	}
	var got []note
	if err := db.Select(&got, `SELECT recipient_id AS recipient, actor_id AS actor, post_id AS post, created_at AS at
	                             FROM notifications WHERE type = 'poll' ORDER BY recipient_id`); err != nil {
		t.Fatal(err)
	}
	// alice (the author, and a voter: told once), bob and erin; not carol
	// (mutes alice), dave (blocked by her) nor sus (suspended).
	want := []note{
		{ids["alice"], ids["alice"], closed, closedAt},
		{ids["bob"], ids["alice"], closed, closedAt},
		{ids["erin"], ids["alice"], closed, closedAt},
	}
	for i := range got {
		got[i].At = got[i].At.UTC()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("poll notifications (-want +got):\n%s", diff)
	}
	var pending []int64
	if err := db.Select(&pending, `SELECT post_id FROM polls WHERE closed_notified_at IS NULL ORDER BY post_id`); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{open, never.ID}, pending); diff != "" {
		t.Errorf("polls not announced (-want +got):\n%s", diff)
	}
	if n, k, err := polls.Close(ctx, db, 100); n != 0 || k != 0 || err != nil {
		t.Errorf("Close again = %d, %d, %v, want nothing", n, k, err)
	}
}

// TestClosedPollNotificationAPI: the notifications list shows a `poll`
// notification with its post as subject and the author as actor, to the
// author and to a voter, as openapi.yaml describes it; a vote after the
// close is refused.
func TestClosedPollNotificationAPI(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	env.Member(t, "bob")
	alice, bob := env.Token(t, "alice", auth.ScopeWrite), env.Token(t, "bob", auth.ScopeWrite)
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/posts", Token: alice,
		Body: `{"body":"vote!","poll":{"question":"Which?","options":["a","b"],"expires_in":300}}`})
	var created gen.PostResponse
	resp.JSON(t, &created)
	votes := fmt.Sprintf("/api/v1/posts/%d/poll/votes", created.Data.ID)
	if resp := env.Do(t, apitest.Request{Method: "POST", Path: votes, Token: bob, Body: `{"choices":[1]}`}); resp.Status != 200 {
		t.Fatalf("vote: %d %s", resp.Status, resp.Body)
	}
	env.DB.MustExec(`UPDATE polls SET expires_at = now() - interval '1 second' WHERE post_id = $1`, created.Data.ID)
	if n, k, err := polls.Close(context.Background(), env.DB, 10); n != 1 || k != 2 || err != nil {
		t.Fatalf("Close = %d, %d, %v, want 1 poll, 2 notifications", n, k, err)
	}
	for _, tok := range []string{alice, bob} {
		var list gen.NotificationList
		env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/notifications?type=poll", Token: tok}).JSON(t, &list)
		if len(list.Data) != 1 {
			t.Fatalf("%d poll notifications, want 1", len(list.Data))
		}
		n := list.Data[0]
		if n.Type != gen.NotificationTypePoll || n.Actor.Handle != "alice" || n.PostID == nil || *n.PostID != created.Data.ID ||
			n.URL != created.Data.URL || n.Read || list.Meta.UnreadCount != 1 {
			t.Errorf("notification %+v (unread %d)", n, list.Meta.UnreadCount)
		}
	}
	resp = env.Do(t, apitest.Request{Method: "POST", Path: votes, Token: alice, Body: `{"choices":[0]}`})
	if p := resp.Problem(t); resp.Status != 422 || len(p.Errors) != 1 || p.Errors[0].Code != "poll_closed" {
		t.Errorf("vote after the close: %d %s", resp.Status, resp.Body)
	}
}
