package hydrate

import (
	"sync"
	"sync/atomic"

	"github.com/socialnet/socialapi/internal/coalesce"
)

// DefaultCacheEntries is how many posts' static parts a Cache keeps unless
// told otherwise: about the newest posts of every member at the default
// benchmark scale (its memory: docs/performance-journal.md, "Post cache
// size").
const DefaultCacheEntries = 50_000

// Cache keeps the static part of posts (Static) in process, keyed by post
// id, so that a page reads only what changes (counters, the viewer's
// reaction, polls) and whether the viewer may see each post, and renders the
// rest from memory.
//
// It is safe across instances and without invalidation because a Static
// never changes once its post is committed: v1 has no post edit, media,
// tags and mentions are written with the post, and a member's handle, name,
// avatar and verified flag are written once, when the member is created (a
// fixture's suspensions are applied in the same transaction). Whether a post
// still exists and who may see it are never taken from the cache: every
// read decides them in SQL, so a deleted or hidden post is left out before
// its cached part is looked at. A change that makes any of those fields
// mutable must invalidate the cache (or stop caching that field).
//
// Memory is bounded by two generations of up to entries/2 each: lookups
// promote entries of the old generation into the current one, and when the
// current one is full it becomes the old one, dropping the previous old.
// A nil *Cache keeps nothing: every read fetches the static parts.
type Cache struct {
	mu       sync.RWMutex
	cur, old map[int64]*Static
	half     int

	hits, misses atomic.Int64

	// pool and pages: coalesced page reads (pages.go).
	pool  *coalesce.Pool
	pages sync.Map // pageGroupKey → *coalesce.Group[pageRead, []live]
}

// NewCache returns a Cache of at most entries posts (at least 2).
func NewCache(entries int) *Cache {
	half := max(entries/2, 1)
	return &Cache{cur: make(map[int64]*Static, half), old: map[int64]*Static{}, half: half}
}

// Stats returns how many lookups found their post and how many did not.
func (c *Cache) Stats() (hits, misses int64) {
	if c == nil {
		return 0, 0
	}
	return c.hits.Load(), c.misses.Load()
}

// lookup returns the cached static parts of ids, by id, and the ids c does
// not hold (a nil Cache: all of them), counting both in Stats.
func (c *Cache) lookup(ids []int64) (found map[int64]*Static, missing []int64) {
	if c == nil {
		return nil, ids
	}
	found = make(map[int64]*Static, len(ids))
	var promote map[int64]*Static
	c.mu.RLock()
	for _, id := range ids {
		if s, ok := c.cur[id]; ok {
			found[id] = s
		} else if s, ok := c.old[id]; ok {
			found[id] = s
			if promote == nil {
				promote = map[int64]*Static{}
			}
			promote[id] = s
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.RUnlock()
	for _, s := range found {
		if !s.reused.Load() { // a load keeps the hot entries' cache lines shared
			s.reused.Store(true)
		}
	}
	c.hits.Add(int64(len(ids) - len(missing)))
	c.misses.Add(int64(len(missing)))
	c.put(promote, false)
	return found, missing
}

// put adds ss (by post id) to the current generation; replace says whether
// they replace what c holds under the same ids.
func (c *Cache) put(ss map[int64]*Static, replace bool) {
	if c == nil || len(ss) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, s := range ss {
		if prev, ok := c.cur[id]; ok && (!replace || prev == s) {
			continue
		}
		if replace {
			delete(c.old, id)
		}
		if len(c.cur) >= c.half {
			c.old, c.cur = c.cur, make(map[int64]*Static, c.half)
		}
		c.cur[id] = s
	}
}

// Len returns how many posts c holds.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := len(c.cur)
	for id := range c.old {
		if _, ok := c.cur[id]; !ok {
			n++
		}
	}
	return n
}
