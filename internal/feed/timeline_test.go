package feed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/relations"
	"github.com/socialnet/socialapi/internal/timeline"
)

// walkIDs pages through a feed with list and returns the post ids in order.
func walkIDs(t *testing.T, list func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error), viewer int64, perPage int) []int64 {
	t.Helper()
	var out []int64
	var after *cursor.Position
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("feed does not end")
		}
		ps, next, err := list(context.Background(), viewer, after, perPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			out = append(out, p.ID)
		}
		if next == nil {
			return out
		}
		if len(ps) == 0 {
			t.Fatalf("empty page with a next cursor after %d posts", len(out))
		}
		after = next
	}
}

// groundTruth is the home feed by fan-out on read, which the timeline must
// equal page for page.
func groundTruth(s *Store) func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error) {
	return func(ctx context.Context, viewer int64, after *cursor.Position, perPage int) ([]hydrate.Post, *cursor.Position, error) {
		q, args := homePage(viewer, after, perPage)
		return s.posts.Chosen(ctx, s.db, viewer, perPage, q, args)
	}
}

func checkAll(t *testing.T, s *Store, ids []int64, stage string, pers ...int) {
	t.Helper()
	for _, m := range ids {
		for _, per := range pers {
			got, want := walkIDs(t, s.Home, m, per), walkIDs(t, groundTruth(s), m, per)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: member %d per_page %d: timeline feed has %d posts %v,\nfan-out on read has %d %v", stage, m, per, len(got), got, len(want), want)
			}
		}
	}
}

