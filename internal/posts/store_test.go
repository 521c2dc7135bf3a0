package posts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/seed"
)

func count(t *testing.T, db *sqlx.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Get(&n, q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func ptr[T any](v T) *T { return &v }

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
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "dave")
	db.MustExec(`UPDATE members SET default_visibility = 'followers' WHERE handle = 'carol'`)
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = 'dave'`)
	s := posts.NewStore(db, nil)
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	img := posts.Media{Kind: "image", URL: "https://cdn.example/a.jpg", Width: 10, Height: 10}
	vid := posts.Media{Kind: "video", URL: "https://cdn.example/a.mp4", Width: 10, Height: 10}

	tests := []struct {
		name           string
		author         string
		in             posts.NewPost
		wantType       string
		wantVisibility string
		wantTags       []string
		wantMentions   []string
	}{
		{"text with tags and mentions", "alice",
			posts.NewPost{Body: "Hi @Bob and @carol, @zed and @dave #Go #go #pg", CreatedAt: &at},
			"text", "public", []string{"go", "pg"}, []string{"bob", "carol"}},
		{"default visibility of the author", "carol", posts.NewPost{Body: "mine"}, "text", "followers", []string{}, []string{}},
		{"explicit visibility", "carol", posts.NewPost{Body: "open", Visibility: ptr("public")}, "text", "public", []string{}, []string{}},
		{"link", "alice", posts.NewPost{Body: "read", Link: ptr("https://go.dev")}, "link", "public", []string{}, []string{}},
		{"photo", "alice", posts.NewPost{Body: "look", Media: []posts.Media{img, img}}, "photo", "public", []string{}, []string{}},
		{"video among media", "alice", posts.NewPost{Body: "watch", Media: []posts.Media{img, vid}}, "video", "public", []string{}, []string{}},
		{"poll", "alice", posts.NewPost{Body: "vote", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}}}, "poll", "public", []string{}, []string{}},
		{"explicit type", "alice", posts.NewPost{Body: "text with a link", Type: "text", Link: ptr("https://go.dev")}, "text", "public", []string{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Create(ctx, ids[tt.author], tt.in)
			if err != nil {
				t.Fatalf("%s: Create: %v", tt.name, err)
			}
			wantIDs := []int64{}
			for _, h := range tt.wantMentions {
				wantIDs = append(wantIDs, ids[h])
			}
			got := struct {
				Type, Visibility string
				Tags             []string
				Mentions         []int64
			}{p.Type, p.Visibility, p.Tags, p.MentionIDs}
			want := struct {
				Type, Visibility string
				Tags             []string
				Mentions         []int64
			}{tt.wantType, tt.wantVisibility, tt.wantTags, wantIDs}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: Create (-want +got):\n%s", tt.name, diff)
			}
			if tt.in.CreatedAt != nil && !p.CreatedAt.Equal(*tt.in.CreatedAt) {
				t.Errorf("%s: created_at = %v, want %v", tt.name, p.CreatedAt, *tt.in.CreatedAt)
			}
			if n := count(t, db, `SELECT count(*) FROM post_media WHERE post_id = $1`, p.ID); n != len(tt.in.Media) {
				t.Errorf("%s: %d media stored, want %d", tt.name, n, len(tt.in.Media))
			}
		})
	}
}

func TestCreateInvalid(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ids := pgtest.Members(t, db, "alice")
	s := posts.NewStore(db, nil)
	img := posts.Media{Kind: "image", URL: "https://cdn.example/a.jpg", Width: 10, Height: 10}
	tests := []struct {
		name      string
		in        posts.NewPost
		wantField string
	}{
		{"empty body", posts.NewPost{Body: ""}, "/body"},
		{"bad visibility", posts.NewPost{Body: "x", Visibility: ptr("friends")}, "/visibility"},
		{"link type without link", posts.NewPost{Body: "x", Type: "link"}, "/link"},
		{"poll type without poll", posts.NewPost{Body: "x", Type: "poll"}, "/poll"},
		{"photo without media", posts.NewPost{Body: "x", Type: "photo"}, "/media"},
		{"too many media", posts.NewPost{Body: "x", Media: []posts.Media{img, img, img, img, img}}, "/media"},
		{"bad media", posts.NewPost{Body: "x", Media: []posts.Media{img, {Kind: "image", URL: "u", Width: 0, Height: 1}}}, "/media/1"},
		{"one poll option", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: "?", Options: []string{"a"}}}, "/poll/options"},
		{"empty option", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", ""}}}, "/poll/options/1"},
		{"blank option", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b", "\u200b "}}}, "/poll/options/2"},
		{"option twice", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b", "a"}}}, "/poll/options/2"},
		{"blank question", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: " ", Options: []string{"a", "b"}}}, "/poll/question"},
		{"long question", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: strings.Repeat("q", 301), Options: []string{"a", "b"}}}, "/poll/question"},
		{"open too briefly", posts.NewPost{Body: "x", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}, ExpiresIn: time.Minute}}, "/poll/expires_in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Create(context.Background(), ids["alice"], tt.in)
			if !apperr.Is(err, apperr.ValidationFailed) || fieldOf(err) != tt.wantField {
				t.Errorf("%s: Create error = %v, want validation_failed on %s", tt.name, err, tt.wantField)
			}
		})
	}
	if n := count(t, db, `SELECT count(*) FROM posts`); n != 0 {
		t.Errorf("%d posts stored after failures, want 0", n)
	}
}

func TestCreateMentionNotifications(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "author", "fan", "stranger")
	db.MustExec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2)`, ids["fan"], ids["author"])
	s := posts.NewStore(db, nil)
	tests := []struct {
		visibility string
		want       []string // who gets a mention notification
	}{
		{"public", []string{"fan", "stranger"}},
		{"followers", []string{"fan"}}, // a non-follower mentioned in a followers-only post learns nothing
		{"private", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.visibility, func(t *testing.T) {
			p, err := s.Create(ctx, ids["author"], posts.NewPost{Body: "hi @fan @stranger @author", Visibility: ptr(tt.visibility)})
			if err != nil {
				t.Fatalf("%s: %v", tt.visibility, err)
			}
			got := []string{}
			const q = `
				SELECT m.handle FROM notifications n JOIN members m ON m.id = n.recipient_id
				 WHERE n.post_id = $1 AND n.type = 'mention' AND n.actor_id = $2 AND n.created_at = $3
				 ORDER BY m.handle`
			if err := db.Select(&got, q, p.ID, ids["author"], p.CreatedAt); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s post: mention notifications (-want +got):\n%s", tt.visibility, diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol")
	s := posts.NewStore(db, nil)
	pub, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "hello @bob", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	priv, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "secret", Visibility: ptr("private")})
	if err != nil {
		t.Fatal(err)
	}
	var commentID int64
	if err := db.Get(&commentID, `INSERT INTO comments (post_id, author_id, body) VALUES ($1, $2, 'c') RETURNING id`, pub.ID, ids["bob"]); err != nil {
		t.Fatal(err)
	}
	db.MustExec(`INSERT INTO comments (post_id, author_id, body, parent_id, depth) VALUES ($1, $2, 'r', $3, 1)`, pub.ID, ids["alice"], commentID)
	db.MustExec(`INSERT INTO reactions (post_id, member_id, type) VALUES ($1, $2, 'like')`, pub.ID, ids["bob"])
	db.MustExec(`INSERT INTO notifications (recipient_id, type, actor_id, post_id, comment_id) VALUES ($1, 'comment', $2, $3, $4)`,
		ids["alice"], ids["bob"], pub.ID, commentID)
	if err := posts.VotePollTx(ctx, db, pub.ID, ids["carol"], []int{1}, nil); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		actor    string
		post     int64
		wantCode apperr.Code
	}{
		{"visible, not the author", "bob", pub.ID, apperr.Forbidden},
		{"not visible", "bob", priv.ID, apperr.NotFound},
		{"absent", "alice", priv.ID + 1000, apperr.NotFound},
		{"author", "alice", pub.ID, ""},
		{"already deleted", "alice", pub.ID, apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Delete(ctx, ids[tt.actor], tt.post)
			if tt.wantCode == "" && err != nil || tt.wantCode != "" && !apperr.Is(err, tt.wantCode) {
				t.Errorf("%s: Delete = %v, want %q", tt.name, err, tt.wantCode)
			}
		})
	}
	for _, table := range []string{"comments", "reactions", "notifications", "post_mentions", "polls", "poll_options", "poll_votes"} {
		if n := count(t, db, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%d rows left in %s after the delete, want 0", n, table)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM posts`); n != 1 {
		t.Errorf("%d posts left, want 1 (the private one)", n)
	}
}

