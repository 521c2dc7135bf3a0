package reactions_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/reactions"
	"github.com/socialnet/socialapi/internal/seed"
)

func newMember(t *testing.T, db *sqlx.DB, handle string) int64 {
	t.Helper()
	m, err := members.CreateTx(context.Background(), db, members.New{Handle: handle, Name: handle})
	if err != nil {
		t.Fatalf("create member %s: %v", handle, err)
	}
	return m.ID
}

func newPost(t *testing.T, db *sqlx.DB, authorID int64, visibility string) int64 {
	t.Helper()
	var id int64
	if err := db.Get(&id, `INSERT INTO posts (author_id, body, visibility) VALUES ($1, 'x', $2) RETURNING id`, authorID, visibility); err != nil {
		t.Fatal(err)
	}
	return id
}

func checkCounters(t *testing.T, db *sqlx.DB) {
	t.Helper()
	ms, err := seed.CheckCounters(context.Background(), db)
	if err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters = %v, %v, want no mismatches", ms, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestSetAndRemove(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	alice, bob, carol := newMember(t, db, "alice"), newMember(t, db, "bob"), newMember(t, db, "carol")
	pub := newPost(t, db, alice, "public")
	priv := newPost(t, db, alice, "private")
	s := reactions.NewStore(db)

	type note struct {
		Actor    int64  `db:"actor_id"`
		Reaction string `db:"reaction"`
	}
	steps := []struct {
		name      string
		member    int64
		post      int64
		typ       string // "" removes
		want      reactions.Result
		wantNotes []note
		wantCode  apperr.Code
	}{
		{"like", bob, pub, "like", reactions.Result{Reaction: ptr("like"), Counts: reactions.Counts{Like: 1}}, []note{{bob, "like"}}, ""},
		{"like again changes nothing", bob, pub, "like", reactions.Result{Reaction: ptr("like"), Counts: reactions.Counts{Like: 1}}, []note{{bob, "like"}}, ""},
		{"change to love", bob, pub, "love", reactions.Result{Reaction: ptr("love"), Counts: reactions.Counts{Love: 1}}, []note{{bob, "love"}}, ""},
		{"another member", carol, pub, "haha", reactions.Result{Reaction: ptr("haha"), Counts: reactions.Counts{Love: 1, Haha: 1}}, []note{{bob, "love"}, {carol, "haha"}}, ""},
		{"self-reaction notifies nobody", alice, pub, "wow", reactions.Result{Reaction: ptr("wow"), Counts: reactions.Counts{Love: 1, Haha: 1, Wow: 1}}, []note{{bob, "love"}, {carol, "haha"}}, ""},
		{"remove", bob, pub, "", reactions.Result{Counts: reactions.Counts{Haha: 1, Wow: 1}}, []note{{carol, "haha"}}, ""},
		{"remove again", bob, pub, "", reactions.Result{Counts: reactions.Counts{Haha: 1, Wow: 1}}, []note{{carol, "haha"}}, ""},
		{"invisible post", bob, priv, "like", reactions.Result{}, nil, apperr.NotFound},
		{"remove on invisible post", bob, priv, "", reactions.Result{}, nil, apperr.NotFound},
		{"absent post", bob, priv + 100, "like", reactions.Result{}, nil, apperr.NotFound},
		{"bad type", bob, pub, "meh", reactions.Result{}, nil, apperr.ValidationFailed},
	}
	for _, st := range steps {
		var got reactions.Result
		var err error
		if st.typ == "" {
			got, err = s.Remove(ctx, st.member, st.post)
		} else {
			got, err = s.Set(ctx, st.member, st.post, st.typ)
		}
		if st.wantCode != "" {
			if !apperr.Is(err, st.wantCode) {
				t.Errorf("%s: error = %v, want %s", st.name, err, st.wantCode)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s: result (-want +got):\n%s", st.name, diff)
		}
		notes := []note{}
		if err := db.Select(&notes, `SELECT actor_id, reaction FROM notifications WHERE type = 'reaction' AND recipient_id = $1 ORDER BY actor_id`, alice); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.wantNotes, notes); diff != "" {
			t.Errorf("%s: notifications (-want +got):\n%s", st.name, diff)
		}
	}
	checkCounters(t, db)
}

func TestSetConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author := newMember(t, db, "author")
	post := newPost(t, db, author, "public")
	const n = 50
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = newMember(t, db, fmt.Sprintf("m%02d", i))
	}
	s := reactions.NewStore(db)
	var wg sync.WaitGroup
	// Every member sends the same reaction three times at once.
	for _, id := range ids {
		for range 3 {
			wg.Go(func() {
				r, err := s.Set(ctx, id, post, "like")
				if err != nil {
					t.Errorf("Set: %v", err)
					return
				}
				if r.Reaction == nil || *r.Reaction != "like" {
					t.Errorf("Set reaction = %v, want like", r.Reaction)
				}
			})
		}
	}
	wg.Wait()
	var got reactions.Counts
	if err := db.Get(&got, `SELECT like_count, love_count, haha_count, wow_count, sad_count, angry_count, comment_count, share_count, view_count FROM posts WHERE id = $1`, post); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(reactions.Counts{Like: n}, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	var notes int
	if err := db.Get(&notes, `SELECT count(*) FROM notifications WHERE type = 'reaction'`); err != nil {
		t.Fatal(err)
	}
	if notes != n {
		t.Errorf("%d reaction notifications, want %d", notes, n)
	}
	checkCounters(t, db)
}

func TestSetConcurrentOneMemberManyTypes(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author, fan := newMember(t, db, "author"), newMember(t, db, "fan")
	post := newPost(t, db, author, "public")
	s := reactions.NewStore(db)
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			var err error
			if i%5 == 4 {
				_, err = s.Remove(ctx, fan, post)
			} else {
				_, err = s.Set(ctx, fan, post, reactions.Types[i%len(reactions.Types)])
			}
			if err != nil {
				t.Errorf("write %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	checkCounters(t, db)
	var rows, notes int
	if err := db.Get(&rows, `SELECT count(*) FROM reactions`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&notes, `SELECT count(*) FROM notifications WHERE type = 'reaction'`); err != nil {
		t.Fatal(err)
	}
	if rows > 1 || notes != rows {
		t.Errorf("%d reactions and %d notifications, want at most one of each, equal", rows, notes)
	}
}

// TestSetAndRemoveConcurrentManyMembers: members change their reactions
// among all types and remove them, all at once, on one post; the counters
// equal the rows and every reaction has exactly one notification of its
// type (the author's own has none).
func TestSetAndRemoveConcurrentManyMembers(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	author := newMember(t, db, "author")
	post := newPost(t, db, author, "public")
	ids := []int64{author}
	for i := range 8 {
		ids = append(ids, newMember(t, db, fmt.Sprintf("m%d", i)))
	}
	s := reactions.NewStore(db)
	var wg sync.WaitGroup
	for _, id := range ids {
		for i := range 12 {
			wg.Go(func() {
				var err error
				if i%4 == 3 {
					_, err = s.Remove(ctx, id, post)
				} else {
					_, err = s.Set(ctx, id, post, reactions.Types[(int(id)+i)%len(reactions.Types)])
				}
				if err != nil {
					t.Errorf("member %d write %d: %v", id, i, err)
				}
			})
		}
	}
	wg.Wait()
	checkCounters(t, db)
	var mismatched int
	const q = `
		SELECT count(*) FROM reactions r
		  FULL JOIN (SELECT * FROM notifications WHERE type = 'reaction') n
		    ON n.post_id = r.post_id AND n.actor_id = r.member_id AND n.reaction = r.type
		 WHERE r.member_id IS DISTINCT FROM $1 AND (r.post_id IS NULL OR n.id IS NULL)
		    OR r.member_id = $1 AND n.id IS NOT NULL`
	if err := db.Get(&mismatched, q, author); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Errorf("%d reactions without their notification or notifications without their reaction, want 0", mismatched)
	}
}
