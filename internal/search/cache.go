package search

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/visibility"
)

// DefaultMatchTTL is how long a search keeps what a text matched
// (SEARCH_CACHE_TTL; documented in openapi.yaml).
const DefaultMatchTTL = 10 * time.Second

// What a search keeps, for the ttl, so that a text searched again within it
// costs no walk:
//
//   - of listings and jobs, whose matches do not depend on who searches,
//     and of people, whose matches depend only on the members people
//     search hides from the caller (hiding.people), the page of matches and
//     the total of each ask (matchKey);
//   - of posts, the newest postCandidates matches of a text (words every
//     match carries, or tags) whoever may see them (postMatches); each
//     search filters them for its caller, with the members the caller
//     follows and those the caller's streams hide at the time of the
//     search, exactly as the walk's visibility rule would
//     (postMatches.pageFor).
//
// Only ids, sort keys and totals are kept. The items shown are read afresh
// on every search, and that read re-checks what the walk checked (posts
// their existence and visibility, Profiles suspended members, Store.side
// suspended sellers' listings and closed and expired jobs): a kept match can
// make a new item appear, or a total or an order change, up to the ttl
// late, never show what may no longer be shown.

// matchCacheEntries bounds the asks kept: an entry holds at most a page and
// one more hit (101 of 40 bytes), so about 8 MB when full of the largest
// pages, and a few hundred kilobytes for the usual first pages.
const matchCacheEntries = 2048

// matchKey is one ask for the matches of a kind: the text as that kind
// reads it, for people the digest of the members people search hides from
// the caller (hiding.people; "" for the other kinds, whose matches do not
// depend on the caller), the keyset position after which the page starts
// (the zero Position for the first), and the page's length (0: only the
// total).
type matchKey struct {
	kind   Kind
	text   string
	hidden string
	after  cursor.Position
	limit  int
}

func cacheKey(k Kind, text, hidden string, after *cursor.Position, limit int) matchKey {
	key := matchKey{kind: k, text: text, hidden: hidden, limit: limit}
	if after != nil {
		// The position as the cursor carries it: microseconds, no location.
		key.after = cursor.Position{Time: after.Time.UTC().Truncate(time.Microsecond), ID: after.ID, Rank: after.Rank}
	}
	return key
}

// matchResult is the answer to a matchKey.
type matchResult struct {
	hits  []hit
	total int
}

// postCandidates is how many of the newest matches of a text, whoever may
// see them, are kept for posts: with three posts in four public (the
// benchmark's data), enough for any caller to find the MatchCap they may
// see. A caller who finds fewer among them, while older matches exist, is
// searched by the walk instead.
const postCandidates = 1500

// postCacheEntries bounds the texts whose post matches are kept: at most
// postCandidates × 52 bytes each (a candidate and its place in byRank), so
// about 20 MB when full.
const postCacheEntries = 256

// candidate is a post matching a text, with what the visibility rule reads.
type candidate struct {
	id, author int64
	at         int64 // unix microseconds, as PostgreSQL keeps it
	rank       float64
	vis        string // one of visibilities' strings, shared by every candidate
}

// visibilities are the values of posts.visibility, so that kept candidates
// share three strings rather than hold one each.
var visibilities = []string{"public", "followers", "private"}

// postMatches are the newest matches of a text, newest first.
type postMatches struct {
	list []candidate
	// byRank holds the indexes of list in the order a page lists them (rank,
	// then time, then id, all descending), sorted once when the matches are
	// kept: a search then walks it for its page instead of sorting the
	// caller's matches (a thousand for a common word) on every request.
	byRank []int32
	// complete: no older match exists.
	complete bool
	// followersOnly: some match is for the author's followers.
	followersOnly bool
}

// newPostMatches keeps list, the newest matches of a text (newest first);
// complete says that no older one exists.
func newPostMatches(list []candidate, complete bool) *postMatches {
	m := &postMatches{list: list, byRank: make([]int32, len(list)), complete: complete}
	for i, c := range list {
		m.byRank[i] = int32(i)
		m.followersOnly = m.followersOnly || c.vis == "followers"
	}
	slices.SortFunc(m.byRank, func(a, b int32) int { return compare(list[b].hit(), list[a].hit()) })
	return m
}

// hit is c as a page lists it.
func (c *candidate) hit() hit { return hit{ID: c.id, At: time.UnixMicro(c.at).UTC(), Rank: c.rank} }

