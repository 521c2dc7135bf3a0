package conversations_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/conversations"
)

// inOrder fails unless the (time, id) pairs, as a client reads them from a
// list, are in the list's promised order: time descending, then id
// descending.
func inOrder(t *testing.T, what string, times []apitime.Time, ids []int64) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		a, b := times[i-1].Time, times[i].Time
		if a.Before(b) || (a.Equal(b) && ids[i-1] < ids[i]) {
			t.Errorf("%s: (%s, %d) before (%s, %d): not (time, id) descending", what, times[i-1], ids[i-1], times[i], ids[i])
		}
	}
}

// TestOrderWithinOneSecond holds the lists of conversations and messages to
// the order a client can check from what it is shown: times in whole
// seconds, then ids. Two conversations active within one second, and two
// messages sent within one, come by id descending whatever their sub-second
// times, across pages too.
func TestOrderWithinOneSecond(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	who := newActors(t, env, "alice", "bob", "carol")
	ctx := context.Background()
	var alice int64
	if err := env.DB.GetContext(ctx, &alice, `SELECT id FROM members WHERE handle = 'alice'`); err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	at := func(ms int) *time.Time { v := base.Add(time.Duration(ms) * time.Millisecond); return &v }
	withBob, err := conversations.StartTx(ctx, env.DB, alice, []string{"bob"}, "", at(0))
	if err != nil {
		t.Fatal(err)
	}
	withCarol, err := conversations.StartTx(ctx, env.DB, alice, []string{"carol"}, "", at(0))
	if err != nil {
		t.Fatal(err)
	}
	// The older conversation is active later within the second, and its
	// later message is sent earlier within it.
	first, err := conversations.SendTx(ctx, env.DB, alice, withBob.ID, "first", at(900))
	if err != nil {
		t.Fatal(err)
	}
	second, err := conversations.SendTx(ctx, env.DB, alice, withBob.ID, "second", at(200))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conversations.SendTx(ctx, env.DB, alice, withCarol.ID, "hi", at(100)); err != nil {
		t.Fatal(err)
	}

	l := list(t, env, who["alice"].read)
	var times []apitime.Time
	var got []int64
	for _, c := range l.Data {
		times, got = append(times, c.UpdatedAt), append(got, c.ID)
	}
	inOrder(t, "conversations", times, got)
	if len(got) != 2 || got[0] != withCarol.ID || got[1] != withBob.ID {
		t.Errorf("conversations = %v, want %d then %d (same second, id descending)", got, withCarol.ID, withBob.ID)
	}
	for _, c := range l.Data {
		if c.ID == withBob.ID && (c.LastMessage == nil || c.LastMessage.ID != second.ID) {
			t.Errorf("last message of %d = %+v, want %d (same second, higher id)", c.ID, c.LastMessage, second.ID)
		}
		if !c.UpdatedAt.Equal(base) {
			t.Errorf("updated_at of %d = %s, want %s", c.ID, c.UpdatedAt, apitime.New(base))
		}
	}

	// Page by page, the cursor of the tie keeps the order.
	var paged []int64
	path := "/api/v1/conversations?per_page=1"
	for path != "" {
		var page gen.ConversationList
		env.Do(t, apitestGet(path, who["alice"].read)).JSON(t, &page)
		for _, c := range page.Data {
			paged = append(paged, c.ID)
		}
		path = ""
		if page.Meta.NextCursor != nil {
			path = "/api/v1/conversations?per_page=1&cursor=" + url.QueryEscape(*page.Meta.NextCursor)
		}
	}
	if fmt.Sprint(paged) != fmt.Sprint(got) {
		t.Errorf("conversations page by page = %v, want %v", paged, got)
	}

	var ml gen.MessageList
	env.Do(t, apitestGet(fmt.Sprintf("/api/v1/conversations/%d/messages", withBob.ID), who["alice"].read)).JSON(t, &ml)
	times, got = nil, nil
	for _, m := range ml.Data {
		times, got = append(times, m.CreatedAt), append(got, m.ID)
	}
	inOrder(t, "messages", times, got)
	if len(got) != 2 || got[0] != second.ID || got[1] != first.ID {
		t.Errorf("messages = %v, want %d then %d (same second, id descending)", got, second.ID, first.ID)
	}
}

func apitestGet(path, tok string) apitest.Request {
	return apitest.Request{Method: "GET", Path: path, Token: tok}
}
