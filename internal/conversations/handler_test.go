package conversations_test

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/cursor"
)

type actor struct{ read, write string }

func newActors(t *testing.T, env *apitest.Env, handles ...string) map[string]actor {
	t.Helper()
	out := map[string]actor{}
	for _, h := range handles {
		env.Member(t, h)
		out[h] = actor{env.Token(t, h, auth.ScopeRead), env.Token(t, h, auth.ScopeWrite)}
	}
	return out
}

func start(t *testing.T, env *apitest.Env, tok, body string, wantStatus int) gen.Conversation {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/conversations", Token: tok, Body: body})
	if resp.Status != wantStatus {
		t.Fatalf("start %s: %d %s, want %d", body, resp.Status, resp.Body, wantStatus)
	}
	var c gen.ConversationResponse
	resp.JSON(t, &c)
	if loc := resp.Header.Get("Location"); wantStatus == 201 && loc != fmt.Sprintf("%s/api/v1/conversations/%d", apitest.PublicURL, c.Data.ID) {
		t.Errorf("Location = %q", loc)
	}
	return c.Data
}

func send(t *testing.T, env *apitest.Env, tok string, id int64, body string) gen.Message {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/conversations/%d/messages", id), Token: tok,
		Body: fmt.Sprintf(`{"body":%q}`, body)})
	if resp.Status != 201 {
		t.Fatalf("send: %d %s", resp.Status, resp.Body)
	}
	var m gen.MessageResponse
	resp.JSON(t, &m)
	want := fmt.Sprintf("%s/api/v1/conversations/%d/messages/%d", apitest.PublicURL, id, m.Data.ID)
	if loc := resp.Header.Get("Location"); loc != want {
		t.Errorf("Location = %q, want %q", loc, want)
	}
	return m.Data
}

func list(t *testing.T, env *apitest.Env, tok string) gen.ConversationList {
	t.Helper()
	resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/conversations", Token: tok})
	if resp.Status != 200 {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	var l gen.ConversationList
	resp.JSON(t, &l)
	return l
}

func unreadOnMe(t *testing.T, env *apitest.Env, tok string) gen.UnreadCounts {
	t.Helper()
	var me gen.MeResponse
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok}).JSON(t, &me)
	return me.Data.Unread
}

// byID is the conversation id of l (zero when l does not list it).
func byID(l gen.ConversationList, id int64) gen.Conversation {
	for _, c := range l.Data {
		if c.ID == id {
			return c
		}
	}
	return gen.Conversation{}
}

