package posts_test

import (
	"context"
	"sync"
	"testing"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/timeline"
)

// TestCreateAndDeleteTimelineRows checks what the one-statement create and
// delete write besides the post: the author's own timeline row, the outbox
// row (not for private posts nor for authors read on fan-out), and on delete
// the rows of the author and the followers, nothing else.
func TestCreateAndDeleteTimelineRows(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "celeb")
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2)`, ids["bob"], ids["alice"])
	db.MustExec(`UPDATE members SET fanout_on_read = true WHERE id = $1`, ids["celeb"])
	s := posts.NewStore(db, nil)
	tests := []struct {
		name       string
		author     string
		visibility string
		wantQueued int
	}{
		{"public", "alice", "public", 1},
		{"followers", "alice", "followers", 1},
		{"private", "alice", "private", 0},
		{"read on fan-out", "celeb", "public", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Create(ctx, ids[tt.author], posts.NewPost{Body: tt.name, Visibility: &tt.visibility})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if n := count(t, db, `SELECT count(*) FROM timeline WHERE post_id = $1 AND member_id = $2 AND author_id = $2 AND created_at = $3`,
				p.ID, ids[tt.author], p.CreatedAt); n != 1 {
				t.Errorf("%s: %d own timeline rows, want 1", tt.name, n)
			}
			if n := count(t, db, `SELECT count(*) FROM feed_outbox WHERE post_id = $1`, p.ID); n != tt.wantQueued {
				t.Errorf("%s: %d outbox rows, want %d", tt.name, n, tt.wantQueued)
			}
		})
	}

	p, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "to delete"})
	if err != nil {
		t.Fatal(err)
	}
	// As the worker would have fanned it out, plus a stray row of a
	// non-follower that the delete leaves alone (reads skip deleted posts).
	db.MustExec(`INSERT INTO timeline (member_id, created_at, post_id, author_id) VALUES ($1, $3, $4, $2), ($5, $3, $4, $2)`,
		ids["bob"], ids["alice"], p.CreatedAt, p.ID, ids["celeb"])
	if err := s.Delete(ctx, ids["bob"], p.ID); !apperr.Is(err, apperr.Forbidden) {
		t.Errorf("Delete by a follower = %v, want forbidden", err)
	}
	if err := s.Delete(ctx, ids["alice"], p.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM timeline WHERE post_id = $1 AND member_id IN ($2, $3)`, p.ID, ids["alice"], ids["bob"]); n != 0 {
		t.Errorf("%d timeline rows of the author and the follower left, want 0", n)
	}
	if n := count(t, db, `SELECT count(*) FROM timeline WHERE post_id = $1`, p.ID); n != 1 {
		t.Errorf("%d timeline rows left, want 1 (the non-follower's)", n)
	}
}

// TestDeleteConcurrent: RACE-05, two deletes of one post at once: one
// succeeds, the other is NotFound (never Forbidden, never a 500).
func TestDeleteConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice")
	s := posts.NewStore(db, nil)
	for round := range 10 {
		p, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "twice"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { errs[i] = s.Delete(ctx, ids["alice"], p.ID) })
		}
		wg.Wait()
		ok, notFound := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case apperr.Is(err, apperr.NotFound):
				notFound++
			default:
				t.Errorf("round %d: Delete = %v", round, err)
			}
		}
		if ok != 1 || notFound != 1 {
			t.Errorf("round %d: %d deleted and %d not found, want 1 and 1", round, ok, notFound)
		}
	}
}

// TestDeletingMembersDeletesTheirTimelines checks the trigger that stands
// in for the timeline's foreign key to members (migration 17): deleting
// members deletes the timeline rows they own, in the same statement, and no
// other member's rows.
func TestDeletingMembersDeletesTheirTimelines(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "dave")
	for _, f := range []string{"bob", "carol", "dave"} {
		db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2)`, ids[f], ids["alice"])
	}
	s := posts.NewStore(db, nil)
	for range 3 {
		if _, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "hello"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := timeline.Drain(ctx, db); err != nil {
		t.Fatal(err)
	}
	count := func(member string) int {
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM timeline WHERE member_id = $1`, ids[member]); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, m := range []string{"alice", "bob", "carol", "dave"} {
		if got := count(m); got != 3 {
			t.Fatalf("%s's timeline holds %d rows before the deletion, want 3", m, got)
		}
	}
	db.MustExec(`DELETE FROM members WHERE id IN ($1, $2)`, ids["bob"], ids["carol"])
	want := map[string]int{"alice": 3, "bob": 0, "carol": 0, "dave": 3}
	for m, w := range want {
		if got := count(m); got != w {
			t.Errorf("after deleting bob and carol, %s's timeline holds %d rows, want %d", m, got, w)
		}
	}
	var fk int
	if err := db.Get(&fk, `SELECT count(*) FROM pg_constraint WHERE conrelid = 'timeline'::regclass AND contype = 'f'`); err != nil {
		t.Fatal(err)
	}
	if fk != 0 {
		t.Errorf("timeline has %d foreign keys; the fan-out writes it without any", fk)
	}
}
