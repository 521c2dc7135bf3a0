package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

// get is what the tests look into a cache with: the value kept for key, if
// it is younger than the ttl.
func (c *ttlCache[K, V]) get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kept(key)
}

// TestMatchCache: within the ttl, a search keeps what a text matched (new
// matches are not found, totals may lag), yet never shows a member
// suspended, a suspended seller's listing, a job closed or a post deleted
// since, and applies who may see a post as it is now (a new follow shows
// the followers-only post at once), by words and by tag. After the ttl,
// everything is found afresh.
func TestMatchCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	ids := pgtest.Members(t, db, "viewer", "otter_a", "otter_b", "seller", "dodgy", "writer")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	listing := func(seller, title string) int64 {
		t.Helper()
		var id int64
		const q = `
			INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition, city, country)
			SELECT $1, id, $2, 'x', 100, 'EUR', 'good', 'Lyon', 'FR' FROM categories WHERE slug = 'books' RETURNING id`
		if err := db.Get(&id, q, ids[seller], title); err != nil {
			t.Fatal(err)
		}
		return id
	}
	job := func(title string) int64 {
		t.Helper()
		var id int64
		const q = `
			INSERT INTO jobs (title, company_name, workplace, employment_type, description, posted_at)
			VALUES ($1, 'Acme', 'remote', 'full_time', 'x', date_trunc('second', now())) RETURNING id`
		if err := db.Get(&id, q, title); err != nil {
			t.Fatal(err)
		}
		return id
	}
	post := func(author, vis, body string) int64 {
		t.Helper()
		var id int64
		const q = `INSERT INTO posts (author_id, body, visibility, tags) VALUES ($1, $2 || ' #riverlife', $3, '{riverlife}') RETURNING id`
		if err := db.Get(&id, q, ids[author], body, vis); err != nil {
			t.Fatal(err)
		}
		return id
	}
	lamp, book := listing("seller", "Otter lamp"), listing("dodgy", "Otter book")
	keeper, vet := job("Otter keeper"), job("Otter vet")
	first := post("writer", "public", "otter news")
	hidden := post("writer", "followers", "otter secret")
	mine := post("viewer", "private", "otter diary")
	post("writer", "private", "otter plans")

	s := NewStore(db).WithMatchCache(time.Minute)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	s.matches.now = func() time.Time { return clock }
	s.postMatches.now = s.matches.now
	s.matches.shorten = func() time.Duration { return 0 }
	s.postMatches.shorten = s.matches.shorten
	search := func(text string) Result {
		t.Helper()
		q, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, ids["viewer"], q, "", nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	type shown struct{ people, listings, jobs, posts []int64 }
	seen := func(r Result) shown {
		var out shown
		for _, p := range r.People {
			out.people = append(out.people, p.ID)
		}
		for _, l := range r.Listings {
			out.listings = append(out.listings, l.ID)
		}
		for _, j := range r.Jobs {
			out.jobs = append(out.jobs, j.ID)
		}
		for _, p := range r.Posts {
			out.posts = append(out.posts, p.ID)
		}
		for _, l := range [][]int64{out.people, out.listings, out.jobs} {
			slices.Sort(l)
		}
		return out
	}
	check := func(step string, r Result, want shown, totals Totals) {
		t.Helper()
		got := seen(r)
		if fmt.Sprint(got) != fmt.Sprint(want) || r.Totals != totals {
			t.Errorf("%s: shown %v, totals %+v; want %v, %+v", step, got, r.Totals, want, totals)
		}
	}

	check("first search", search("otter"),
		shown{[]int64{ids["otter_a"], ids["otter_b"]}, []int64{lamp, book}, []int64{keeper, vet}, []int64{mine, first}},
		Totals{People: 2, Listings: 2, Jobs: 2, Posts: 2})
	check("first search, tag", search("#riverlife"), shown{posts: []int64{mine, first}}, Totals{Posts: 2})

	// Changes after the first search: a match suspended, a seller
	// suspended, a job closed, a post deleted, the viewer following the
	// author of a followers-only post; a new member, listing, job and post.
	exec(`UPDATE members SET suspended_at = now() WHERE id = $1`, ids["otter_a"])
	exec(`UPDATE members SET suspended_at = now() WHERE id = $1`, ids["dodgy"])
	exec(`UPDATE jobs SET closed_at = now() WHERE id = $1`, vet)
	newcomer := pgtest.Members(t, db, "otter_c")["otter_c"]
	mug, trainer := listing("seller", "Otter mug"), job("Otter trainer")
	exec(`DELETE FROM posts WHERE id = $1`, first)
	if _, _, err := follows.NewStore(db).Toggle(ctx, ids["viewer"], "writer"); err != nil {
		t.Fatal(err)
	}
	second := post("writer", "public", "more otter news")

	clock = clock.Add(59 * time.Second)
	check("within the ttl", search("otter"),
		shown{[]int64{ids["otter_b"]}, []int64{lamp}, []int64{keeper}, []int64{mine, hidden}},
		Totals{People: 2, Listings: 2, Jobs: 2, Posts: 3})
	check("within the ttl, tag", search("#riverlife"), shown{posts: []int64{mine, hidden}}, Totals{Posts: 3})

	clock = clock.Add(time.Second)
	check("after the ttl", search("otter"),
		shown{[]int64{ids["otter_b"], newcomer}, []int64{lamp, mug}, []int64{keeper, trainer}, []int64{second, mine, hidden}},
		Totals{People: 2, Listings: 2, Jobs: 2, Posts: 3})
	check("after the ttl, tag", search("#riverlife"), shown{posts: []int64{second, mine, hidden}}, Totals{Posts: 3})
}