func TestConversationFlow(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob", "carol")
	c := start(t, env, a["alice"].write, `{"participants":["Bob"],"body":"Hike on Saturday?"}`, 201)
	if len(c.Participants) != 1 || c.Participants[0].Handle != "bob" || c.UnreadCount != 0 ||
		c.LastMessage == nil || c.LastMessage.Body != "Hike on Saturday?" || c.LastMessage.Sender.Handle != "alice" {
		t.Fatalf("started = %+v", c)
	}
	if c.URL != fmt.Sprintf("%s/messages/%d", apitest.PublicURL, c.ID) {
		t.Errorf("url = %s", c.URL)
	}
	// The one-to-one conversation is reused, from either side.
	if again := start(t, env, a["bob"].write, `{"participants":["alice","bob"],"body":"Yes!"}`, 200); again.ID != c.ID {
		t.Errorf("bob's start = conversation %d, want the existing %d", again.ID, c.ID)
	}
	group := start(t, env, a["carol"].write, `{"participants":["alice","bob"],"body":"Group hello"}`, 201)

	// alice has one unread message in each: bob's "Yes!" and carol's hello.
	l := list(t, env, a["alice"].read)
	if got := []int64{l.Data[0].ID, l.Data[1].ID}; !cmp.Equal(got, []int64{group.ID, c.ID}) {
		t.Errorf("alice's conversations = %v, want newest activity first %v", got, []int64{group.ID, c.ID})
	}
	if l.Meta.UnreadCount != 2 || l.Data[0].UnreadCount != 1 || l.Data[1].UnreadCount != 1 || len(l.Data[0].Participants) != 2 {
		t.Errorf("alice: unread_count %d, per conversation %d/%d, group participants %d", l.Meta.UnreadCount,
			l.Data[0].UnreadCount, l.Data[1].UnreadCount, len(l.Data[0].Participants))
	}
	// The other participants by id (bob joined before carol, who started
	// it), never alice herself.
	if ps := l.Data[0].Participants; len(ps) == 2 && (ps[0].Handle != "bob" || ps[1].Handle != "carol" || ps[0].ID >= ps[1].ID) {
		t.Errorf("alice's group participants = %+v, want bob then carol, by id", ps)
	}
	if u := unreadOnMe(t, env, a["alice"].read); u.Conversations != 2 || u.Notifications != 2 {
		t.Errorf("/me unread = %+v, want 2 conversations, 2 notifications", u)
	}
	// Three more from bob: exact counts; then alice replies, which reads it for her.
	for i := range 3 {
		send(t, env, a["bob"].write, c.ID, fmt.Sprintf("msg %d", i))
	}
	// Activity within one second ties and is ordered by id
	// (TestOrderWithinOneSecond): find the conversation by its id.
	l = list(t, env, a["alice"].read)
	if got := byID(l, c.ID); got.UnreadCount != 4 || l.Meta.UnreadCount != 2 || got.LastMessage == nil || got.LastMessage.Body != "msg 2" {
		t.Errorf("after 3 messages: unread %d total %d", got.UnreadCount, l.Meta.UnreadCount)
	}
	if u := unreadOnMe(t, env, a["alice"].read); u.Notifications != 5 {
		t.Errorf("/me unread notifications = %d, want 5", u.Notifications)
	}
	if m := send(t, env, a["alice"].write, c.ID, "See you"); m.Sender.Handle != "alice" || m.Body != "See you" || m.ConversationID != c.ID {
		t.Errorf("sent = %+v", m)
	}
	if l = list(t, env, a["alice"].read); byID(l, c.ID).UnreadCount != 0 || l.Meta.UnreadCount != 1 {
		t.Errorf("after replying: unread %d, total %d, want 0 and 1", byID(l, c.ID).UnreadCount, l.Meta.UnreadCount)
	}
	if l = list(t, env, a["bob"].read); byID(l, c.ID).UnreadCount != 1 || l.Meta.UnreadCount != 2 {
		t.Errorf("bob: unread %d total %d", byID(l, c.ID).UnreadCount, l.Meta.UnreadCount)
	}
	// Marking the group read clears its count and its message notifications.
	resp := env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/conversations/%d/read", group.ID), Token: a["alice"].write})
	var read gen.ConversationResponse
	resp.JSON(t, &read)
	if resp.Status != 200 || read.Data.UnreadCount != 0 || read.Data.ID != group.ID {
		t.Errorf("mark read: %d %s", resp.Status, resp.Body)
	}
	if u := unreadOnMe(t, env, a["alice"].read); u.Conversations != 0 || u.Notifications != 4 {
		t.Errorf("/me unread after marking = %+v, want 0 conversations, 4 notifications", u)
	}
	if l := list(t, env, a["alice"].read); l.Meta.UnreadCount != 0 {
		t.Errorf("unread_count = %d, want 0", l.Meta.UnreadCount)
	}
	// A page past the last conversation is empty and still counts the unread ones.
	past := cursor.Encode(cursor.Fingerprint("conversations", nil), cursor.Position{Time: time.Unix(0, 0), ID: 1})
	resp = env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/conversations?cursor=" + url.QueryEscape(past), Token: a["bob"].read})
	var empty gen.ConversationList
	resp.JSON(t, &empty)
	if resp.Status != 200 || len(empty.Data) != 0 || empty.Meta.UnreadCount != 2 || empty.Meta.HasMore {
		t.Errorf("page past the end: %d %s, want no conversations and unread_count 2", resp.Status, resp.Body)
	}

	// Messages, newest first, in pages of two.
	var bodies []string
	for _, p := range env.Walk(t, a["bob"].read, fmt.Sprintf("/api/v1/conversations/%d/messages?per_page=2", c.ID), 10) {
		var ml gen.MessageList
		if err := jsonUnmarshal(p, &ml); err != nil {
			t.Fatal(err)
		}
		for _, m := range ml.Data {
			bodies = append(bodies, m.Sender.Handle+": "+m.Body)
			if m.URL != fmt.Sprintf("%s/messages/%d#message-%d", apitest.PublicURL, c.ID, m.ID) {
				t.Errorf("message url %s", m.URL)
			}
		}
	}
	want := []string{"alice: See you", "bob: msg 2", "bob: msg 1", "bob: msg 0", "bob: Yes!", "alice: Hike on Saturday?"}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestConversationValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob")
	c := start(t, env, a["alice"].write, `{"participants":["bob"],"body":"hi"}`, 201)
	tests := []struct {
		method, path, body, token string
		status                    int
		code, pointer             string
	}{
		{"POST", "/api/v1/conversations", `{"participants":["nobody"],"body":"x"}`, a["alice"].write, 422, "validation_failed", "/participants/0"},
		{"POST", "/api/v1/conversations", `{"participants":["alice"],"body":"x"}`, a["alice"].write, 422, "validation_failed", "/participants"},
		{"POST", "/api/v1/conversations", `{"participants":[],"body":"x"}`, a["alice"].write, 422, "validation_failed", "/participants"},
		{"POST", "/api/v1/conversations", `{"participants":["bob"],"body":""}`, a["alice"].write, 422, "validation_failed", "/body"},
		{"POST", "/api/v1/conversations", `{"participants":["bob"],"body":"x"}`, a["alice"].read, 403, "insufficient_scope", ""},
		{"POST", fmt.Sprintf("/api/v1/conversations/%d/messages", c.ID), `{"body":""}`, a["alice"].write, 422, "validation_failed", "/body"},
		{"POST", fmt.Sprintf("/api/v1/conversations/%d/messages", c.ID), `{"body":"x"}`, a["alice"].read, 403, "insufficient_scope", ""},
		{"GET", "/api/v1/conversations/abc/messages", "", a["alice"].read, 400, "invalid_parameter", ""},
		{"GET", "/api/v1/conversations?per_page=51", "", a["alice"].read, 400, "invalid_parameter", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			resp := env.Do(t, apitest.Request{Method: tt.method, Path: tt.path, Token: tt.token, Body: tt.body})
			p := resp.Problem(t)
			if resp.Status != tt.status || p.Code != tt.code {
				t.Errorf("%s %s %s: %d %s, want %d %s", tt.method, tt.path, tt.body, resp.Status, resp.Body, tt.status, tt.code)
				return
			}
			if tt.pointer != "" && (len(p.Errors) == 0 || p.Errors[0].Pointer == nil || *p.Errors[0].Pointer != tt.pointer) {
				t.Errorf("%s: errors %s, want pointer %s", tt.body, resp.Body, tt.pointer)
			}
		})
	}
}

