package feed

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/synth"
)

var testURLs = apiurl.URLs{Public: "https://social.example", API: "https://social.example/api/v1"}

// page is one page of a walk: its posts as the API renders them, and the
// position of the next.
type page struct {
	posts any
	next  *cursor.Position
}

// walk pages through a feed and returns every page.
func walk(ctx context.Context, list func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error), viewer int64, perPage int) ([]page, error) {
	var out []page
	var after *cursor.Position
	for len(out) < 200 {
		ps, next, err := list(ctx, viewer, after, perPage)
		if err != nil {
			return nil, err
		}
		out = append(out, page{hydrate.PostsAPI(testURLs, ps), next})
		if next == nil {
			break
		}
		after = next
	}
	return out, nil
}

// TestCoalescedPagesMatchAlone walks the home feed and discover of many
// members of a synthetic network (every visibility, polls, media,
// reactions) at once, through a cache whose page reads coalesce on a pool
// of one slot, so that most reads share statements with other members'
// reads of the same page statement (first pages, pages after a cursor):
// every page must be the one the member reads alone, cursor included.
func TestCoalescedPagesMatchAlone(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	cfg := synth.Config{Scale: synth.ForMembers(40), Seed: 9, Now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := synth.Generate(ctx, db.DB, cfg); err != nil {
		t.Fatal(err)
	}
	var viewers []int64
	if err := db.SelectContext(ctx, &viewers, `SELECT id FROM members ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	alone := NewStore(db)
	cache := hydrate.NewCache(2000).CoalescePages(coalesce.NewPool(1))
	together := NewStore(db).WithCache(cache)
	type walkOf struct {
		name  string
		list  func(*Store) func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error)
		per   int
		viewr int64
	}
	r := rand.New(rand.NewPCG(9, 10))
	var walks []walkOf
	for _, v := range viewers {
		per := 3 + r.IntN(8)
		walks = append(walks,
			walkOf{"home", func(s *Store) func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error) {
				return s.Home
			}, per, v},
			walkOf{"discover", func(s *Store) func(context.Context, int64, *cursor.Position, int) ([]hydrate.Post, *cursor.Position, error) {
				return s.Discover
			}, 20, v})
	}
	want := make([][]page, len(walks))
	for i, w := range walks {
		var err error
		if want[i], err = walk(ctx, w.list(alone), w.viewr, w.per); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][]page, len(walks))
	var wg sync.WaitGroup
	for k := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(walks); i += 16 {
				var err error
				if got[i], err = walk(ctx, walks[i].list(together), walks[i].viewr, walks[i].per); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	pages := 0
	for i, w := range walks {
		pages += len(want[i])
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s of member %d, %d a page: coalesced walk differs from the walk alone (%d pages, want %d)",
				w.name, w.viewr, w.per, len(got[i]), len(want[i]))
		}
	}
	statements, reads := cache.CoalescedPages()
	t.Logf("%d pages; %d page reads coalesced into %d statements", pages, reads, statements)
	if reads <= statements {
		t.Errorf("%d reads in %d coalesced statements: the walks never shared one, so this test checked nothing", reads, statements)
	}
}
