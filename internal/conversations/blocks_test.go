package conversations_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/internal/apitest"
)

// ids reads the members' ids by handle.
func ids(t *testing.T, env *apitest.Env) map[string]int64 {
	t.Helper()
	rows := []struct {
		ID     int64  `db:"id"`
		Handle string `db:"handle"`
	}{}
	if err := env.DB.Select(&rows, `SELECT id, handle FROM members`); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Handle] = r.ID
	}
	return out
}

// blockAndSuspend makes the relations of these tests: bob blocks alice,
// alice blocks carol, sus is suspended.
func blockAndSuspend(t *testing.T, env *apitest.Env) {
	t.Helper()
	id := ids(t, env)
	env.DB.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2), ($2, $3)`, id["bob"], id["alice"], id["carol"])
	env.DB.MustExec(`UPDATE members m SET block_count = (SELECT count(*) FROM blocks b WHERE b.blocker_id = m.id)`)
	env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, id["sus"])
}

func count(t *testing.T, env *apitest.Env, q string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.Get(&n, q, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStartAcrossABlock: a participant who blocks the caller, or is
// suspended, is answered exactly as an unknown handle; a one-to-one
// conversation with a member the caller blocks is 403 cannot_message (after
// the validation of the body); a group may include them.
func TestStartAcrossABlock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob", "carol", "dave", "sus")
	blockAndSuspend(t, env)
	post := func(who, participants, body string) *apitest.Response {
		return env.Do(t, apitest.Request{Method: "POST", Path: "/api/v1/conversations", Token: a[who].write,
			Body: fmt.Sprintf(`{"participants":[%s],"body":%q}`, participants, body)})
	}
	for name, c := range map[string]struct{ who, participants, handle string }{
		"a member who blocks the caller": {"alice", `"dave","BOB"`, "BOB"},
		"a suspended member":             {"alice", `"sus"`, "sus"},
		"the caller's blocker, alone":    {"carol", `"alice"`, "alice"},
	} {
		t.Run(name, func(t *testing.T) {
			got := post(c.who, c.participants, "hi")
			want := post(c.who, strings.Replace(c.participants, `"`+c.handle+`"`, `"nobody"`, 1), "hi")
			// The same answer but for the handle each names and the request id.
			g, w := got.Problem(t), want.Problem(t)
			g.RequestID, w.RequestID = "", ""
			w.Detail = strings.Replace(w.Detail, `"nobody"`, `"`+c.handle+`"`, 1)
			for i := range w.Errors {
				w.Errors[i].Detail = strings.Replace(w.Errors[i].Detail, `"nobody"`, `"`+c.handle+`"`, 1)
			}
			if got.Status != 422 || got.Status != want.Status || !cmp.Equal(g, w) {
				t.Errorf("answered %d %s, an unknown handle %d %s", got.Status, got.Body, want.Status, want.Body)
			}
		})
	}
	t.Run("one-to-one with a member the caller blocks", func(t *testing.T) {
		resp := post("alice", `"carol"`, "hi")
		p := resp.Problem(t)
		if resp.Status != 403 || p.Code != "cannot_message" || p.Detail != "You cannot message this member." {
			t.Errorf("answered %d %s, want 403 cannot_message", resp.Status, resp.Body)
		}
		for _, body := range []string{"", " ", strings.Repeat("x", 2001)} {
			if resp := post("alice", `"carol"`, body); resp.Status != 422 || resp.Problem(t).Code != "validation_failed" {
				t.Errorf("with the body %.10q: %d %s, want 422 first", body, resp.Status, resp.Body)
			}
		}
	})
	if n := count(t, env, `SELECT count(*) FROM conversations`); n != 0 {
		t.Errorf("%d conversations created by refused starts", n)
	}
	start(t, env, a["alice"].write, `{"participants":["carol","dave"],"body":"a group"}`, 201)
}

// TestSendAcrossABlock: a one-to-one conversation whose members a block
// separates, either way, or whose other member is suspended refuses new
// messages with 403 cannot_message from both sides and writes nothing; it
// stays listed and readable; lifting the block lets messages through again.
func TestSendAcrossABlock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob", "carol", "dave", "sus")
	conv := map[string]int64{}
	for _, h := range []string{"bob", "carol", "dave", "sus"} {
		conv[h] = start(t, env, a["alice"].write, fmt.Sprintf(`{"participants":[%q],"body":"hi"}`, h), 201).ID
	}
	blockAndSuspend(t, env)
	messages := count(t, env, `SELECT count(*) FROM messages`)
	sendAs := func(who string, id int64, body string) *apitest.Response {
		return env.Do(t, apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/v1/conversations/%d/messages", id),
			Token: a[who].write, Body: fmt.Sprintf(`{"body":%q}`, body)})
	}
	for _, c := range []struct{ who, other string }{
		{"alice", "bob"}, {"bob", "alice"}, // bob blocks alice
		{"alice", "carol"}, {"carol", "alice"}, // alice blocks carol
		{"alice", "sus"}, // sus is suspended
	} {
		id := conv[c.other]
		if c.who != "alice" {
			id = conv[c.who]
		}
		resp := sendAs(c.who, id, "hello?")
		if p := resp.Problem(t); resp.Status != 403 || p.Code != "cannot_message" || p.Detail != "You cannot message this member." {
			t.Errorf("%s writes to %s: %d %s, want 403 cannot_message", c.who, c.other, resp.Status, resp.Body)
		}
		for _, body := range []string{" ", strings.Repeat("x", 2001)} {
			if resp := sendAs(c.who, id, body); resp.Status != 422 {
				t.Errorf("%s writes the body %.10q to %s: %d %s, want 422 first", c.who, body, c.other, resp.Status, resp.Body)
			}
		}
	}
	if resp := sendAs("dave", conv["bob"], "hello?"); resp.Status != 404 {
		t.Errorf("a non-participant writes: %d %s, want 404", resp.Status, resp.Body)
	}
	if n := count(t, env, `SELECT count(*) FROM messages`); n != messages {
		t.Errorf("refused messages wrote %d rows", n-messages)
	}
	send(t, env, a["alice"].write, conv["dave"], "still fine")
	if l := list(t, env, a["alice"].read); len(l.Data) != 4 {
		t.Errorf("alice lists %d conversations, want 4", len(l.Data))
	}
	for _, who := range []string{"alice", "bob"} {
		resp := env.Do(t, apitest.Request{Method: "GET", Path: fmt.Sprintf("/api/v1/conversations/%d/messages", conv["bob"]), Token: a[who].read})
		if resp.Status != 200 {
			t.Errorf("%s reads the conversation: %d %s", who, resp.Status, resp.Body)
		}
	}
	env.DB.MustExec(`DELETE FROM blocks WHERE blocker_id = $1`, ids(t, env)["bob"])
	env.DB.MustExec(`UPDATE members SET block_count = 0 WHERE handle = 'bob'`)
	send(t, env, a["alice"].write, conv["bob"], "unblocked")
	checkCounters(t, env.DB)
}

// TestGroupMessagesAcrossABlock: in a group, messages go on across blocks
// and mutes, and a participant who blocks or mutes the sender, or whom a
// block separates from them, is not notified.
func TestGroupMessagesAcrossABlock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a := newActors(t, env, "alice", "bob", "carol", "dave")
	id := ids(t, env)
	c := start(t, env, a["dave"].write, `{"participants":["alice","bob","carol"],"body":"welcome"}`, 201)
	env.DB.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)`, id["alice"], id["bob"])
	env.DB.MustExec(`UPDATE members SET block_count = 1 WHERE id = $1`, id["alice"])
	env.DB.MustExec(`INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2)`, id["carol"], id["bob"])
	send(t, env, a["bob"].write, c.ID, "from bob")
	send(t, env, a["alice"].write, c.ID, "from alice")
	notified := func(actor string) []string {
		var out []string
		if err := env.DB.Select(&out, `SELECT m.handle FROM notifications n JOIN members m ON m.id = n.recipient_id
			WHERE n.type = 'message' AND n.actor_id = $1 ORDER BY m.handle`, id[actor]); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := notified("bob"); fmt.Sprint(got) != "[dave]" {
		t.Errorf("bob's message notified %v, want dave alone (alice blocks bob, carol mutes him)", got)
	}
	if got := notified("alice"); fmt.Sprint(got) != "[carol dave]" {
		t.Errorf("alice's message notified %v, want carol and dave (alice blocks bob)", got)
	}
	checkCounters(t, env.DB)
}
