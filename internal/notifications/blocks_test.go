package notifications_test

import (
	"fmt"
	"testing"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

// call sends a request as the member holding tok and fails the test on an
// answer outside the spec.
func call(t *testing.T, env *apitest.Env, tok, method, path, body string) *apitest.Response {
	t.Helper()
	return env.Do(t, apitest.Request{Method: method, Path: "/api/v1" + path, Token: tok, Body: body})
}

func ok(t *testing.T, resp *apitest.Response, what string) {
	t.Helper()
	if resp.Status != 200 && resp.Status != 201 {
		t.Fatalf("%s: %d %s", what, resp.Status, resp.Body)
	}
}

// TestHiddenActorsNotifications: the notifications of an actor the
// recipient may not see (a block either way, the actor's suspension) or
// mutes leave the list, its unread count, /me's and mark-all-read; lifting
// a mute or a suspension brings them back, unread.
func TestHiddenActorsNotifications(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		apply, lift func(t *testing.T, f fixture, bob string)
	}{
		"alice mutes bob": {
			apply: func(t *testing.T, f fixture, _ string) {
				ok(t, call(t, f.env, f.write, "POST", "/users/bob/mute", ""), "mute")
			},
			lift: func(t *testing.T, f fixture, _ string) {
				ok(t, call(t, f.env, f.write, "DELETE", "/users/bob/mute", ""), "unmute")
			},
		},
		"bob suspended": {
			apply: func(t *testing.T, f fixture, _ string) {
				f.env.DB.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, f.bob)
			},
			lift: func(t *testing.T, f fixture, _ string) {
				f.env.DB.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, f.bob)
			},
		},
		"alice blocks bob": {
			apply: func(t *testing.T, f fixture, _ string) {
				ok(t, call(t, f.env, f.write, "POST", "/users/bob/block", ""), "block")
			},
		},
		"bob blocks alice": {
			apply: func(t *testing.T, f fixture, bob string) {
				ok(t, call(t, f.env, bob, "POST", "/users/alice/block", ""), "block")
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			bob := f.env.Token(t, "bob", auth.ScopeWrite)
			carol := f.env.Token(t, "carol", auth.ScopeWrite)
			ok(t, call(t, f.env, carol, "POST", "/users/alice/follow", ""), "carol follows alice")
			c.apply(t, f, bob)
			l := f.list(t, "")
			if len(l.Data) != 1 || l.Data[0].Actor.Handle != "carol" || l.Meta.UnreadCount != 1 || f.unreadOnMe(t) != 1 {
				t.Errorf("list %v (unread %d, /me %d), want carol's follow alone, unread 1", types(l), l.Meta.UnreadCount, f.unreadOnMe(t))
			}
			var r gen.NotificationsReadResponse
			resp := call(t, f.env, f.write, "POST", "/notifications/read", "{}")
			resp.JSON(t, &r)
			if r.Data != (gen.NotificationsReadResult{Marked: 1, UnreadCount: 0}) {
				t.Errorf("mark all read = %+v, want carol's one marked", r.Data)
			}
			if c.lift == nil {
				return
			}
			c.lift(t, f, bob)
			l = f.list(t, "")
			if len(l.Data) != 6 || l.Meta.UnreadCount != 5 || f.unreadOnMe(t) != 5 {
				t.Errorf("after lifting: list %v (unread %d, /me %d), want bob's five back, unread", types(l), l.Meta.UnreadCount, f.unreadOnMe(t))
			}
		})
	}
}

// TestNoNotificationsAcrossABlockOrMute: what bob does creates no
// notification for alice while she mutes or blocks him, he blocks her or
// she is suspended (follow, reaction, mention, group message); a mention
// across a block or of a suspended member has no effect at all, as one of
// an unknown handle. Others in the same conversation are still notified.
func TestNoNotificationsAcrossABlockOrMute(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		setup       string // SQL over $1 alice and $2 bob
		mentionKept bool
	}{
		"alice mutes bob":  {setup: `INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2)`, mentionKept: true},
		"alice blocks bob": {setup: `INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)`},
		"bob blocks alice": {setup: `INSERT INTO blocks (blocker_id, blocked_id) VALUES ($2, $1)`},
		"alice suspended":  {setup: `UPDATE members SET suspended_at = now() WHERE id = $1 AND $2::bigint <> $1`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t)
			alice, bob := env.Member(t, "alice"), env.Member(t, "bob")
			carolID := env.Member(t, "carol")
			tok := map[string]string{}
			for _, h := range []string{"alice", "bob", "carol"} {
				tok[h] = env.Token(t, h, auth.ScopeWrite)
			}
			var post gen.PostResponse
			resp := call(t, env, tok["alice"], "POST", "/posts", `{"body":"Hello","visibility":"public"}`)
			ok(t, resp, "alice posts")
			resp.JSON(t, &post)
			var conv gen.ConversationResponse
			resp = call(t, env, tok["carol"], "POST", "/conversations", `{"participants":["alice","bob"],"body":"Hi both"}`)
			ok(t, resp, "carol starts a group")
			resp.JSON(t, &conv)
			env.DB.MustExec(c.setup, alice, bob)
			env.DB.MustExec(`UPDATE members m SET block_count = (SELECT count(*) FROM blocks b WHERE b.blocker_id = m.id)`)

			call(t, env, tok["bob"], "POST", "/users/alice/follow", "")
			call(t, env, tok["bob"], "POST", fmt.Sprintf("/posts/%d/react", post.Data.ID), `{"type":"like"}`)
			ok(t, call(t, env, tok["bob"], "POST", fmt.Sprintf("/conversations/%d/messages", conv.Data.ID), `{"body":"Hello all"}`), "bob writes to the group")
			var mention, unknown gen.PostResponse
			resp = call(t, env, tok["bob"], "POST", "/posts", `{"body":"Hi @alice","visibility":"public"}`)
			ok(t, resp, "bob mentions alice")
			resp.JSON(t, &mention)
			resp = call(t, env, tok["bob"], "POST", "/posts", `{"body":"Hi @nobody","visibility":"public"}`)
			ok(t, resp, "bob mentions nobody")
			resp.JSON(t, &unknown)

			var notes, stored, carols int
			env.DB.Get(&notes, `SELECT count(*) FROM notifications WHERE recipient_id = $1 AND actor_id = $2`, alice, bob)
			env.DB.Get(&stored, `SELECT count(*) FROM post_mentions WHERE post_id = $1`, mention.Data.ID)
			env.DB.Get(&carols, `SELECT count(*) FROM notifications WHERE recipient_id = $1 AND actor_id = $2 AND type = 'message'`, carolID, bob)
			if notes != 0 {
				t.Errorf("alice got %d notifications by bob, want none", notes)
			}
			if carols != 1 {
				t.Errorf("carol got %d message notifications by bob, want 1", carols)
			}
			if c.mentionKept {
				if stored != 1 || len(mention.Data.Mentions) != 1 {
					t.Errorf("mention of a muting member: %d stored, %v answered, want it kept", stored, mention.Data.Mentions)
				}
			} else if stored != 0 || len(mention.Data.Mentions) != len(unknown.Data.Mentions) {
				t.Errorf("mention across the block: %d stored, %v answered, want none, as for an unknown handle (%v)", stored, mention.Data.Mentions, unknown.Data.Mentions)
			}
		})
	}
}