func TestVotePoll(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "erin")
	s := posts.NewStore(db, nil)
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	single, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "one", CreatedAt: &at,
		Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b", "c"}, ExpiresAt: ptr(at.Add(time.Hour))}})
	if err != nil {
		t.Fatal(err)
	}
	multi, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "many", Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b", "c"}, Multiple: true}})
	if err != nil {
		t.Fatal(err)
	}
	private, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "mine", Visibility: ptr("private"), Poll: &posts.NewPoll{Question: "?", Options: []string{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		post     int64
		voter    string
		choices  []int
		at       *time.Time
		wantCode apperr.Code
	}{
		{"single", single.ID, "bob", []int{2}, &at, ""},
		{"single again", single.ID, "carol", []int{2}, &at, ""},
		{"twice", single.ID, "bob", []int{1}, &at, apperr.ValidationFailed},
		{"two choices in a single-choice poll", single.ID, "erin", []int{0, 1}, &at, apperr.ValidationFailed},
		{"no such option", single.ID, "erin", []int{3}, &at, apperr.ValidationFailed},
		{"after expiry", single.ID, "erin", []int{0}, ptr(at.Add(2 * time.Hour)), apperr.ValidationFailed},
		{"multiple", multi.ID, "bob", []int{0, 2}, nil, ""},
		{"multiple again", multi.ID, "carol", []int{2}, nil, ""},
		{"invisible post", private.ID, "bob", []int{0}, nil, apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := posts.VotePollTx(ctx, db, tt.post, ids[tt.voter], tt.choices, tt.at)
			if tt.wantCode == "" && err != nil || tt.wantCode != "" && !apperr.Is(err, tt.wantCode) {
				t.Errorf("%s: VotePollTx = %v, want %q", tt.name, err, tt.wantCode)
			}
		})
	}
	type poll struct {
		Votes  int `db:"votes_count"`
		Voters int `db:"voters_count"`
	}
	for _, c := range []struct {
		post int64
		want poll
	}{{single.ID, poll{2, 2}}, {multi.ID, poll{3, 2}}} {
		t.Run(fmt.Sprint("post ", c.post), func(t *testing.T) {
			var got poll
			if err := db.Get(&got, `SELECT votes_count, voters_count FROM polls WHERE post_id = $1`, c.post); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("poll of post %d = %+v, want %+v", c.post, got, c.want)
			}
		})
	}
	ms, err := seed.CheckCounters(ctx, db)
	if err != nil || len(ms) > 0 {
		t.Errorf("CheckCounters = %v, %v, want no mismatches", ms, err)
	}
}

