package comments_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/comments"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/seed"
)

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

func fieldOf(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && len(ae.Fields) > 0 {
		return ae.Fields[0].Pointer
	}
	return ""
}

func TestCreate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol")
	post := newPost(t, db, ids["alice"], "public")
	other := newPost(t, db, ids["alice"], "public")
	priv := newPost(t, db, ids["alice"], "private")
	s := comments.NewStore(db)
	at := time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)

	top, err := s.Create(ctx, ids["bob"], post, comments.NewComment{Body: "first #Go @carol @nobody", CreatedAt: &at})
	if err != nil {
		t.Fatal(err)
	}
	want := comments.Comment{ID: top.ID, PostID: post, AuthorID: ids["bob"], Depth: 0, Body: "first #Go @carol @nobody",
		Tags: []string{"go"}, CreatedAt: at, MentionIDs: []int64{ids["carol"]}}
	// View is checked against the list by TestCreatedCommentReadsBack.
	if diff := cmp.Diff(want, top, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
		cmpopts.IgnoreFields(comments.Comment{}, "View")); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	reply, err := s.Create(ctx, ids["alice"], post, comments.NewComment{Body: "thanks", ParentID: &top.ID})
	if err != nil {
		t.Fatal(err)
	}
	deeper, err := s.Create(ctx, ids["carol"], post, comments.NewComment{Body: "me too", ParentID: &reply.ID})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Depth != 1 || deeper.Depth != 2 || *deeper.ParentID != reply.ID {
		t.Errorf("depths = %d, %d, want 1, 2", reply.Depth, deeper.Depth)
	}
	onOther, err := s.Create(ctx, ids["bob"], other, comments.NewComment{Body: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	missing := deeper.ID + 1000

	failures := []struct {
		name      string
		author    string
		post      int64
		in        comments.NewComment
		wantCode  apperr.Code
		wantField string
	}{
		{"parent of another post", "bob", post, comments.NewComment{Body: "x", ParentID: &onOther.ID}, apperr.ValidationFailed, "/parent_id"},
		{"absent parent", "bob", post, comments.NewComment{Body: "x", ParentID: &missing}, apperr.ValidationFailed, "/parent_id"},
		{"empty body", "bob", post, comments.NewComment{Body: ""}, apperr.ValidationFailed, "/body"},
		{"invisible post", "bob", priv, comments.NewComment{Body: "x"}, apperr.NotFound, ""},
		{"absent post", "bob", priv + 1000, comments.NewComment{Body: "x"}, apperr.NotFound, ""},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Create(ctx, ids[tt.author], tt.post, tt.in)
			if !apperr.Is(err, tt.wantCode) || fieldOf(err) != tt.wantField {
				t.Errorf("%s: Create error = %v, want %s on %q", tt.name, err, tt.wantCode, tt.wantField)
			}
		})
	}
	var counts struct {
		Comments int `db:"comment_count"`
		Replies  int `db:"reply_count"`
	}
	if err := db.Get(&counts, `SELECT p.comment_count, c.reply_count FROM posts p, comments c WHERE p.id = $1 AND c.id = $2`, post, top.ID); err != nil {
		t.Fatal(err)
	}
	if counts.Comments != 3 || counts.Replies != 1 {
		t.Errorf("comment_count, reply_count = %d, %d, want 3, 1", counts.Comments, counts.Replies)
	}
	checkCounters(t, db)
}

func TestCreateNotifications(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "author", "fan", "stranger", "replier")
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $3), ($2, $3)`, ids["fan"], ids["replier"], ids["author"])
	s := comments.NewStore(db)

	type note struct {
		Recipient string `db:"handle"`
		Type      string `db:"type"`
	}
	tests := []struct {
		name       string
		visibility string
		parentBy   string // "" for a top-level comment
		actor      string
		body       string
		want       []note
	}{
		{"comment notifies the post author", "public", "", "fan", "nice", []note{{"author", "comment"}}},
		{"own post: nobody", "public", "", "author", "note to self", []note{}},
		{"mentions of those who can see", "public", "", "fan", "@stranger @author @fan", []note{{"author", "comment"}, {"stranger", "mention"}}},
		{"followers-only: a mentioned non-follower learns nothing", "followers", "", "fan", "@stranger look", []note{{"author", "comment"}}},
		{"reply beats comment for the post author", "public", "author", "fan", "@author yes", []note{{"author", "reply"}}},
		{"reply and comment to different people", "public", "replier", "fan", "hm", []note{{"author", "comment"}, {"replier", "reply"}}},
		{"reply beats mention", "public", "replier", "fan", "@replier @stranger", []note{{"author", "comment"}, {"replier", "reply"}, {"stranger", "mention"}}},
		{"reply to yourself", "public", "fan", "fan", "more", []note{{"author", "comment"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			post := newPost(t, db, ids["author"], tt.visibility)
			var parent *int64
			if tt.parentBy != "" {
				c, err := s.Create(ctx, ids[tt.parentBy], post, comments.NewComment{Body: "parent"})
				if err != nil {
					t.Fatalf("%s: parent: %v", tt.name, err)
				}
				parent = &c.ID
			}
			c, err := s.Create(ctx, ids[tt.actor], post, comments.NewComment{Body: tt.body, ParentID: parent})
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			got := []note{}
			const q = `
				SELECT m.handle, n.type FROM notifications n JOIN members m ON m.id = n.recipient_id
				 WHERE n.comment_id = $1 ORDER BY m.handle`
			if err := db.Select(&got, q, c.ID); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: notifications (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestCreateConcurrent(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "author", "a", "b", "c")
	post := newPost(t, db, ids["author"], "public")
	s := comments.NewStore(db)
	root, err := s.Create(ctx, ids["a"], post, comments.NewComment{Body: "root"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			nc := comments.NewComment{Body: "concurrent"}
			if i%2 == 0 {
				nc.ParentID = &root.ID
			}
			if _, err := s.Create(ctx, ids[[]string{"a", "b", "c"}[i%3]], post, nc); err != nil {
				t.Errorf("Create %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var got struct {
		Comments int `db:"comment_count"`
		Replies  int `db:"reply_count"`
	}
	if err := db.Get(&got, `SELECT p.comment_count, c.reply_count FROM posts p, comments c WHERE p.id = $1 AND c.id = $2`, post, root.ID); err != nil {
		t.Fatal(err)
	}
	if got.Comments != n+1 || got.Replies != n/2 {
		t.Errorf("comment_count, reply_count = %d, %d, want %d, %d", got.Comments, got.Replies, n+1, n/2)
	}
	checkCounters(t, db)
}
