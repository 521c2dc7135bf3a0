package search

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/pg"
)

// Store searches.
type Store struct {
	db *sqlx.DB
	// prep runs the statements whose plan does not depend on how common the
	// searched words are; the post windows are planned for their bounds
	// each time.
	prep *pg.Prepared
	// scan is how many of the newest post ids the first window of
	// postWindows reads (scanWindow; tests make it small).
	scan  int64
	posts *hydrate.Cache
	// matches and postMatches keep what texts matched for a short time
	// (nil: never; cache.go); candidates is how many post matches a text
	// keeps (postCandidates; tests make it small). lexemes keeps how texts
	// read.
	matches     *ttlCache[matchKey, matchResult]
	postMatches *ttlCache[string, *postMatches]
	candidates  int
	lexemes     wordsCache
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store {
	return &Store{db: db, prep: pg.NewPrepared(db), scan: scanWindow, candidates: postCandidates}
}

// WithCache makes s keep the static parts of the posts it shows in c.
func (s *Store) WithCache(c *hydrate.Cache) *Store { s.posts = c; return s }

// WithMatchCache makes s keep what texts matched for ttl (cache.go).
func (s *Store) WithMatchCache(ttl time.Duration) *Store {
	if ttl > 0 {
		s.matches = newTTLCache[matchKey, matchResult](ttl, matchCacheEntries)
		s.postMatches = newTTLCache[string, *postMatches](ttl, postCacheEntries)
	}
	return s
}

// Totals counts the matches of each kind that the caller may see.
type Totals struct {
	People   int `db:"people"`
	Posts    int `db:"posts"`
	Listings int `db:"listings"`
	Jobs     int `db:"jobs"`
}

// Result is one search: the matches of the kinds searched, hydrated, in
// rank order.
type Result struct {
	People   []hydrate.Profile
	Posts    []hydrate.Post
	Listings []Listing
	Jobs     []Job
	Totals   Totals
	// Next is the position of the last match when another page follows
	// (only when one kind was searched).
	Next *cursor.Position
}

// MatchCap is how many matches of posts, listings and jobs a search ranks
// and counts: the newest posts, the listings and jobs with the highest ids
// (documented in openapi.yaml). With it, the cost of a search is that of
// its 1,000 matches, not that of every match scattered over the table.
const MatchCap = 1000

// Search returns, for viewerID, the first perPage matches of q of every kind
// (kind ""), or one page of one kind after the position after (nil: from the
// best match), with the totals of every kind.
//
// Every kind is asked for its total, and the kinds searched for their page.
// With matches kept for every caller (cache.go), the members the caller's
// reads hide are read first (hiding). Posts kept for every caller
// (keepsPosts) are filtered last, with those and the caller's followees,
// which are read in the same statement as the listings and jobs shown
// (side); then the posts and the people shown are read. A search whose
// matches are all kept thus costs at most four statements, and, without
// followers-only matches, listings or jobs to show, fewer.
func (s *Store) Search(ctx context.Context, viewerID int64, q Query, kind Kind, after *cursor.Position, perPage int) (Result, error) {
	res := Result{People: []hydrate.Profile{}, Posts: []hydrate.Post{}, Listings: []Listing{}, Jobs: []Job{}}
	limit := perPage
	if kind != "" {
		limit = perPage + 1
	}
	w, err := s.words(ctx, q)
	if err != nil {
		return Result{}, err
	}
	var hid hiding
	if s.matches != nil {
		if hid, err = s.hiding(ctx, viewerID); err != nil {
			return Result{}, err
		}
	}
	var people, posts, listings, jobs []int64
	var kept *postMatches
	var keptAfter *cursor.Position
	keptLimit := 0
	for _, k := range Kinds {
		kAfter, kLimit := after, limit
		if kind != "" && k != kind {
			kAfter, kLimit = nil, 0 // its total only
		}
		if k == Posts && s.keepsPosts(q, w) {
			if kept, err = s.keptPosts(ctx, q, w); err != nil {
				return Result{}, err
			}
			keptAfter, keptLimit = kAfter, kLimit
			continue
		}
		hits, total, err := s.cachedHits(ctx, k, viewerID, hid, q, w, kAfter, kLimit)
		if err != nil {
			return Result{}, err
		}
		ids := res.take(k, hits, total, perPage)
		switch k {
		case People:
			people = ids
		case Posts:
			posts = ids
		case Listings:
			listings = ids
		default:
			jobs = ids
		}
	}
	var followees []int64
	if withFollowees := kept != nil && kept.followersOnly; withFollowees || len(listings) > 0 || len(jobs) > 0 {
		sd, err := s.side(ctx, viewerID, withFollowees, listings, jobs)
		if err != nil {
			return Result{}, err
		}
		followees, res.Listings, res.Jobs = sd.followees, sd.listings, sd.jobs
	}
	if kept != nil {
		hits, total, err := s.keptPostHits(ctx, kept, followees, viewerID, hid.stream, q, w, keptAfter, keptLimit)
		if err != nil {
			return Result{}, err
		}
		posts = res.take(Posts, hits, total, perPage)
	}
	if len(posts) > 0 {
		if res.Posts, err = s.posts.Posts(ctx, s.prep, viewerID, posts); err != nil {
			return Result{}, err
		}
	}
	if len(people) > 0 {
		if res.People, err = hydrate.Profiles(ctx, s.prep, viewerID, people); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// take counts total matches of kind k in r and, when hits holds more than
// perPage of them (one kind searched, and a next page follows), sets the
// position of the last shown; it returns the ids of the hits shown.
func (r *Result) take(k Kind, hits []hit, total, perPage int) []int64 {
	r.Totals.set(k, total)
	hits, next := cursor.Trim(hits, perPage)
	if next != nil {
		r.Next = next
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func (t *Totals) set(k Kind, n int) {
	switch k {
	case People:
		t.People = n
	case Posts:
		t.Posts = n
	case Listings:
		t.Listings = n
	default:
		t.Jobs = n
	}
}
