package hydrate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/posts"
)

// TestBatchedGetMatchesGet reads batches of random (viewer, post) pairs of
// a synthetic network (every visibility, polls with votes, media,
// reactions), with repeats and a post that does not exist, in one
// statement each, with and without a cache, and holds every answer to the
// post read alone for that viewer: the same post, or none when it may not
// be seen.
func TestBatchedGetMatchesGet(t *testing.T) {
	t.Parallel()
	db := synthDB(t, 60, 5)
	ctx := context.Background()
	var ids, viewers, pollIDs []int64
	if err := db.SelectContext(ctx, &ids, `SELECT id FROM posts ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &viewers, `SELECT id FROM members ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &pollIDs, `SELECT post_id FROM polls p WHERE EXISTS (SELECT 1 FROM poll_votes v WHERE v.poll_id = p.id)`); err != nil {
		t.Fatal(err)
	}
	if len(pollIDs) == 0 {
		t.Fatal("no poll with votes in the data set")
	}
	var reactions []struct {
		Member int64 `db:"member_id"`
		Post   int64 `db:"post_id"`
	}
	if err := db.SelectContext(ctx, &reactions, `SELECT member_id, post_id FROM reactions ORDER BY post_id, member_id`); err != nil {
		t.Fatal(err)
	}
	if len(reactions) == 0 {
		t.Fatal("no reaction in the data set")
	}
	var none *hydrate.Cache
	cache := hydrate.NewCache(1000)
	r := rand.New(rand.NewPCG(3, 4))
	shown, hidden, polls, reacted := 0, 0, 0, 0
	for round := range 4 {
		c := none
		if round >= 2 {
			c = cache // misses, then hits
		}
		g := hydrate.NewGetter(c, db, coalesce.NewPool(1), 64)
		keys := make([][3]int64, 0, 48)
		for range 40 {
			keys = append(keys, [3]int64{viewers[r.IntN(len(viewers))], ids[r.IntN(len(ids))], 0})
		}
		for range 4 {
			keys = append(keys, [3]int64{viewers[r.IntN(len(viewers))], pollIDs[r.IntN(len(pollIDs))], 0})
		}
		for range 4 { // the reader's own reaction
			x := reactions[r.IntN(len(reactions))]
			keys = append(keys, [3]int64{x.Member, x.Post, 0})
		}
		keys = append(keys, keys[3], keys[7], [3]int64{viewers[0], ids[len(ids)-1] + 1000, 0})
		got, err := g.Many(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("%d answers for %d reads", len(got), len(keys))
		}
		for i, k := range keys {
			want, err := none.Posts(ctx, db, k[0], []int64{k[1]})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				hidden++
				if got[i].Static != nil {
					t.Errorf("round %d: viewer %d was shown post %d, which it may not see alone", round, k[0], k[1])
				}
				continue
			}
			shown++
			if got[i].Static == nil {
				t.Errorf("round %d: viewer %d was not shown post %d", round, k[0], k[1])
				continue
			}
			if got[i].Poll != nil {
				polls++
			}
			if got[i].ViewerReaction != nil {
				reacted++
			}
			if g, w := hydrate.PostAPI(testURLs, got[i]), hydrate.PostAPI(testURLs, want[0]); !reflect.DeepEqual(g, w) {
				t.Errorf("round %d: viewer %d, post %d: batched read differs:\n got %+v\nwant %+v", round, k[0], k[1], g, w)
			}
		}
	}
	if shown == 0 || hidden < 4 || polls == 0 || reacted == 0 {
		t.Errorf("the batches showed %d posts (%d polls, %d with the reader's reaction) and hid %d: too few of one kind to tell", shown, polls, reacted, hidden)
	}
}