// TestReadBackPollAndMedia reads posts back as different viewers and checks
// the poll (options in order with their votes, the viewer's own choices)
// and the media (in the order written) against what was written, through
// the single post's statement and a list of several posts, each both with
// the static parts read alongside (no cache) and without them (cached).
func TestReadBackPollAndMedia(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	ids := pgtest.Members(t, db, "alice", "bob", "carol", "erin")
	s := posts.NewStore(db, nil)
	poll, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "many",
		Poll: &posts.NewPoll{Question: "which?", Options: []string{"c", "a", "b"}, Multiple: true}})
	if err != nil {
		t.Fatal(err)
	}
	media := []posts.Media{
		{Kind: "image", URL: "/media/2.png", Width: 2, Height: 2},
		{Kind: "video", URL: "/media/1.mp4", PreviewURL: ptr("/media/1.png"), Width: 1, Height: 1, Alt: ptr("one")},
		{Kind: "gif", URL: "/media/0.gif", Width: 3, Height: 3},
	}
	pics, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "pictures", Media: media})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := s.Create(ctx, ids["alice"], posts.NewPost{Body: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	for voter, choices := range map[string][]int{"bob": {2, 0}, "carol": {2}} {
		if err := posts.VotePollTx(ctx, db, poll.ID, ids[voter], choices, nil); err != nil {
			t.Fatal(err)
		}
	}
	urls, warm := apiurl.URLs{}, hydrate.NewCache(100)
	wantOptions := []gen.PollOption{{Index: 0, Title: "c", Votes: 1}, {Index: 1, Title: "a", Votes: 0}, {Index: 2, Title: "b", Votes: 2}}
	wantMedia := []gen.Media{
		{Kind: "image", URL: "/media/2.png", Width: 2, Height: 2},
		{Kind: "video", URL: "/media/1.mp4", PreviewURL: ptr("/media/1.png"), Width: 1, Height: 1, Alt: ptr("one")},
		{Kind: "gif", URL: "/media/0.gif", Width: 3, Height: 3},
	}
	for _, c := range []struct {
		viewer  string
		choices []int
	}{{"bob", []int{0, 2}}, {"carol", []int{2}}, {"erin", []int{}}, {"alice", []int{}}} {
		t.Run(c.viewer, func(t *testing.T) {
			// Without a cache the statements read the static parts too; the
			// cache, filled by the first round, leaves them the live parts.
			for round, cache := range []*hydrate.Cache{nil, warm, warm} {
				single, err := hydrate.NewGetter(cache, db, nil, hydrate.DefaultGetBatch).Get(ctx, ids[c.viewer], poll.ID)
				if err != nil {
					t.Fatal(err)
				}
				page, err := cache.Posts(ctx, db, ids[c.viewer], []int64{plain.ID, poll.ID, pics.ID})
				if err != nil {
					t.Fatal(err)
				}
				if len(page) != 3 {
					t.Fatalf("%s, round %d: a page of 3 posts read back %d", c.viewer, round, len(page))
				}
				for _, p := range []hydrate.Post{single, page[1]} {
					got := hydrate.PostAPI(urls, p).Poll
					if got == nil {
						t.Fatalf("%s: post %d has no poll", c.viewer, p.ID)
					}
					want := gen.PollViewer{Voted: len(c.choices) > 0, Choices: c.choices}
					if diff := cmp.Diff(wantOptions, got.Options); diff != "" || got.Question != "which?" || !got.Multiple ||
						got.VotesCount != 3 || got.VotersCount != 2 || !cmp.Equal(want, got.Viewer) {
						t.Errorf("%s: poll = %+v (options diff %s), want options %+v, 3 votes by 2, viewer %+v", c.viewer, got, diff, wantOptions, want)
					}
				}
				if got := hydrate.PostAPI(urls, page[2]).Media; !cmp.Equal(wantMedia, got) {
					t.Errorf("%s: media = %+v, want %+v", c.viewer, got, wantMedia)
				}
				for _, p := range []hydrate.Post{page[0], page[1]} {
					if got := hydrate.PostAPI(urls, p).Media; got == nil || len(got) != 0 {
						t.Errorf("%s: post %d has media %#v, want none (an empty list)", c.viewer, p.ID, got)
					}
				}
				if hydrate.PostAPI(urls, page[0]).Poll != nil {
					t.Errorf("%s: a plain post has a poll", c.viewer)
				}
			}
		})
	}
	if hits, _ := warm.Stats(); hits == 0 {
		t.Error("the cache was never used")
	}
}