// TestMatchCacheBounded: the cache never holds more than matchCacheEntries
// texts, drops expired entries first, and tells keyset positions apart.
func TestMatchCacheBounded(t *testing.T) {
	t.Parallel()
	c := newTTLCache[matchKey, matchResult](time.Minute, matchCacheEntries)
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return clock }
	c.shorten = func() time.Duration { return 0 }
	for i := range 3 * matchCacheEntries {
		c.put(cacheKey(Listings, fmt.Sprint(i), "", nil, 5), matchResult{total: i})
		if len(c.m) > matchCacheEntries {
			t.Fatalf("after %d puts the cache holds %d entries", i+1, len(c.m))
		}
	}
	if r, ok := c.get(cacheKey(Listings, fmt.Sprint(3*matchCacheEntries-1), "", nil, 5)); !ok || r.total != 3*matchCacheEntries-1 {
		t.Errorf("the newest entry is gone (%v, %d)", ok, r.total)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6789, time.FixedZone("x", 3600))
	a := cacheKey(Jobs, "x", "", &cursor.Position{Time: at, ID: 9, Rank: 0.5}, 5)
	c.put(a, matchResult{hits: []hit{{ID: 9}}, total: 1})
	same := cacheKey(Jobs, "x", "", &cursor.Position{Time: at.UTC().Truncate(time.Microsecond), ID: 9, Rank: 0.5}, 5)
	if _, ok := c.get(same); !ok {
		t.Error("the same position, in another zone, misses")
	}
	for _, other := range []matchKey{
		cacheKey(Jobs, "x", "", nil, 5), cacheKey(Jobs, "x", "", &cursor.Position{Time: at, ID: 8, Rank: 0.5}, 5),
		cacheKey(Jobs, "x", "", &cursor.Position{Time: at, ID: 9, Rank: 0.5}, 6), cacheKey(Listings, "x", "", &cursor.Position{Time: at, ID: 9, Rank: 0.5}, 5),
	} {
		if _, ok := c.get(other); ok {
			t.Errorf("%+v hits the entry of %+v", other, a)
		}
	}
	clock = clock.Add(time.Minute)
	if _, ok := c.get(same); ok {
		t.Error("an entry as old as the ttl is still served")
	}
	c.put(cacheKey(People, "fresh", "", nil, 5), matchResult{})
	if len(c.m) > matchCacheEntries {
		t.Errorf("%d entries", len(c.m))
	}
}

// TestMatchCacheLoad: concurrent loads of one key run one read and share its
// answer; a failed read is not shared (each waiter reads for itself) nor
// kept; entries live between 80 % and 100 % of the ttl.
func TestMatchCacheLoad(t *testing.T) {
	t.Parallel()
	c := newTTLCache[string, int](time.Minute, 16)
	var reads atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.load(context.Background(), "k", func() (int, error) {
				reads.Add(1)
				<-release
				return 42, nil
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	// Every load but the reading one is waiting once loading holds the key
	// and the reader has started.
	for reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("8 concurrent loads read %d times, want 1", n)
	}
	for i, v := range got {
		if v != 42 {
			t.Errorf("load %d = %d, want 42", i, v)
		}
	}

	boom := errors.New("boom")
	if _, err := c.load(context.Background(), "bad", func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed load = %v, want boom", err)
	}
	if v, err := c.load(context.Background(), "bad", func() (int, error) { return 7, nil }); err != nil || v != 7 {
		t.Fatalf("load after a failure = %d, %v; want 7 read afresh", v, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	hold := make(chan struct{})
	go func() {
		_, _ = c.load(context.Background(), "slow", func() (int, error) { <-hold; return 1, nil })
	}()
	for {
		c.mu.Lock()
		_, busy := c.loading["slow"]
		c.mu.Unlock()
		if busy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if _, err := c.load(ctx, "slow", func() (int, error) { return 2, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter whose request ended = %v, want context.Canceled", err)
	}
	close(hold)

	for range 1000 {
		if d := c.shorten(); d < 0 || d > time.Minute/5 {
			t.Fatalf("an entry lives %v less than the ttl, want at most a fifth", d)
		}
	}
}