// pageFor is what Store.hits returns for the caller viewerID, who follows
// the members followees (ascending; read only when followersOnly) and whose
// streams hide the authors hidden: the caller's matches are the newest
// MatchCap candidates they may see (visibility.Sees), ranked and paged as
// the function page does. ok is
// false when the caller may see fewer than MatchCap of them and older
// matches exist: the caller must be walked instead.
//
// The matches are never collected: a first pass over the candidates, newest
// first, counts them and finds the id of the oldest (floor); a second walks
// byRank from the position after, and takes the first limit candidates the
// caller may see at or above floor.
func (m *postMatches) pageFor(viewerID int64, followees []int64, hidden visibility.Hidden, after *cursor.Position, limit int) (hits []hit, total int, ok bool) {
	follows := func(author int64) bool { _, found := slices.BinarySearch(followees, author); return found }
	floor := int64(0)
	for i := range m.list {
		c := &m.list[i]
		if visibility.Sees(c.vis, c.author, viewerID, follows, hidden) {
			total++
			if total == MatchCap {
				floor = c.id
				break
			}
		}
	}
	if total < MatchCap && !m.complete {
		return nil, 0, false
	}
	rest := m.byRank
	if after != nil {
		// The first candidate that ranks below the position.
		pos := hit{ID: after.ID, At: after.Time, Rank: after.Rank}
		i, _ := slices.BinarySearchFunc(rest, pos, func(j int32, pos hit) int {
			if compare(m.list[j].hit(), pos) >= 0 {
				return -1
			}
			return 1
		})
		rest = rest[i:]
	}
	hits = make([]hit, 0, min(limit, total))
	for _, j := range rest {
		if len(hits) == limit {
			break
		}
		c := &m.list[j]
		if c.id >= floor && visibility.Sees(c.vis, c.author, viewerID, follows, hidden) {
			hits = append(hits, c.hit())
		}
	}
	return hits, total, true
}

// ttlCache keeps values for ttl, at most max of them. When full, an insert
// first drops the expired entries, then, if that was not enough, an
// arbitrary quarter (Go's map order): cheap, and the hot keys, asked again
// at once, come back.
//
// A popular text expires while many searches ask for it: load lets one of
// them read it and the others wait for that read, rather than every one of
// them walk the index at once. And entries kept at the same moment (a
// server's first seconds) would expire at the same moment, every ttl, all
// together: each entry's life is shortened by up to a fifth, at random
// (docs/performance-journal.md, "Search cache").
type ttlCache[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time
	// shorten returns how much shorter than the ttl an entry lives (tests
	// make it 0).
	shorten func() time.Duration
	mu      sync.Mutex
	m       map[K]ttlEntry[V]
	loading map[K]*flight[V]
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

// flight is a load under way: done closes when v and err are set.
type flight[V any] struct {
	done chan struct{}
	v    V
	err  error
}

func newTTLCache[K comparable, V any](ttl time.Duration, max int) *ttlCache[K, V] {
	c := &ttlCache[K, V]{ttl: ttl, max: max, now: time.Now, m: make(map[K]ttlEntry[V]), loading: make(map[K]*flight[V])}
	// Up to a fifth of the ttl: see ttlCache.
	c.shorten = func() time.Duration { return time.Duration(rand.Int64N(int64(ttl)/5 + 1)) }
	return c
}

// load returns the value kept for key or, when there is none, the value
// fn reads, which it keeps. While fn runs for a key, other loads of that
// key wait for its answer (or for their ctx); if it fails, each of them runs
// fn itself, so one caller's cancelled request fails no other.
func (c *ttlCache[K, V]) load(ctx context.Context, key K, fn func() (V, error)) (V, error) {
	c.mu.Lock()
	if v, ok := c.kept(key); ok {
		c.mu.Unlock()
		return v, nil
	}
	if f, ok := c.loading[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			if f.err == nil {
				return f.v, nil
			}
			return fn()
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	f := &flight[V]{done: make(chan struct{})}
	c.loading[key] = f
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.loading, key)
		c.mu.Unlock()
		close(f.done)
	}()
	f.v, f.err = fn()
	if f.err == nil {
		c.put(key, f.v)
	}
	return f.v, f.err
}

// kept returns the value kept for key, if it is younger than the ttl; the
// caller holds c.mu and must not change the value.
func (c *ttlCache[K, V]) kept(key K) (V, bool) {
	e, ok := c.m[key]
	if !ok || !c.now().Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put keeps v for key.
func (c *ttlCache[K, V]) put(key K, v V) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		drop := len(c.m) - c.max*3/4
		for k := range c.m {
			if drop <= 0 {
				break
			}
			delete(c.m, k)
			drop--
		}
	}
	c.m[key] = ttlEntry[V]{v: v, expires: now.Add(c.ttl - c.shorten())}
}

// wordsCacheEntries bounds the texts whose words are kept.
const wordsCacheEntries = 4096

// wordsCache keeps how PostgreSQL reads a search text (Store.words), which
// depends on nothing but the text, so a repeated text costs no statement.
type wordsCache struct {
	mu sync.Mutex
	m  map[string]words
}

func (c *wordsCache) get(text string) (words, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.m[text]
	return w, ok
}

func (c *wordsCache) put(text string, w words) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= wordsCacheEntries {
		c.m = make(map[string]words)
	}
	c.m[text] = w
}