// TestTimelineEqualsFanOutOnRead drives random posts, follows, unfollows,
// deletes and partial fan-outs (and, half-way, a member turning to be read
// on fan-out; every other round, members going dormant and waking), and checks after each round that every
// member's home feed, read from the timeline, equals the ground truth page
// for page: pending fan-out, merges on follow and removals on unfollow and
// delete included.
func TestTimelineEqualsFanOutOnRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 6
	ids := make([]int64, n)
	handles := make([]string, n)
	for i := range ids {
		handles[i] = fmt.Sprintf("tl%d", i)
		m, err := members.CreateTx(ctx, db, members.New{Handle: handles[i], Name: handles[i]})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = m.ID
	}
	ps, fs, s := posts.NewStore(db, nil), follows.NewStore(db), NewStore(db).WithCache(hydrate.NewCache(16)) // a small cache: evictions too
	var live []struct{ id, author int64 }
	vis := []string{"public", "followers", "private"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 6; round++ {
		if round%2 == 1 {
			// Every member goes dormant (none has used a token), then a
			// random half of them reads their feed and wakes before this
			// round's writes: the others are woken by checkAll after them.
			if _, err := timeline.Rest(ctx, db, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			for _, m := range ids {
				if rng.IntN(2) == 0 {
					walkIDs(t, s.Home, m, 7)
				}
			}
		}
		if round == 3 {
			// From now on the first member is read on fan-out: their new
			// posts skip the timelines, their older ones are in both.
			db.MustExec(`UPDATE members SET fanout_on_read = true WHERE id = $1`, ids[0])
		}
		for i := 0; i < 25; i++ {
			a := rng.IntN(n)
			v := vis[rng.IntN(3)]
			np := posts.NewPost{Body: "p", Visibility: &v}
			if rng.IntN(4) == 0 { // some share a timestamp: ties break on id
				at := base.Add(time.Duration(rng.IntN(20)) * time.Hour)
				np.CreatedAt = &at
			}
			p, err := ps.Create(ctx, ids[a], np)
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, struct{ id, author int64 }{p.ID, ids[a]})
		}
		for i := 0; i < 6; i++ {
			a, b := rng.IntN(n), rng.IntN(n)
			if a != b {
				if _, _, err := fs.Toggle(ctx, ids[a], handles[b]); err != nil {
					t.Fatal(err)
				}
			}
		}
		for i := 0; i < 3 && len(live) > 0; i++ {
			k := rng.IntN(len(live))
			if err := ps.Delete(ctx, live[k].author, live[k].id); err != nil {
				t.Fatal(err)
			}
			live = slices.Delete(live, k, k+1)
		}
		// Fan out only part of what is pending: reads must merge the rest.
		if _, _, err := timeline.FanOut(ctx, db, rng.IntN(30)); err != nil {
			t.Fatal(err)
		}
		checkAll(t, s, ids, fmt.Sprintf("round %d", round), 1, 7, 50)
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	checkAll(t, s, ids, "drained", 1, 7, 50)
}

// TestTimelineHorizon checks the capped timeline: a rebuild over a followee
// with more than Cap posts sets a horizon, trimming raises it, and pages
// below it come from fan-out on read, so the feed is still whole.
func TestTimelineHorizon(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	var reader, prolific, quiet int64
	for _, h := range []struct {
		id     *int64
		handle string
	}{{&reader, "reader"}, {&prolific, "prolific"}, {&quiet, "quiet"}} {
		m, err := members.CreateTx(ctx, db, members.New{Handle: h.handle, Name: h.handle})
		if err != nil {
			t.Fatal(err)
		}
		*h.id = m.ID
	}
	fs := follows.NewStore(db)
	for _, h := range []string{"prolific", "quiet"} {
		if _, _, err := fs.Toggle(ctx, reader, h); err != nil {
			t.Fatal(err)
		}
	}
	// Old posts written behind the timeline's back, then a rebuild.
	db.MustExec(`INSERT INTO posts (author_id, body, visibility, created_at)
		SELECT $1::bigint, 'old ' || g, CASE WHEN g % 3 = 0 THEN 'followers' ELSE 'public' END,
		       timestamptz '2025-01-01' + g * interval '1 minute'
		  FROM generate_series(1, $3::int) g
		UNION ALL
		SELECT $2::bigint, 'quiet ' || g, 'public', timestamptz '2025-01-01' + g * interval '7 minutes'
		  FROM generate_series(1, 40) g`, prolific, quiet, timeline.Cap+60)
	if _, err := timeline.Rebuild(ctx, db); err != nil {
		t.Fatal(err)
	}
	h, err := timeline.Horizon(ctx, db, reader)
	if err != nil || h == nil {
		t.Fatalf("horizon after rebuild = %v, %v; want one", h, err)
	}
	s := NewStore(db)
	checkAll(t, s, []int64{reader, prolific, quiet}, "rebuilt", 20, 50)

	// New posts push the timeline past Cap+Slack; trimming raises the horizon.
	ps := posts.NewStore(db, nil)
	for i := 0; i < timeline.Slack+10; i++ {
		if _, err := ps.Create(ctx, prolific, posts.NewPost{Body: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	cut, err := timeline.Trim(ctx, db)
	if err != nil || cut == 0 {
		t.Fatalf("trim cut %d timelines, %v; want some", cut, err)
	}
	var rows int
	if err := db.Get(&rows, `SELECT count(*) FROM timeline WHERE member_id = $1`, reader); err != nil || rows != timeline.Cap {
		t.Fatalf("reader's timeline holds %d rows after trim (%v), want %d", rows, err, timeline.Cap)
	}
	h2, err := timeline.Horizon(ctx, db, reader)
	if err != nil || h2 == nil || !(h2.Time.After(h.Time) || (h2.Time.Equal(h.Time) && h2.ID > h.ID)) {
		t.Fatalf("horizon after trim = %v (%v), want above %v", h2, err, h)
	}
	checkAll(t, s, []int64{reader, prolific, quiet}, "trimmed", 20, 50)

	// Unfollowing and following again merges the newest posts back.
	for i := 0; i < 2; i++ {
		if _, _, err := fs.Toggle(ctx, reader, "prolific"); err != nil {
			t.Fatal(err)
		}
		checkAll(t, s, []int64{reader}, fmt.Sprintf("toggle %d", i), 20)
	}
}

// TestTimelineCelebrityBelowTimeline follows a member read on fan-out whose
// posts are all older than everything in the reader's timeline: when the
// timeline does not fill a page, those posts still come after it (the floor
// that stops their scans applies only to a full page).
func TestTimelineCelebrityBelowTimeline(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "reader", "friend", "celebrity")
	db.MustExec(`UPDATE members SET fanout_on_read = true WHERE id = $1`, id["celebrity"])
	ps, fs := posts.NewStore(db, nil), follows.NewStore(db)
	old := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		at := old.Add(time.Duration(i) * time.Hour)
		if _, err := ps.Create(ctx, id["celebrity"], posts.NewPost{Body: "old", CreatedAt: &at}); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"friend", "celebrity"} {
		if _, _, err := fs.Toggle(ctx, id["reader"], h); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if _, err := ps.Create(ctx, id["friend"], posts.NewPost{Body: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	checkAll(t, s, []int64{id["reader"]}, "celebrity below the timeline", 2, 3, 4, 20)
	if got := walkIDs(t, s.Home, id["reader"], 20); len(got) != 8 {
		t.Fatalf("feed has %d posts, want 8", len(got))
	}
}

// TestTimelineDormant follows one member through dormancy: Rest spares a
// member whose token was used lately, a dormant member gets no fan-out and
// reads the whole feed on fan-out while their timeline wakes, the rebuilt
// timeline holds the newest Cap posts with a horizon below them, and a
// member left waking (as by a crash between Wake's steps) is finished by
// their next read.
func TestTimelineDormant(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "sleeper", "busy", "author")
	fs, ps, s := follows.NewStore(db), posts.NewStore(db, nil), NewStore(db)
	for _, m := range []string{"sleeper", "busy"} {
		if _, _, err := fs.Toggle(ctx, id[m], "author"); err != nil {
			t.Fatal(err)
		}
	}
	db.MustExec(`INSERT INTO posts (author_id, body, visibility, created_at)
		SELECT $1::bigint, 'old ' || g, 'public', timestamptz '2025-01-01' + g * interval '1 minute'
		  FROM generate_series(1, $2::int) g`, id["author"], timeline.Cap+30)
	if _, err := timeline.Rebuild(ctx, db); err != nil {
		t.Fatal(err)
	}
	rows := func(m string) int {
		t.Helper()
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM timeline WHERE member_id = $1`, id[m]); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Everyone joined 30 days ago; busy used a token a minute ago, the
	// others never did.
	db.MustExec(`UPDATE members SET created_at = now() - interval '30 days'`)
	db.MustExec(`WITH t AS (INSERT INTO api_tokens (member_id, name, scope, token_hash, display_prefix)
		VALUES ($1, 't', 'read', sha256('busy'::bytea), 'p') RETURNING id)
		INSERT INTO api_token_uses (token_id, last_used_at) SELECT id, now() - interval '1 minute' FROM t`, id["busy"])
	n, err := timeline.Rest(ctx, db, time.Now().Add(-60*24*time.Hour))
	if err != nil || n != 0 {
		t.Fatalf("Rest before anyone joined made %d dormant (%v), want 0", n, err)
	}
	dayAgo := time.Now().Add(-24 * time.Hour)
	if n, err = timeline.Rest(ctx, db, dayAgo); err != nil || n != 2 {
		t.Fatalf("Rest made %d members dormant (%v), want 2 (sleeper, author)", n, err)
	}
	if n, err = timeline.Rest(ctx, db, dayAgo); err != nil || n != 0 {
		t.Fatalf("Rest again made %d dormant (%v), want 0", n, err)
	}
	if rows("sleeper") != 0 || rows("busy") != timeline.Cap {
		t.Fatalf("after Rest: sleeper %d rows, busy %d; want 0 and %d", rows("sleeper"), rows("busy"), timeline.Cap)
	}
	if _, asleep, err := timeline.State(ctx, db, id["sleeper"]); err != nil || !asleep {
		t.Fatalf("sleeper asleep = %v (%v), want true", asleep, err)
	}
	for range 3 {
		if _, err := ps.Create(ctx, id["author"], posts.NewPost{Body: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	if rows("sleeper") != 0 || rows("busy") != timeline.Cap+3 {
		t.Fatalf("after fan-out: sleeper %d rows, busy %d; want 0 and %d", rows("sleeper"), rows("busy"), timeline.Cap+3)
	}
	// The ground truth first (it must not wake anyone), then the timeline.
	want := walkIDs(t, groundTruth(s), id["sleeper"], 50)
	if _, asleep, _ := timeline.State(ctx, db, id["sleeper"]); !asleep || rows("sleeper") != 0 {
		t.Fatal("reading on fan-out woke the sleeper")
	}
	if got := walkIDs(t, s.Home, id["sleeper"], 50); !slices.Equal(got, want) {
		t.Fatalf("dormant member's feed has %d posts, want %d", len(got), len(want))
	}
	h, asleep, err := timeline.State(ctx, db, id["sleeper"])
	if err != nil || asleep || h == nil || rows("sleeper") != timeline.Cap {
		t.Fatalf("after waking: horizon %v asleep %v (%v), %d rows; want a horizon and %d rows", h, asleep, err, rows("sleeper"), timeline.Cap)
	}
	if _, err := ps.Create(ctx, id["author"], posts.NewPost{Body: "after waking"}); err != nil {
		t.Fatal(err)
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	if rows("sleeper") != timeline.Cap+1 {
		t.Fatalf("woken member got %d rows, want %d", rows("sleeper"), timeline.Cap+1)
	}
	checkAll(t, s, []int64{id["sleeper"], id["busy"], id["author"]}, "woken", 20, 50)

	// Left waking: fanned out to, not rebuilt.
	if _, err := timeline.Rest(ctx, db, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	db.MustExec(`DELETE FROM timeline_dormant WHERE member_id = $1`, id["sleeper"])
	if _, err := ps.Create(ctx, id["author"], posts.NewPost{Body: "while waking"}); err != nil {
		t.Fatal(err)
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	if rows("sleeper") != 1 {
		t.Fatalf("waking member got %d rows from the fan-out, want 1", rows("sleeper"))
	}
	checkAll(t, s, []int64{id["sleeper"]}, "left waking", 20, 50)
	if _, asleep, err := timeline.State(ctx, db, id["sleeper"]); err != nil || asleep {
		t.Fatalf("left waking, then read: asleep %v (%v), want false", asleep, err)
	}

	// A dormant member who follows someone is merged into at once; the
	// feed is whole after waking.
	if _, err := timeline.Rest(ctx, db, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fs.Toggle(ctx, id["sleeper"], "busy"); err != nil {
		t.Fatal(err)
	}
	if _, err := ps.Create(ctx, id["busy"], posts.NewPost{Body: "busy posts"}); err != nil {
		t.Fatal(err)
	}
	checkAll(t, s, []int64{id["sleeper"]}, "followed while dormant", 20, 50)
}

// TestTimelineHorizonReadOnce checks that a page reads the member's horizon
// once, whatever the number of candidate rows: looked up per row, it was
// most of the buffers of a page of a member following members read on
// fan-out (docs/performance-journal.md, "Horizon read once per statement").
func TestTimelineHorizonReadOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "reader", "friend", "celebrity", "star")
	db.MustExec(`UPDATE members SET fanout_on_read = true WHERE id IN ($1, $2)`, id["celebrity"], id["star"])
	fs := follows.NewStore(db)
	for _, h := range []string{"friend", "celebrity", "star"} {
		if _, _, err := fs.Toggle(ctx, id["reader"], h); err != nil {
			t.Fatal(err)
		}
	}
	db.MustExec(`INSERT INTO posts (author_id, body, visibility, created_at)
		SELECT a, 'post ' || g, 'public', now() - g * interval '1 minute'
		  FROM unnest(ARRAY[$1, $2]::bigint[]) a, generate_series(1, 40) g`, id["celebrity"], id["star"])
	ps := posts.NewStore(db, nil)
	for range 30 {
		if _, err := ps.Create(ctx, id["friend"], posts.NewPost{Body: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	db.MustExec(`INSERT INTO timeline_horizons (member_id, created_at, post_id) VALUES ($1, '2000-01-01', 0)
		ON CONFLICT (member_id) DO UPDATE SET created_at = EXCLUDED.created_at, post_id = 0`, id["reader"])
	db.MustExec(`ANALYZE`)
	for _, after := range []*cursor.Position{nil, {Time: time.Now().Add(-5 * time.Minute), ID: 1 << 40}} {
		q, args := timeline.PageSQL(after, []any{id["reader"], 21})
		q = timeline.Standalone(q)
		var lines []string
		if err := db.Select(&lines, "EXPLAIN (ANALYZE, TIMING off) "+q, args...); err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		scans := 0
		for _, l := range lines {
			if strings.Contains(l, "on timeline_horizons") {
				scans++
				if !strings.Contains(l, "loops=1)") && !strings.Contains(l, "never executed") {
					t.Errorf("after %v: the horizon is read more than once:\n%s", after, plan)
				}
			}
		}
		if scans != 1 {
			t.Errorf("after %v: %d scans of timeline_horizons in the plan, want 1:\n%s", after, scans, plan)
		}
	}
}

// TestTimelineHidesLikeFanOutOnRead hides, in turn, each of the reader's
// followees by each cause (the reader mutes them, blocks them, is blocked by
// them, or they are suspended), the followee's posts reaching the reader by
// each of the page statement's sources: timeline rows (fanned out), outbox
// rows (pending) and fan-out on read (members.fanout_on_read); awake, and
// after the reader's timeline went dormant (the read wakes it). Each time
// the feed leaves exactly the hidden followee's posts out, page for page
// like the ground truth; lifting the cause (and following again after a
// block, which cut the follow) brings them back.
func TestTimelineHidesLikeFanOutOnRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	authors := []string{"fanned", "pending", "famous", "friend"}
	id := pgtest.Members(t, db, append([]string{"reader"}, authors...)...)
	db.MustExec(`UPDATE members SET fanout_on_read = true WHERE id = $1`, id["famous"])
	ps, fs, rs := posts.NewStore(db, nil), follows.NewStore(db), relations.NewStore(db)
	s := NewStore(db).WithCache(hydrate.NewCache(16))
	for _, a := range authors {
		if _, _, err := fs.Toggle(ctx, id["reader"], a); err != nil {
			t.Fatal(err)
		}
	}
	byAuthor := map[int64]int64{} // post → author
	write := func(author string) {
		t.Helper()
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range 4 {
			vis := []string{"public", "followers"}[i%2]
			at := base.Add(time.Duration(len(byAuthor)) * time.Minute) // interleaved across authors
			p, err := ps.Create(ctx, id[author], posts.NewPost{Body: "p", Visibility: &vis, CreatedAt: &at})
			if err != nil {
				t.Fatal(err)
			}
			byAuthor[p.ID] = id[author]
		}
	}
	write("fanned")
	write("famous")
	write("friend")
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	write("pending") // left in the outbox (never fanned out): reads merge it
	check := func(stage string, hidden int64) {
		t.Helper()
		checkAll(t, s, []int64{id["reader"]}, stage, 1, 3, 50)
		got := walkIDs(t, s.Home, id["reader"], 50)
		n := 0
		for _, p := range got {
			if byAuthor[p] == hidden {
				t.Fatalf("%s: the feed shows post %d of the hidden member %d", stage, p, hidden)
			}
		}
		for _, a := range byAuthor {
			if a != hidden {
				n++
			}
		}
		if len(got) != n {
			t.Fatalf("%s: the feed has %d posts, want %d", stage, len(got), n)
		}
	}
	check("nothing hidden", 0)
	set := func(member int64, handle string, kind relations.Kind, on bool) {
		t.Helper()
		if _, err := rs.Set(ctx, member, handle, kind, on); err != nil {
			t.Fatal(err)
		}
	}
	causes := []struct {
		name       string
		hide, lift func(author string)
	}{
		{"muted", func(a string) { set(id["reader"], a, relations.Mute, true) },
			func(a string) { set(id["reader"], a, relations.Mute, false) }},
		{"suspended", func(a string) { db.MustExec(`UPDATE members SET suspended_at = now() WHERE id = $1`, id[a]) },
			func(a string) { db.MustExec(`UPDATE members SET suspended_at = NULL WHERE id = $1`, id[a]) }},
		{"blocked", func(a string) { set(id["reader"], a, relations.Block, true) },
			func(a string) { set(id["reader"], a, relations.Block, false) }},
		{"blocker", func(a string) { set(id[a], "reader", relations.Block, true) },
			func(a string) { set(id[a], "reader", relations.Block, false) }},
	}
	for _, c := range causes {
		for _, a := range []string{"fanned", "pending", "famous"} {
			for _, dormant := range []bool{false, true} {
				stage := fmt.Sprintf("%s %s (dormant %v)", a, c.name, dormant)
				// pending's posts stay in the outbox only: a wake rebuilt
				// them into the reader's timeline.
				db.MustExec(`DELETE FROM timeline WHERE member_id = $1 AND author_id = $2`, id["reader"], id["pending"])
				c.hide(a)
				if dormant {
					if _, err := timeline.Rest(ctx, db, time.Now().Add(time.Hour)); err != nil {
						t.Fatal(err)
					}
				}
				check(stage, id[a])
				c.lift(a)
				if c.name == "blocked" || c.name == "blocker" {
					if _, _, err := fs.Toggle(ctx, id["reader"], a); err != nil { // the block cut the follow
						t.Fatal(err)
					}
				}
				check(stage+" lifted", 0)
			}
		}
	}
}
