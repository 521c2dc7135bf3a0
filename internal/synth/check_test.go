package synth_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/seed"
	"github.com/socialnet/socialapi/internal/synth"
	"github.com/socialnet/socialapi/internal/visibility"
)

// checkDataset asserts what the API relies on: counters equal their rows,
// nobody acted on a post they may not see, nobody is notified of their own
// action, and the derived tokens authenticate as their members.
func checkDataset(t *testing.T, db *sql.DB, seedValue int64) {
	t.Helper()
	ctx := context.Background()
	x := sqlx.NewDb(db, "postgres")
	ms, err := seed.CheckCounters(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		t.Errorf("counter mismatch: %v", m)
	}
	for name, q := range map[string]string{
		"reactions on invisible posts": `SELECT count(*) FROM reactions r JOIN posts p ON p.id = r.post_id WHERE NOT ` + visibility.Post("p", "r.member_id"),
		"comments on invisible posts":  `SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id WHERE NOT ` + visibility.Post("p", "c.author_id"),
		"votes on invisible polls": `SELECT count(*) FROM poll_votes v JOIN polls pl ON pl.id = v.poll_id JOIN posts p ON p.id = pl.post_id
			WHERE NOT ` + visibility.Post("p", "v.member_id"),
		"self notifications":         `SELECT count(*) FROM notifications WHERE actor_id = recipient_id`,
		"invisible notified posts":   `SELECT count(*) FROM notifications n JOIN posts p ON p.id = n.post_id WHERE NOT ` + visibility.Post("p", "n.recipient_id"),
		"comments before their post": `SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id WHERE c.created_at < p.created_at`,
		"replies before their parent": `SELECT count(*) FROM comments c JOIN comments pc ON pc.id = c.parent_id WHERE c.created_at < pc.created_at
			OR c.depth <> pc.depth + 1`,
		"posts after their author's last use": `SELECT count(*) FROM posts p
			WHERE p.created_at > (SELECT max(u.last_used_at) FROM api_tokens t JOIN api_token_uses u ON u.token_id = t.id WHERE t.member_id = p.author_id)`,
		"tokens without a last use": `SELECT count(*) FROM api_tokens t WHERE NOT EXISTS (SELECT 1 FROM api_token_uses u WHERE u.token_id = t.id)`,
		"dormant timelines with rows or a horizon below infinity": `SELECT count(*) FROM timeline_dormant d
			WHERE EXISTS (SELECT 1 FROM timeline t WHERE t.member_id = d.member_id)
			   OR NOT EXISTS (SELECT 1 FROM timeline_horizons h WHERE h.member_id = d.member_id AND NOT isfinite(h.created_at))`,
		"idle members not dormant": `SELECT count(*) FROM members m
			WHERE NOT EXISTS (SELECT 1 FROM timeline_dormant d WHERE d.member_id = m.id)
			  AND (SELECT max(u.last_used_at) FROM api_tokens t JOIN api_token_uses u ON u.token_id = t.id WHERE t.member_id = m.id) < '2026-03-01 12:00:00+00'::timestamptz - interval '14 days'`,
		"posts in the future": `SELECT count(*) FROM posts WHERE created_at > '2026-03-01 12:00:00+00'`,
		// The server's closer would announce them all at its start.
		"closed polls not announced": `SELECT count(*) FROM polls WHERE expires_at <= '2026-03-01 12:00:00+00' AND closed_notified_at IS NULL`,
		"open polls announced":       `SELECT count(*) FROM polls WHERE expires_at > '2026-03-01 12:00:00+00' AND closed_notified_at IS NOT NULL`,
		// post_tags is filled by the posts insert trigger during the COPY.
		"post_tags out of step with posts.tags": `SELECT count(*) FROM (
			(SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at FROM posts p, unnest(p.tags) t(tag)
			 EXCEPT ALL SELECT post_id, tag, author_id, visibility, created_at FROM post_tags)
			UNION ALL
			(SELECT post_id, tag, author_id, visibility, created_at FROM post_tags
			 EXCEPT ALL SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at FROM posts p, unnest(p.tags) t(tag))) d`,
	} {
		t.Run(name, func(t *testing.T) {
			var n int
			if err := x.GetContext(ctx, &n, q); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n != 0 {
				t.Errorf("%s: %d rows, want 0", name, n)
			}
		})
	}
	var share float64
	if err := x.GetContext(ctx, &share, `SELECT 1 - (SELECT count(*) FROM timeline_dormant)::float8 / (SELECT count(*) FROM members)`); err != nil {
		t.Fatal(err)
	}
	if math.Abs(share-synth.Default.ActiveShare) > 0.02 {
		t.Errorf("%.3f of members are active (not dormant), want %.2f", share, synth.Default.ActiveShare)
	}
	var empty []string
	if err := x.SelectContext(ctx, &empty, `
		SELECT t FROM unnest(ARRAY['members','follows','posts','post_tags','post_media','polls','poll_votes','comments','reactions',
		       'conversations','messages','notifications','listings','jobs']) t
		 WHERE (xpath('/row/c/text()', query_to_xml('SELECT count(*) AS c FROM ' || t, false, true, '')))[1]::text::int = 0`); err != nil {
		t.Fatal(err)
	}
	if len(empty) > 0 {
		t.Errorf("empty tables: %v", empty)
	}
	st := auth.NewStore(x, nil)
	for _, id := range []int64{1, 17} {
		for _, s := range []auth.Scope{auth.ScopeRead, auth.ScopeWrite} {
			t.Run(fmt.Sprintf("member %d %s", id, s), func(t *testing.T) {
				p, err := st.Authenticate(ctx, synth.Token(seedValue, id, s))
				if err != nil || p.MemberID != id || p.Scope != s {
					t.Errorf("Authenticate(Token(%d, %d, %s)) = member %d scope %s, %v", seedValue, id, s, p.MemberID, p.Scope, err)
				}
			})
		}
	}
}