// TestBatchedGetChecksEachToken: in one batch, the read under a token that
// no longer counts finds nothing while the others are answered.
func TestBatchedGetChecksEachToken(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "author", "kept", "revoked")
	p, err := posts.NewStore(db, nil).Create(ctx, id["author"], posts.NewPost{Body: "public"})
	if err != nil {
		t.Fatal(err)
	}
	tokens := keptAndRevoked(t, db)
	got, err := hydrate.NewGetter(nil, db, coalesce.NewPool(1), 64).Many(ctx, [][3]int64{
		{id["kept"], p.ID, tokens["kept"]}, {id["revoked"], p.ID, tokens["revoked"]}, {id["revoked"], p.ID, 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Static == nil || got[1].Static != nil || got[2].Static == nil {
		t.Errorf("shown: valid token %v, revoked token %v, no check %v; want true, false, true",
			got[0].Static != nil, got[1].Static != nil, got[2].Static != nil)
	}
}

// TestConcurrentGetsMatchAlone runs many single-post reads at once through
// a Getter of one slot, so that most wait and are coalesced: each must get
// what it gets alone.
func TestConcurrentGetsMatchAlone(t *testing.T) {
	t.Parallel()
	db := synthDB(t, 40, 6)
	ctx := context.Background()
	var ids, viewers []int64
	if err := db.SelectContext(ctx, &ids, `SELECT id FROM posts ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if err := db.SelectContext(ctx, &viewers, `SELECT id FROM members ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	g := hydrate.NewGetter(hydrate.NewCache(1000), db, coalesce.NewPool(1), 16)
	var none *hydrate.Cache
	r := rand.New(rand.NewPCG(5, 6))
	type read struct{ viewer, id int64 }
	reads := make([]read, 400)
	for i := range reads {
		reads[i] = read{viewers[r.IntN(len(viewers))], ids[r.IntN(len(ids))]}
	}
	got := make([]*hydrate.Post, len(reads))
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(reads); i += 32 {
				p, err := g.Get(ctx, reads[i].viewer, reads[i].id)
				if err != nil && !apperr.Is(err, apperr.NotFound) {
					t.Error(err)
					return
				}
				if err == nil {
					got[i] = &p
				}
			}
		}()
	}
	wg.Wait()
	for i, rd := range reads {
		want, err := none.Posts(ctx, db, rd.viewer, []int64{rd.id})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(want) == 0 && got[i] != nil:
			t.Errorf("viewer %d was shown post %d, which it may not see", rd.viewer, rd.id)
		case len(want) == 1 && got[i] == nil:
			t.Errorf("viewer %d was not shown post %d", rd.viewer, rd.id)
		case len(want) == 1 && !reflect.DeepEqual(hydrate.PostAPI(testURLs, *got[i]), hydrate.PostAPI(testURLs, want[0])):
			t.Errorf("viewer %d, post %d: concurrent read differs from a lone one", rd.viewer, rd.id)
		}
	}
	if st, batched := g.Stats(); batched == 0 {
		t.Logf("no read was coalesced (%d statements)", st)
	} else {
		t.Logf("%d reads coalesced into %d statements", batched, st)
	}
}

// TestBatchedPagesCheckEachToken: in one coalesced page statement, the read
// under a token that no longer counts gets no rows while the others get
// theirs.
func TestBatchedPagesCheckEachToken(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	id := pgtest.Members(t, db, "author", "kept", "revoked")
	if _, err := posts.NewStore(db, nil).Create(ctx, id["author"], posts.NewPost{Body: "public"}); err != nil {
		t.Fatal(err)
	}
	tokens := keptAndRevoked(t, db)
	const pageSQL = `SELECT p.id, p.created_at FROM posts p WHERE p.author_id <> $1 ORDER BY p.created_at DESC, p.id DESC LIMIT $2`
	for _, statics := range []hydrate.Statics{hydrate.FromCache, hydrate.WithPage} {
		t.Run(fmt.Sprintf("with page %v", bool(statics)), func(t *testing.T) {
			got, err := hydrate.PageBatch(ctx, db, statics, pageSQL,
				[][]any{{id["kept"], 21}, {id["revoked"], 21}, {id["revoked"], 21}}, []int64{tokens["kept"], tokens["revoked"], 0})
			if err != nil {
				t.Fatal(err)
			}
			if want := []int{1, 0, 1}; !reflect.DeepEqual(got, want) {
				t.Errorf("rows per read (valid token, revoked token, no check): %v, want %v", got, want)
			}
		})
	}
}

// keptAndRevoked gives members kept and revoked a token each and revokes
// the second: their token ids, by handle.
func keptAndRevoked(t *testing.T, db *sqlx.DB) map[string]int64 {
	t.Helper()
	st := auth.NewStore(db, time.Now)
	tokens := map[string]int64{}
	for _, h := range []string{"kept", "revoked"} {
		tk, _, err := st.Create(context.Background(), auth.NewToken{Handle: h, Scope: auth.ScopeRead})
		if err != nil {
			t.Fatal(err)
		}
		tokens[h] = tk.ID
	}
	db.MustExec(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, tokens["revoked"])
	return tokens
}