// TestConversationPrivacy: a non-participant can neither list, read, post
// to nor mark a conversation, and gets exactly the answer a missing id gets.
func TestConversationPrivacy(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob", "eve")
	c := start(t, env, a["alice"].write, `{"participants":["bob"],"body":"secret plans"}`, 201)
	if l := list(t, env, a["eve"].read); len(l.Data) != 0 || l.Meta.UnreadCount != 0 {
		t.Errorf("eve lists %d conversations (unread %d), want none", len(l.Data), l.Meta.UnreadCount)
	}
	missing := c.ID + 1000
	requests := []struct {
		name, method, path, body string
	}{
		{"read messages", "GET", "/api/v1/conversations/%d/messages", ""},
		{"read messages, bad per_page", "GET", "/api/v1/conversations/%d/messages?per_page=0", ""},
		{"post", "POST", "/api/v1/conversations/%d/messages", `{"body":"let me in"}`},
		{"post, invalid body", "POST", "/api/v1/conversations/%d/messages", `{"body":""}`},
		{"post, unknown field", "POST", "/api/v1/conversations/%d/messages", `{"text":"x"}`},
		{"mark read", "POST", "/api/v1/conversations/%d/read", ""},
	}
	rid := regexp.MustCompile(`"request_id":"[^"]*"`)
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			var bodies [][]byte
			for _, id := range []int64{c.ID, missing} {
				resp := env.Do(t, apitest.Request{Method: r.method, Path: fmt.Sprintf(r.path, id), Token: a["eve"].write, Body: r.body})
				if resp.Status != 404 || resp.Problem(t).Code != "not_found" {
					t.Fatalf("eve %s %d: %d %s, want 404", r.method, id, resp.Status, resp.Body)
				}
				b := rid.ReplaceAll(resp.Body, nil)
				bodies = append(bodies, bytes.ReplaceAll(b, []byte(fmt.Sprintf("/conversations/%d/", id)), []byte("/conversations/ID/")))
			}
			if !bytes.Equal(bodies[0], bodies[1]) {
				t.Errorf("hidden and missing differ:\n%s\n%s", bodies[0], bodies[1])
			}
		})
	}
	// Nothing eve tried reached the conversation.
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM messages WHERE conversation_id = $1`, c.ID); err != nil || n != 1 {
		t.Errorf("%d messages (%v), want 1", n, err)
	}
	l := list(t, env, a["bob"].read)
	if len(l.Data) != 1 || l.Data[0].UnreadCount != 1 {
		t.Errorf("bob's view changed: %+v", l.Data)
	}
}
