package follows_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/feed"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/seed"
	"github.com/socialnet/socialapi/internal/timeline"
)

func count(t *testing.T, db *sqlx.DB, q string) int {
	t.Helper()
	var n int
	if err := db.Get(&n, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checkConsistent fails when a counter differs from its rows or when the
// follow notifications differ from the follows.
func checkConsistent(t *testing.T, db *sqlx.DB) {
	t.Helper()
	ms, err := seed.CheckCounters(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) > 0 {
		t.Errorf("counter mismatches: %v", ms)
	}
	var orphans int
	const q = `
		SELECT count(*) FROM (
		    SELECT follower_id, followee_id FROM follows
		    EXCEPT ALL
		    SELECT actor_id, recipient_id FROM notifications WHERE type = 'follow'
		) a`
	if err := db.Get(&orphans, q); err != nil {
		t.Fatal(err)
	}
	notes := count(t, db, `SELECT count(*) FROM notifications WHERE type = 'follow'`)
	rows := count(t, db, `SELECT count(*) FROM follows`)
	if orphans != 0 || notes != rows {
		t.Errorf("follow notifications = %d (%d follows without one), want one per follow (%d)", notes, orphans, rows)
	}
}

func TestToggle(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "dave")
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'dave'`)
	s := follows.NewStore(db)

	steps := []struct {
		name          string
		follower      string
		handle        string
		wantFollowing bool
		wantCode      apperr.Code // "" for success
	}{
		{"follow", "alice", "bob", true, ""},
		{"unfollow, handle in another case", "alice", "BOB", false, ""},
		{"follow again", "alice", "Bob", true, ""},
		{"follow back", "bob", "alice", true, ""},
		{"self", "alice", "alice", false, apperr.CannotFollowSelf},
		{"unknown", "alice", "zed", false, apperr.NotFound},
		{"suspended", "alice", "dave", false, apperr.NotFound},
	}
	for _, st := range steps {
		following, followeeID, err := s.Toggle(ctx, ids[st.follower], st.handle)
		if st.wantCode != "" {
			if !apperr.Is(err, st.wantCode) {
				t.Errorf("%s: Toggle(%s, %q) error = %v, want %s", st.name, st.follower, st.handle, err, st.wantCode)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: Toggle(%s, %q) error = %v", st.name, st.follower, st.handle, err)
		}
		if following != st.wantFollowing || followeeID == 0 {
			t.Errorf("%s: Toggle(%s, %q) = %v, %d, want %v", st.name, st.follower, st.handle, following, followeeID, st.wantFollowing)
		}
	}
	type counts struct{ Followers, Following int }
	got := map[string]counts{}
	rows := []struct {
		Handle    string `db:"handle"`
		Followers int    `db:"follower_count"`
		Following int    `db:"following_count"`
	}{}
	if err := db.Select(&rows, `SELECT handle, follower_count, following_count FROM members`); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		got[r.Handle] = counts{r.Followers, r.Following}
	}
	want := map[string]counts{"alice": {1, 1}, "bob": {1, 1}, "dave": {0, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	checkConsistent(t, db)
}

func TestFollowTx(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob")
	for i, want := range []bool{true, false} {
		created, _, err := follows.FollowTx(ctx, db, ids["alice"], "bob", nil)
		if err != nil || created != want {
			t.Errorf("FollowTx #%d = %v, %v, want %v", i+1, created, err, want)
		}
	}
	checkConsistent(t, db)
}

func TestToggleConcurrentSamePair(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ids := pgtest.Members(t, db, "alice", "bob")
	s := follows.NewStore(db)
	const n = 20
	var wg sync.WaitGroup
	results := make(chan bool, n)
	for range n {
		wg.Go(func() {
			following, _, err := s.Toggle(context.Background(), ids["alice"], "bob")
			if err != nil {
				t.Errorf("Toggle: %v", err)
			}
			results <- following
		})
	}
	wg.Wait()
	close(results)
	trues := 0
	for r := range results {
		if r {
			trues++
		}
	}
	// Serial order: the answers alternate, so half say following; an even
	// number of toggles leaves the pair as it was.
	if trues != n/2 {
		t.Errorf("%d of %d toggles answered following, want %d", trues, n, n/2)
	}
	if rows := count(t, db, `SELECT count(*) FROM follows`); rows != 0 {
		t.Errorf("follows rows = %d, want 0", rows)
	}
	checkConsistent(t, db)
}

func TestToggleConcurrentMixed(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	handles := []string{"alice", "bob", "carol", "dave"}
	ids := pgtest.Members(t, db, handles...)
	s := follows.NewStore(db)
	var wg sync.WaitGroup
	// Every ordered pair toggled 5 times at once: both directions of a pair
	// and pairs sharing a member interleave.
	for round := range 5 {
		for _, a := range handles {
			for _, b := range handles {
				if a == b {
					continue
				}
				wg.Go(func() {
					if _, _, err := s.Toggle(context.Background(), ids[a], b); err != nil {
						t.Errorf("round %d: Toggle(%s, %s): %v", round, a, b, err)
					}
				})
			}
		}
	}
	wg.Wait()
	// Five toggles each: every pair ends following.
	rows := count(t, db, `SELECT count(*) FROM follows`)
	if want := len(handles) * (len(handles) - 1); rows != want {
		t.Errorf("follows rows = %d, want %d", rows, want)
	}
	checkConsistent(t, db)
}

// TestToggleFlagsFanOutOnRead: the follow that brings a member to
// timeline.FanOutOnReadFollowers followers flags them as read on fan-out
// and merges none of their posts (reads find them); below it, the follow
// merges the followee's visible posts and the unfollow removes them.
func TestToggleFlagsFanOutOnRead(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "star")
	for _, h := range []string{"bob", "star"} {
		db.MustExec(`INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'pub', 'public'), ($1, 'fol', 'followers'), ($1, 'priv', 'private')`, ids[h])
	}
	// The counter only, as if star had all but one of the followers.
	db.MustExec(`UPDATE members SET follower_count = $2 WHERE id = $1`, ids["star"], timeline.FanOutOnReadFollowers-1)
	s := follows.NewStore(db)
	merged := func(author string) int {
		return count(t, db, fmt.Sprintf(`SELECT count(*) FROM timeline WHERE member_id = %d AND author_id = %d`, ids["alice"], ids[author]))
	}
	flagged := func(h string) bool {
		var f bool
		if err := db.Get(&f, `SELECT fanout_on_read FROM members WHERE id = $1`, ids[h]); err != nil {
			t.Fatal(err)
		}
		return f
	}
	if following, _, err := s.Toggle(ctx, ids["alice"], "bob"); err != nil || !following {
		t.Fatalf("follow bob = %v, %v", following, err)
	}
	if n := merged("bob"); n != 2 || flagged("bob") {
		t.Errorf("after following bob: %d merged posts, flagged %v; want 2, false", n, flagged("bob"))
	}
	if following, _, err := s.Toggle(ctx, ids["alice"], "bob"); err != nil || following {
		t.Fatalf("unfollow bob = %v, %v", following, err)
	}
	if n := merged("bob"); n != 0 {
		t.Errorf("after unfollowing bob: %d merged posts, want 0", n)
	}
	if following, _, err := s.Toggle(ctx, ids["alice"], "star"); err != nil || !following {
		t.Fatalf("follow star = %v, %v", following, err)
	}
	if n := merged("star"); n != 0 || !flagged("star") {
		t.Errorf("after following star: %d merged posts, flagged %v; want 0, true", n, flagged("star"))
	}
	var counts struct {
		Followers int `db:"follower_count"`
		Following int `db:"following_count"`
	}
	if err := db.Get(&counts, `SELECT follower_count, following_count FROM members WHERE id = $1`, ids["star"]); err != nil {
		t.Fatal(err)
	}
	if counts.Followers != timeline.FanOutOnReadFollowers || counts.Following != 0 {
		t.Errorf("star's counts = %+v, want %d followers", counts, timeline.FanOutOnReadFollowers)
	}
	// Unfollowing keeps the flag (it is set once and kept).
	if following, _, err := s.Toggle(ctx, ids["alice"], "star"); err != nil || following || !flagged("star") {
		t.Errorf("unfollow star = %v, %v, flagged %v; want false, nil, true", following, err, flagged("star"))
	}
}

// TestToggleKeepsTheFeedExact: follows and unfollows of members with more
// than Cap posts, few posts, and posts below the follower's horizon leave
// the home feed equal to fan-out on read, page for page.
func TestToggleKeepsTheFeedExact(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "reader", "busy", "old", "recent")
	db.MustExec(`INSERT INTO posts (author_id, body, visibility, created_at)
		SELECT $1::bigint, 'busy', 'public', timestamptz '2026-01-01' + g * interval '1 minute' FROM generate_series(1, $4::int) g
		UNION ALL
		SELECT $2::bigint, 'old', CASE WHEN g % 2 = 0 THEN 'followers' ELSE 'public' END,
		       timestamptz '2025-01-01' + g * interval '1 hour' FROM generate_series(1, 30) g
		UNION ALL
		SELECT $2::bigint, 'old but new', 'public', timestamptz '2026-06-01' + g * interval '1 hour' FROM generate_series(1, 2) g
		UNION ALL
		SELECT $3::bigint, 'recent', 'public', timestamptz '2026-03-01' + g * interval '1 hour' FROM generate_series(1, 5) g`,
		ids["busy"], ids["old"], ids["recent"], timeline.Cap+20)
	s, fs := follows.NewStore(db), feed.NewStore(db)
	merged := func(author string) int {
		return count(t, db, fmt.Sprintf(`SELECT count(*) FROM timeline WHERE member_id = %d AND author_id = %d`, ids["reader"], ids[author]))
	}
	horizon := func() *cursor.Position {
		h, err := timeline.Horizon(ctx, db, ids["reader"])
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	check := func(stage string) {
		t.Helper()
		var want []int64
		if err := db.Select(&want, `
			SELECT p.id FROM posts p
			 WHERE p.author_id = $1
			    OR p.visibility <> 'private' AND p.author_id IN (SELECT followee_id FROM follows WHERE follower_id = $1)
			 ORDER BY p.created_at DESC, p.id DESC`, ids["reader"]); err != nil {
			t.Fatal(err)
		}
		for _, per := range []int{7, 50} {
			var got []int64
			var after *cursor.Position
			for range 200 {
				ps, next, err := fs.Home(ctx, ids["reader"], after, per)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					got = append(got, p.ID)
				}
				if next == nil {
					break
				}
				after = next
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s, per_page %d: home feed (-fan-out on read +got):\n%s", stage, per, diff)
			}
		}
	}
	toggle := func(h string, want bool) {
		t.Helper()
		if following, _, err := s.Toggle(ctx, ids["reader"], h); err != nil || following != want {
			t.Fatalf("toggle %s = %v, %v, want %v", h, following, err, want)
		}
	}

	toggle("busy", true)
	// More than Cap posts: Cap merged, the horizon at the oldest of them.
	if n, h := merged("busy"), horizon(); n != timeline.Cap || h == nil {
		t.Fatalf("after following busy: %d rows, horizon %v; want %d, one", n, h, timeline.Cap)
	}
	check("busy")
	toggle("recent", true)
	if n := merged("recent"); n != 5 {
		t.Errorf("after following recent: %d rows, want 5", n)
	}
	check("recent")
	// Only old's posts at or above the horizon are merged; reads find the
	// others by fan-out on read.
	toggle("old", true)
	if n := merged("old"); n != 2 {
		t.Errorf("after following old: %d rows, want 2", n)
	}
	check("old")
	toggle("old", false)
	check("unfollowed old")
	toggle("busy", false)
	check("unfollowed busy")
	toggle("old", true)
	check("followed old again")
}

// TestToggleAcrossABlock: Toggle and FollowTx answer a member who blocks
// the follower as an unknown one (NotFound) and a member the follower
// blocks with MemberBlocked, and write nothing.
func TestToggleAcrossABlock(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol")
	db.MustExec(`INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2), ($2, $3)`, ids["bob"], ids["alice"], ids["carol"])
	db.MustExec(`UPDATE members m SET block_count = (SELECT count(*) FROM blocks b WHERE b.blocker_id = m.id)`)
	s := follows.NewStore(db)
	for _, c := range []struct {
		follower, handle string
		want             apperr.Code
	}{
		{"alice", "bob", apperr.NotFound},        // bob blocks alice
		{"bob", "alice", apperr.MemberBlocked},   // bob blocks alice
		{"carol", "ALICE", apperr.NotFound},      // alice blocks carol
		{"alice", "carol", apperr.MemberBlocked}, // alice blocks carol
	} {
		if _, _, err := s.Toggle(ctx, ids[c.follower], c.handle); !apperr.Is(err, c.want) {
			t.Errorf("Toggle(%s, %s) error = %v, want %s", c.follower, c.handle, err, c.want)
		}
		if _, _, err := follows.FollowTx(ctx, db, ids[c.follower], c.handle, nil); !apperr.Is(err, c.want) {
			t.Errorf("FollowTx(%s, %s) error = %v, want %s", c.follower, c.handle, err, c.want)
		}
	}
	if following, _, err := s.Toggle(ctx, ids["bob"], "carol"); err != nil || !following {
		t.Errorf("Toggle(bob, carol) = %v, %v, want a follow (no block between them)", following, err)
	}
	if rows := count(t, db, `SELECT count(*) FROM follows`); rows != 1 {
		t.Errorf("follows rows = %d, want 1", rows)
	}
	checkConsistent(t, db)
}
