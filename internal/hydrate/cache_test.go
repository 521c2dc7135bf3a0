package hydrate_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/posts"
)

var testURLs = apiurl.URLs{Public: "https://social.example", API: "https://social.example/api/v1"}

// TestCachedEqualsUncached renders random pages of a synthetic network
// (media, polls, reactions, every visibility) and of posts with mentions for
// random viewers through a small cache, twice (misses, then hits and
// evictions), and through no cache: the API output must be identical.
func TestCachedEqualsUncached(t *testing.T) {
	t.Parallel()
	db := synthDB(t, 60, 3)
	ctx := context.Background()
	// A few posts with mentions, one of them of a member suspended since.
	var handles []string
	if err := db.SelectContext(ctx, &handles, `SELECT handle FROM members ORDER BY id LIMIT 3`); err != nil {
		t.Fatal(err)
	}
	var author int64
	if err := db.GetContext(ctx, &author, `SELECT id FROM members ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	ps := posts.NewStore(db, nil)
	for _, body := range []string{"hi @" + handles[0] + " and @" + handles[1], "@" + handles[2] + " #go", "no one"} {
		if _, err := ps.Create(ctx, author, posts.NewPost{Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	db.MustExec(`UPDATE members SET suspended_at = now() WHERE handle = $1`, handles[1])

	var ids, viewers []int64
	if err := db.SelectContext(ctx, &ids, `SELECT id FROM posts ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &viewers, `SELECT id FROM members ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	var counts struct {
		Polls    int `db:"polls"`
		Media    int `db:"media"`
		Mentions int `db:"mentions"`
	}
	if err := db.GetContext(ctx, &counts, `SELECT (SELECT count(*) FROM polls) AS polls,
		(SELECT count(DISTINCT post_id) FROM post_media) AS media, (SELECT count(*) FROM post_mentions) AS mentions`); err != nil {
		t.Fatal(err)
	}
	if counts.Polls == 0 || counts.Media == 0 || counts.Mentions < 3 {
		t.Fatalf("the data set lacks polls, media or mentions: %+v", counts)
	}
	var pollIDs, mentionIDs []int64
	if err := db.SelectContext(ctx, &pollIDs, `SELECT post_id FROM polls ORDER BY post_id LIMIT 20`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &mentionIDs, `SELECT DISTINCT post_id FROM post_mentions`); err != nil {
		t.Fatal(err)
	}

	cache := hydrate.NewCache(1000)
	var none *hydrate.Cache
	shown := 0
	for round := range 2 {
		r := rand.New(rand.NewPCG(1, 2)) // the same pages in both rounds
		for range 60 {
			viewer := viewers[r.IntN(len(viewers))]
			page := make([]int64, 20)
			for i := range page {
				page[i] = ids[r.IntN(len(ids))]
			}
			page = append(page, pollIDs[r.IntN(len(pollIDs))], mentionIDs[r.IntN(len(mentionIDs))])
			want, err := none.Posts(ctx, db, viewer, page)
			if err != nil {
				t.Fatal(err)
			}
			// Twice: the second read finds every static part cached.
			for read := range 2 {
				got, err := cache.Posts(ctx, db, viewer, page)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := hydrate.PostsAPI(testURLs, got), hydrate.PostsAPI(testURLs, want); !reflect.DeepEqual(g, w) {
					t.Fatalf("round %d, viewer %d, read %d: cached page differs from uncached:\n got %+v\nwant %+v", round, viewer, read, g, w)
				}
				if read == 0 {
					shown += len(got)
				}
			}
		}
	}
	if hits, misses := cache.Stats(); hits == 0 || misses == 0 || cache.Len() > 1000 {
		t.Errorf("cache: %d hits, %d misses, %d entries (max 1000)", hits, misses, cache.Len())
	}
	if shown == 0 {
		t.Fatal("no post was visible to anyone")
	}
}

// TestCacheNeverShowsWhatIsGone caches a followers-only post through its
// author and a follower, then checks that a stranger never sees it, that
// the follower stops seeing it on unfollowing and that nobody sees it once
// deleted: none of that is taken from the cache.
func TestCacheNeverShowsWhatIsGone(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "author", "follower", "stranger")
	fs := follows.NewStore(db)
	if _, _, err := fs.Toggle(ctx, id["follower"], "author"); err != nil {
		t.Fatal(err)
	}
	v := "followers"
	p, err := posts.NewStore(db, nil).Create(ctx, id["author"], posts.NewPost{Body: "for followers", Visibility: &v})
	if err != nil {
		t.Fatal(err)
	}
	cache := hydrate.NewCache(100)
	sees := func(who string) bool {
		t.Helper()
		_, err := hydrate.NewGetter(cache, db, nil, hydrate.DefaultGetBatch).Get(ctx, id[who], p.ID)
		if err != nil && !apperr.Is(err, apperr.NotFound) {
			t.Fatal(err)
		}
		list, lerr := cache.Posts(ctx, db, id[who], []int64{p.ID})
		if lerr != nil {
			t.Fatal(lerr)
		}
		if (err == nil) != (len(list) == 1) {
			t.Fatalf("%s: Get and Posts disagree", who)
		}
		return err == nil
	}
	if !sees("author") || !sees("follower") {
		t.Fatal("author or follower cannot see the post")
	}
	if cache.Len() != 1 {
		t.Fatalf("cache holds %d posts, want 1", cache.Len())
	}
	if sees("stranger") {
		t.Error("a stranger sees a followers-only post that is cached")
	}
	if _, _, err := fs.Toggle(ctx, id["follower"], "author"); err != nil {
		t.Fatal(err)
	}
	if sees("follower") {
		t.Error("an ex-follower still sees a cached followers-only post")
	}
	if err := posts.NewStore(db, nil).Delete(ctx, id["author"], p.ID); err != nil {
		t.Fatal(err)
	}
	if sees("author") {
		t.Error("a deleted post is still shown from the cache")
	}
}

// TestCacheBounded fills a cache far past its size.
func TestCacheBounded(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	writer := pgtest.Members(t, db, "writer")["writer"]
	var ids []int64
	for range 50 {
		p, err := posts.NewStore(db, nil).Create(ctx, writer, posts.NewPost{Body: "x"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	cache := hydrate.NewCache(10)
	for i := range ids {
		if _, err := cache.Posts(ctx, db, writer, ids[i:i+1]); err != nil {
			t.Fatal(err)
		}
		// The first post stays: every round looks it up again.
		if _, err := cache.Posts(ctx, db, writer, ids[:1]); err != nil {
			t.Fatal(err)
		}
		if n := cache.Len(); n > 10 {
			t.Fatalf("cache holds %d posts, max 10", n)
		}
	}
	before, _ := cache.Stats()
	if _, err := cache.Posts(ctx, db, writer, ids[:1]); err != nil {
		t.Fatal(err)
	}
	if after, _ := cache.Stats(); after != before+1 {
		t.Error("a post looked up on every round was evicted")
	}
}

// TestCacheReusedID resets a post under a cache that holds it (what a
// database reset under a running server does to post ids): the new post
// under the same id must be shown, not the cached one.
func TestCacheReusedID(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "first", "second")
	ids := []int64{id["first"], id["second"]}
	p, err := posts.NewStore(db, nil).Create(ctx, ids[0], posts.NewPost{Body: "old body"})
	if err != nil {
		t.Fatal(err)
	}
	cache := hydrate.NewCache(100)
	for i, read := range []func() (hydrate.Post, error){
		func() (hydrate.Post, error) {
			return hydrate.NewGetter(cache, db, nil, hydrate.DefaultGetBatch).Get(ctx, ids[1], p.ID)
		},
		func() (hydrate.Post, error) {
			ps, err := cache.Posts(ctx, db, ids[1], []int64{p.ID})
			if err != nil || len(ps) != 1 {
				t.Fatalf("Posts = %d posts, %v", len(ps), err)
			}
			return ps[0], nil
		},
	} {
		got, err := read()
		if err != nil {
			t.Fatal(err)
		}
		want := got.Body
		db.MustExec(`DELETE FROM posts WHERE id = $1`, p.ID)
		body := want + "!"
		// Each reuse an hour after the last: times are whole seconds, so
		// two within one second would be one post to the cache.
		db.MustExec(`INSERT INTO posts (id, author_id, body, visibility, created_at) OVERRIDING SYSTEM VALUE
		             VALUES ($1, $2, $3, 'public', date_trunc('second', now()) + $4 * interval '1 hour')`,
			p.ID, ids[1], body, i+1)
		if got, err = read(); err != nil || got.Body != body || got.Author.ID != ids[1] {
			t.Fatalf("after the id was reused: %q by %d (%v), want %q by %d", got.Body, got.Author.ID, err, body, ids[1])
		}
	}
}
