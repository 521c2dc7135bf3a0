package search

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
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

// hit is one match chosen for a page: its id and its sort key.
type hit struct {
	ID   int64     `db:"id"`
	At   time.Time `db:"at"`
	Rank float64   `db:"rank"`
}

// compare orders hits as a page lists them reversed: by rank, then time,
// then id, as SQL's row comparison (rank, at, id) does.
func compare(a, b hit) int {
	if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// pageRow is a row of pageQuery or of a walk: the total on every row, and
// one match, or none (nulls) when the page is empty.
type pageRow struct {
	ID    *int64     `db:"id"`
	At    *time.Time `db:"at"`
	Rank  *float64   `db:"rank"`
	Total int        `db:"total"`
}

// words is a search text as the full-text kinds read it: the lexemes a walk
// looks up in the kind's search_keys index, and how (keys: keysAll, every
// match carries all of them; keysAny, at least one). No keys: the text may
// match a row without any of its lexemes ("-tea"), unless it has no lexeme
// at all (none: a text of punctuation, which matches nothing).
type words struct {
	lexemes []string
	keys    string
	none    bool
}

// walks says whether the matches of w are found by a walk of the kind's
// search_keys index.
func (w words) walks() bool { return w.keys != "" }

// words reads the text of q as websearch_to_tsquery does.
func (s *Store) words(ctx context.Context, q Query) (words, error) {
	if w, ok := s.lexemes.get(q.Text); ok {
		return w, nil
	}
	var tsq string
	if err := sqlx.GetContext(ctx, s.prep, &tsq, `SELECT websearch_to_tsquery('simple', $1)::text`, q.Text); err != nil {
		return words{}, pg.Classify(ctx, fmt.Errorf("search: read the text: %w", err))
	}
	w := wordsOf(tsqueryShape(tsq))
	s.lexemes.put(q.Text, w)
	return w, nil
}

// wordsOf is how the walks look up a query of the shape sh: by the lexemes
// every match contains when there are any, else by those of which each
// match contains one.
func wordsOf(sh shape) words {
	switch {
	case sh.open:
		return words{}
	case len(sh.required) > 0:
		return words{lexemes: sh.required, keys: keysAll}
	case len(sh.some) > 0:
		return words{lexemes: sh.some, keys: keysAny}
	default:
		return words{none: true}
	}
}

// cachedHits is hits through the caches (cache.go), where they serve; the
// post matches kept for every caller (keepsPosts) are Search's to filter.
func (s *Store) cachedHits(ctx context.Context, k Kind, viewerID int64, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	if s.matches == nil || k == Posts {
		return s.hits(ctx, k, viewerID, q, w, after, limit)
	}
	text := q.Text
	if k == People {
		text = q.Name
	}
	r, err := s.matches.load(ctx, cacheKey(k, text, after, limit), func() (matchResult, error) {
		hits, total, err := s.hits(ctx, k, viewerID, q, w, after, limit)
		return matchResult{hits: hits, total: total}, err
	})
	if err != nil {
		return nil, 0, pg.Classify(ctx, err)
	}
	return r.hits, r.total, nil
}

// keepsPosts says whether s keeps the post matches of q (read as w) for
// every caller: those of tags, and of texts found by a bucket walk. Texts
// that may match a post without any of their words ("-tea") are rare and
// searched each time.
func (s *Store) keepsPosts(q Query, w words) bool {
	return s.postMatches != nil && (len(q.Tags) > 0 || w.walks())
}

// candidatesSQL selects the newest limit matches of the words $2 (looked
// up by the lexemes $3 as keys says), whoever may see them, newest first,
// with what the visibility rule reads: the walk of posts without its
// visibility condition ($1 and $4-$7 are unused).
func candidatesSQL(keys string, limit int) string {
	return walkMatches("posts", "p", "post_search_bucket", "created_at", "true", keys, []string{"author_id", "visibility"}, limit) + `
	SELECT id, at, rank, author_id, visibility FROM hit ORDER BY id DESC`
}

// tagCandidatesSQL selects the newest limit posts carrying the tag $1 and
// every tag of $2, whoever may see them, newest first, with what the
// visibility rule reads: the tag search of sourceOf without its visibility
// condition, read from post_tags_tag_idx alone.
func tagCandidatesSQL(limit int) string {
	return `
	SELECT t.post_id AS id, t.created_at AS at, 0::float8 AS rank, t.author_id, t.visibility
	  FROM post_tags t
	 WHERE ` + tagged("t", "$1", "$2") + `
	 ORDER BY t.post_id DESC
	 LIMIT ` + strconv.Itoa(limit)
}

// keptPosts returns the kept post matches of q (read as w; keepsPosts),
// reading them, and keeping them for every caller, when none are kept.
func (s *Store) keptPosts(ctx context.Context, q Query, w words) (*postMatches, error) {
	m, err := s.postMatches.load(ctx, q.Text, func() (*postMatches, error) { return s.readPosts(ctx, q, w) })
	if err != nil {
		return nil, pg.Classify(ctx, err)
	}
	return m, nil
}

// readPosts reads the post matches keptPosts keeps.
func (s *Store) readPosts(ctx context.Context, q Query, w words) (*postMatches, error) {
	if err := takePlace(ctx); err != nil {
		return nil, err
	}
	var rows []struct {
		ID         int64     `db:"id"`
		At         time.Time `db:"at"`
		Rank       float64   `db:"rank"`
		AuthorID   int64     `db:"author_id"`
		Visibility string    `db:"visibility"`
	}
	var err error
	if len(q.Tags) > 0 {
		err = sqlx.SelectContext(ctx, s.prep, &rows, tagCandidatesSQL(s.candidates), q.Tags[0], pq.Array(q.Tags[1:]))
	} else {
		err = sqlx.SelectContext(ctx, s.prep, &rows, candidatesSQL(w.keys, s.candidates), nil, q.Text, pq.Array(w.lexemes), nil, nil, nil, nil)
	}
	if err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
	}
	list := make([]candidate, len(rows))
	for i, r := range rows {
		vis := r.Visibility
		if j := slices.Index(visibilities, vis); j >= 0 {
			vis = visibilities[j]
		}
		list[i] = candidate{id: r.ID, author: r.AuthorID, at: r.At.UnixMicro(), rank: r.Rank, vis: vis}
	}
	return newPostMatches(list, len(rows) < s.candidates), nil
}

// keptPostHits is hits for posts through m, the kept matches of q, for
// viewerID, who follows followees (ascending; read only when
// m.followersOnly): the viewer's matches are the candidates the visibility
// rule lets them see (visibility.Sees, with the followees read for this
// request), the newest MatchCap of them, ranked and paged as the walk does.
// A viewer who may see fewer than MatchCap of incomplete candidates is
// walked instead.
func (s *Store) keptPostHits(ctx context.Context, m *postMatches, followees []int64, viewerID int64, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	if hits, total, ok := m.pageFor(viewerID, followees, after, limit); ok {
		return hits, total, nil
	}
	return s.hits(ctx, Posts, viewerID, q, w, after, limit)
}

// hits returns up to limit matches of kind k after the position after, and
// how many matches of k the caller may see. w is the text of q as read by
// Store.words.
func (s *Store) hits(ctx context.Context, k Kind, viewerID int64, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	text := k == Listings || k == Jobs || (k == Posts && len(q.Tags) == 0)
	if text && w.none {
		// No lexeme (a text of punctuation only): nothing matches.
		return nil, 0, nil
	}
	if err := takePlace(ctx); err != nil {
		return nil, 0, err
	}
	var query string
	var args []any
	switch {
	case text && w.walks():
		query, args = walks[walkOf{k, w.keys}], []any{viewerID, q.Text, pq.Array(w.lexemes), nil, nil, nil, limit}
		if after != nil {
			args[3], args[4], args[5] = after.Rank, after.Time, after.ID
		}
	case text && k == Posts:
		return s.postWindows(ctx, viewerID, q, after, limit)
	case k == People:
		query, args = peopleQuery, peopleArgs(q, after, limit)
	default:
		query, args = pageQuery(k, viewerID, q, after, limit)
	}
	var rows []pageRow
	if err := sqlx.SelectContext(ctx, s.prep, &rows, query, args...); err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("search %s: %w", k, err))
	}
	total := 0
	if len(rows) > 0 {
		total = rows[0].Total
	}
	hits := make([]hit, 0, len(rows))
	for _, r := range rows {
		if r.ID != nil {
			hits = append(hits, hit{ID: *r.ID, At: *r.At, Rank: *r.Rank})
		}
	}
	return hits, total, nil
}

// scanWindow is how many of the newest post ids a search for a text that
// no walk serves first reads by the primary key, testing each row's words.
const scanWindow = 2_000

// postWindow selects, for the viewer $1, up to $5 posts matching the words
// $2 with ids in ($3, $4], newest first, ranked, reading the window by
// posts_pkey. Run planned for its bounds each time (s.db, not s.prep): a
// generic plan cannot tell a window of a few thousand ids from the whole
// table.
var postWindow = `
		SELECT w.id, w.at, ts_rank(w.search_tsv, websearch_to_tsquery('simple', $2))::float8 AS rank
		  FROM (SELECT p.id, p.created_at AS at, p.search_tsv
		          FROM posts p
		         WHERE p.search_tsv @@ websearch_to_tsquery('simple', $2) AND p.id > $3 AND p.id <= $4
		           AND ` + visibility.Post("p", "$1::bigint") + `
		         ORDER BY p.id DESC
		         LIMIT $5) w`

// walk selects, from table (aliased alias, which where reads), the MatchCap
// matches with the highest ids of the words $2 that pass where, and returns
// them as pageQuery does: how many there are, and up to $7 of them after the
// position ($4, $5, $6) (all null: from the best), best first. Every match
// must contain each lexeme of $3 (keys keysAll), or one of them at least
// (keysAny; Store.words says which holds of the words).
//
// The matches are found by walking the buckets of the table's search_keys
// index (migration 16) from the highest id's down: per bucket, one look
// into the index for the bucket's rows with those lexemes, tested against
// the whole query ($2 may be a phrase, have "or" or a negation) and where,
// highest id first. The nested loop runs the buckets in generate_series
// order and the LIMIT stops it at the bucket that completes the cap, so the
// statement reads the matches of the buckets it needs and no others
// (TestExplain checks the shape). Each bucket's matches are ranked as they
// are read and sorted narrow (id, time, rank), at most MatchCap of them: a
// bucket dense with a word then costs a top-N sort of small rows, where
// carrying every row's search_tsv into one sort made the statement far
// dearer (docs/performance-journal.md, "Search: narrow sort per bucket").
// Every statement takes the viewer $1 (the visibility rule of posts reads
// it).
//
// Prepared, and written so that its generic plan is taken: the arguments
// reach the plan only through a materialized CTE read by InitPlans, the
// highest bucket through a subquery, the cap as a constant. A custom plan
// then sees nothing a generic one does not and is never estimated cheaper
// by more than its planning, so the statement is not planned again on every
// search: planning the walk is itself dear (journal, "Search statements on
// their generic plan").
func walk(table, alias, bucket, at, where, keys string) string {
	return walkMatches(table, alias, bucket, at, where, keys, nil, MatchCap) + hitsPage
}

// walkMatches is the walk of walk up to the materialized matches hit (id,
// at, rank and the columns more of table), at most limit of them.
func walkMatches(table, alias, bucket, at, where, keys string, more []string, limit int) string {
	r, cap := alias, strconv.Itoa(limit)
	inner, outer := "", ""
	for _, c := range more {
		inner += ", " + r + "." + c
		outer += ", w." + c
	}
	return `
	WITH a AS MATERIALIZED (
	    SELECT $1::bigint AS viewer, websearch_to_tsquery('simple', $2::text) AS q, array_to_tsvector($3::text[]) AS words,
	           $4::float8 AS after_rank, $5::timestamptz AS after_at, $6::bigint AS after_id, $7::int AS lim
	), hit AS MATERIALIZED (
	    SELECT w.id, w.at, w.rank` + outer + `
	      FROM generate_series((SELECT ` + bucket + `(max(id)) FROM ` + table + `), 0, -1) AS b(bucket)
	     CROSS JOIN LATERAL (
	         SELECT ` + r + `.id, ` + r + `.` + at + ` AS at, ts_rank(` + r + `.search_tsv, (SELECT q FROM a))::float8 AS rank` + inner + `
	           FROM ` + table + ` ` + r + `
	          WHERE search_keys(` + bucket + `(` + r + `.id), ` + r + `.search_tsv) ` + keys + ` search_keys(b.bucket, (SELECT words FROM a))
	            AND (` + r + `.search_tsv @@ (SELECT q FROM a)) IS TRUE
	            AND ` + where + `
	          ORDER BY ` + r + `.id DESC
	          LIMIT ` + cap + `) w
	     LIMIT ` + cap + `
	)`
}

// hitsPage ends the statements of walk and peopleQuery: from the
// materialized matches hit (id, at, rank) and the arguments a (after_rank,
// after_at, after_id: the keyset, all null for the first page; lim), the
// total and the page, best first, as pageQuery returns them.
const hitsPage = `
	SELECT h.id, h.at, h.rank, t.total
	  FROM (SELECT count(*) AS total FROM hit) t
	  LEFT JOIN LATERAL (
	      SELECT id, at, rank
	        FROM hit
	       WHERE (SELECT after_id FROM a) IS NULL
	          OR (rank, at, id) < ((SELECT after_rank FROM a), (SELECT after_at FROM a), (SELECT after_id FROM a))
	       ORDER BY rank DESC, at DESC, id DESC
	       LIMIT (SELECT lim FROM a)
	  ) h ON true
	 ORDER BY h.rank DESC, h.at DESC, h.id DESC`

// peopleQuery selects the members who are not suspended and match a name
// ($1) by word similarity over name and handle (trigramName), which finds
// them from a word's first two letters on and forgives typos, or contain it
// ($2, the substring pattern; null when the name is shorter than three
// characters, too short for the trigram index to serve). A handle equal to
// the name ranks first, then handles starting with it ($3, the prefix
// pattern), then by similarity (at most 1). It returns them as walk does
// (keyset $4-$6, limit $7). Its arguments reach the plan through a
// materialized CTE read by InitPlans, as in walk: with the name in sight of
// the planner, PostgreSQL plans nearly every people search anew, and the
// planning costs more than the execution (docs/performance-journal.md,
// "People search on its generic plan").
var peopleQuery = `
	WITH a AS MATERIALIZED (
	    SELECT $1::text AS name, $2::text AS contains, $3::text AS prefix,
	           $4::float8 AS after_rank, $5::timestamptz AS after_at, $6::bigint AS after_id, $7::int AS lim
	), hit AS MATERIALIZED (
	    SELECT m.id, m.created_at AS at,
	           (CASE WHEN lower(m.handle) = (SELECT name FROM a) THEN 2
	                 WHEN lower(m.handle) LIKE (SELECT prefix FROM a) THEN 1 ELSE 0 END
	            + word_similarity((SELECT name FROM a), ` + trigramName + `))::float8 AS rank
	      FROM members m
	     WHERE m.suspended_at IS NULL
	       AND ((SELECT name FROM a) <% ` + trigramName + ` OR ` + trigramName + ` LIKE (SELECT contains FROM a))
	)` + hitsPage

// peopleArgs are peopleQuery's arguments for q.
func peopleArgs(q Query, after *cursor.Position, limit int) []any {
	like := escapeLike(q.Name)
	args := []any{q.Name, nil, like + "%", nil, nil, nil, limit}
	// A substring needs three characters for the trigram index to serve it.
	if len([]rune(q.Name)) >= 3 {
		args[1] = "%" + like + "%"
	}
	if after != nil {
		args[3], args[4], args[5] = after.Rank, after.Time, after.ID
	}
	return args
}

// walkOf names a walk: the kind it searches, and how it looks up its
// lexemes (keysAll or keysAny).
type walkOf struct {
	kind Kind
	keys string
}

// walks are the bucket walks of the full-text kinds, by either way of
// looking up the lexemes: posts under the visibility rule, listings and jobs
// under the conditions of sourceOf.
var walks = func() map[walkOf]string {
	m := make(map[walkOf]string)
	for _, keys := range []string{keysAll, keysAny} {
		m[walkOf{Posts, keys}] = walk("posts", "p", "post_search_bucket", "created_at", visibility.Post("p", "(SELECT viewer FROM a)"), keys)
		m[walkOf{Listings, keys}] = walk("listings", "l", "listing_search_bucket", "created_at", listingSeen("l"), keys)
		m[walkOf{Jobs, keys}] = walk("jobs", "j", "job_search_bucket", "posted_at", jobs.Open, keys)
	}
	return m
}()

// listingSeen is true for a listing (aliased l) that search shows, as the
// market lists them: listings of suspended sellers are left out (an
// anti-join with the few suspended members, members_suspended_idx, rather
// than a member lookup per match).
func listingSeen(l string) string {
	return "NOT EXISTS (SELECT 1 FROM members m WHERE m.id = " + l + ".seller_id AND m.suspended_at IS NOT NULL)"
}

// postWindows is hits for posts matching a text that no walk serves, one
// that may match a post without any of its words ("-tea", "coffee or -tea"):
// the newest MatchCap matches the caller may see are collected from
// consecutive windows of post ids, newest first, each read by the primary
// key, testing each row's words, and asked only for the matches still
// missing (recent first, then further back). Such a
// text matches most posts (a negated word is rarely in most of them), so the
// first window (scanWindow ids) usually fills the cap; each next one is
// sized from the density of matches met so far, from twice to sixteen times
// the last. Only the collected matches are ranked; their order and the page
// are computed here, with the keyset of pageQuery.
func (s *Store) postWindows(ctx context.Context, viewerID int64, q Query, after *cursor.Position, limit int) ([]hit, int, error) {
	var top int64
	if err := sqlx.GetContext(ctx, s.prep, &top, `SELECT COALESCE(max(id), 0) FROM posts`); err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
	}
	var all []hit
	hi, size, scanned := top, max(s.scan, 1), int64(0)
	for hi > 0 && len(all) < MatchCap {
		lo := max(hi-size, 0)
		var rows []hit
		if err := sqlx.SelectContext(ctx, s.db, &rows, postWindow, viewerID, q.Text, lo, hi, MatchCap-len(all)); err != nil {
			return nil, 0, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
		}
		all = append(all, rows...)
		scanned += hi - lo
		hi = lo
		// Enough ids for the missing matches at the density met so far,
		// with a margin.
		size = min(max(2*size, int64(float64(MatchCap-len(all))*1.5*float64(scanned)/float64(max(len(all), 1)))), 16*size)
	}
	return page(all, after, limit)
}

// page ranks the matches all, best first, and returns up to limit of them
// after the position after, with how many there are.
func page(all []hit, after *cursor.Position, limit int) ([]hit, int, error) {
	total := len(all)
	slices.SortFunc(all, func(a, b hit) int { return compare(b, a) })
	if after != nil {
		pos := hit{ID: after.ID, At: after.Time, Rank: after.Rank}
		i, _ := slices.BinarySearchFunc(all, pos, func(h, pos hit) int { return compare(pos, h) })
		for i < len(all) && compare(all[i], pos) >= 0 {
			i++
		}
		all = all[i:]
	}
	return all[:min(limit, len(all))], total, nil
}

// Search returns, for viewerID, the first perPage matches of q of every kind
// (kind ""), or one page of one kind after the position after (nil: from the
// best match), with the totals of every kind.
//
// Every kind is asked for its total, and the kinds searched for their page.
// Posts kept for every caller (keepsPosts) are filtered last, with the
// caller's followees, which are read in the same statement as the listings
// and jobs shown (side); then the posts and the people shown are read. A
// search whose matches are all kept thus costs at most three statements,
// and, without followers-only matches, listings or jobs to show, fewer.
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
		hits, total, err := s.cachedHits(ctx, k, viewerID, q, w, kAfter, kLimit)
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
		hits, total, err := s.keptPostHits(ctx, kept, followees, viewerID, q, w, keptAfter, keptLimit)
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
	if len(hits) > perPage {
		hits = hits[:perPage]
		last := hits[perPage-1]
		r.Next = &cursor.Position{Rank: last.Rank, Time: last.At, ID: last.ID}
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

// source is how one kind matches: the rows (from), the match condition
// (where), and the id, sort time and relevance (rank) of a row.
type source struct {
	from, where, id, at, rank string
	// newest, when set, is the SQL expression ordering rows newest first
	// through an index: only the MatchCap newest matches are ranked
	// and counted.
	newest string
}

// MatchCap is how many matches of posts, listings and jobs a search ranks
// and counts: the newest posts, the listings and jobs with the highest ids
// (documented in openapi.yaml). With it, the cost of a search is that of
// its 1,000 matches, not that of every match scattered over the table.
const MatchCap = 1000

// args collects query arguments and hands out their placeholders, so no value
// is ever formatted into SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// trigramName is the expression members_search_trgm_idx indexes.
const trigramName = "lower(m.name || ' ' || m.handle)"

// sourceOf returns how posts (tags only: texts are walked or read by
// windows), listings or jobs (k) match q for viewerID, adding its arguments
// to a. People are searched by peopleQuery.
func sourceOf(k Kind, viewerID int64, q Query, a *args) source {
	switch {
	case k == Posts && len(q.Tags) > 0:
		// Exact tags: no text relevance, so newest first. post_tags_tag_idx
		// reads the first tag's posts newest first, index-only with the
		// columns of the visibility rule; further tags are looked up by
		// post (post_tags_pkey).
		vis := visibility.Post("t", a.add(viewerID)+"::bigint")
		where := tagged("t", a.add(q.Tags[0]), a.add(pq.Array(q.Tags[1:]))) + " AND " + vis
		return source{from: "post_tags t", where: where,
			id: "t.post_id", at: "t.created_at", rank: "0::float8", newest: "t.post_id DESC"}
	case k == Listings:
		// Title matches weigh more than description matches (search_tsv).
		tsq := "websearch_to_tsquery('simple', " + a.add(q.Text) + ")"
		return source{from: "listings l", where: "l.search_tsv @@ " + tsq + " AND " + listingSeen("l"),
			id: "l.id", at: "l.created_at", rank: "ts_rank(l.search_tsv, " + tsq + ")::float8", newest: "l.id DESC"}
	case k == Jobs: // open ones only, as the jobs list shows them
		tsq := "websearch_to_tsquery('simple', " + a.add(q.Text) + ")"
		return source{from: "jobs j", where: "j.search_tsv @@ " + tsq + " AND " + jobs.Open,
			id: "j.id", at: "j.posted_at", rank: "ts_rank(j.search_tsv, " + tsq + ")::float8", newest: "j.id DESC"}
	default:
		panic("search: sourceOf has no source for " + string(k))
	}
}

// tagged is true for a row of post_tags (aliased t) of the tag first
// whose post carries every tag of the text[] rest as well.
func tagged(t, first, rest string) string {
	return t + ".tag = " + first + " AND NOT EXISTS (SELECT 1 FROM unnest(" + rest + "::text[]) o(tag)" +
		" WHERE NOT EXISTS (SELECT 1 FROM post_tags ot WHERE ot.post_id = " + t + ".post_id AND ot.tag = o.tag))"
}

// pageQuery selects up to limit matches of kind k after the position after,
// best first: rank, then newest, then id, all descending.
//
// The matches are collected first behind a MATERIALIZED fence: ranking needs
// every candidate anyway. Posts, listings and jobs are capped at their
// MatchCap matches with the highest ids; the texts a walk serves are
// searched by the bucket walks (walks) instead, and posts matching other
// texts by Store.postWindows.
//
// The statement always returns a row: the total, with a null id when the
// page is empty.
func pageQuery(k Kind, viewerID int64, q Query, after *cursor.Position, limit int) (string, []any) {
	var a args
	return sourcePage(sourceOf(k, viewerID, q, &a), a, after, limit)
}

// sourcePage is pageQuery for the source src, whose arguments are a.
func sourcePage(src source, a args, after *cursor.Position, limit int) (string, []any) {
	keyset := ""
	if after != nil {
		keyset = fmt.Sprintf("WHERE (rank, at, id) < (%s::float8, %s::timestamptz, %s::bigint)",
			a.add(after.Rank), a.add(after.Time), a.add(after.ID))
	}
	query := `
		WITH hit AS MATERIALIZED (
		    SELECT ` + src.id + ` AS id, ` + src.at + ` AS at, ` + src.rank + ` AS rank
		      FROM ` + src.from + `
		     WHERE ` + src.where + capped(src) + `
		)
		SELECT h.id, h.at, h.rank, t.total
		  FROM (SELECT count(*) AS total FROM hit) t
		  LEFT JOIN LATERAL (
		      SELECT id, at, rank FROM hit ` + keyset + `
		       ORDER BY rank DESC, at DESC, id DESC
		       LIMIT ` + a.add(limit) + `
		  ) h ON true
		 ORDER BY h.rank DESC, h.at DESC, h.id DESC`
	return query, a
}

// capped limits a source's matches to its newest MatchCap, if it has an
// order for that.
func capped(src source) string {
	if src.newest == "" {
		return ""
	}
	return " ORDER BY " + src.newest + " LIMIT " + strconv.Itoa(MatchCap)
}

// escapeLike quotes the LIKE wildcards of s ('_' is common in handles).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Listing is a marketplace listing as search shows it.
type Listing struct {
	ID           int64
	Title        string
	Description  string
	PriceMinor   int64
	Currency     string
	Condition    string
	CategorySlug string
	CategoryName string
	City         string
	Region       *string
	Country      string
	Status       string
	CreatedAt    time.Time
	Seller       hydrate.Author
	Images       []ImageEntry
}

// ImageEntry is one picture of a listing.
type ImageEntry struct {
	URL    string  `json:"url"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Alt    *string `json:"alt"`
}

// Job is an open job as search shows it.
type Job struct {
	ID             int64
	Title          string
	CompanyName    string
	CompanyLogoURL *string
	CompanyURL     *string
	City           *string
	Region         *string
	Country        *string
	Workplace      string
	EmploymentType string
	SalaryMinMinor *int64
	SalaryMaxMinor *int64
	SalaryCurrency *string
	SalaryPeriod   *string
	Description    string
	ApplyURL       *string
	PostedAt       time.Time
	ExpiresAt      *time.Time
}

// side is what a search reads in one statement besides the posts and
// people it shows (Store.side).
type side struct {
	followees []int64 // ascending
	listings  []Listing
	jobs      []Job
}

// Each statement is a round trip and a transaction of its own, and the
// three reads of side are small: the protocol and the transaction of a
// statement cost PostgreSQL about as much as reading five listings. So they
// are one statement, the UNION ALL of one row of the followees and the rows
// of the listings and of the jobs, in one row type: the columns of one kind
// hold zero values (or nulls) in the rows of the others. One statement costs
// both PostgreSQL and the server less than three; building the listings and
// jobs as JSON in one row does not, since json_build_object and json_agg
// cost PostgreSQL more than the round trips they save
// (docs/performance-journal.md, "Search side panel in one statement").
// The rows are scanned in place through one destination slice, as hydrate
// scans posts, rather than by sqlx's reflection over some forty columns a
// row.

// sideRow is a row of side's statement: kind 'f' (the followees), 'l' (a
// listing: l, and the columns every kind shares) or 'j' (a job: j, and
// those), ord its place in the ids asked.
type sideRow struct {
	kind      string
	ord       int
	followees string
	id        int64
	title     string
	desc      string
	at        time.Time
	images    []byte
	l         Listing
	j         Job
}

// sideColumns are the columns of side's rows after kind, ord and
// followees: the SQL that reads each in a listing's row and in a job's row
// ("": the column's zero value, which rows of other kinds hold too; never
// null when it is scanned into a field that is not a pointer), and where it
// is scanned.
var sideColumns = []struct {
	listing, job, zero string
	dest               func(r *sideRow) any
}{
	{"l.id", "j.id", "0::bigint", func(r *sideRow) any { return &r.id }},
	{"l.title", "j.title", "''", func(r *sideRow) any { return &r.title }},
	{"l.description", "j.description", "''", func(r *sideRow) any { return &r.desc }},
	{"l.created_at", "j.posted_at", "'epoch'::timestamptz", func(r *sideRow) any { return &r.at }},
	{"l.price_minor", "", "0::bigint", func(r *sideRow) any { return &r.l.PriceMinor }},
	{"l.currency", "", "''", func(r *sideRow) any { return &r.l.Currency }},
	{"l.condition", "", "''", func(r *sideRow) any { return &r.l.Condition }},
	{"c.slug", "", "''", func(r *sideRow) any { return &r.l.CategorySlug }},
	{"c.name", "", "''", func(r *sideRow) any { return &r.l.CategoryName }},
	{"l.city", "", "''", func(r *sideRow) any { return &r.l.City }},
	{"l.region", "", "NULL::text", func(r *sideRow) any { return &r.l.Region }},
	{"l.country", "", "''", func(r *sideRow) any { return &r.l.Country }},
	{"l.status", "", "''", func(r *sideRow) any { return &r.l.Status }},
	{"m.id", "", "0::bigint", func(r *sideRow) any { return &r.l.Seller.ID }},
	{"m.handle", "", "''", func(r *sideRow) any { return &r.l.Seller.Handle }},
	{"m.name", "", "''", func(r *sideRow) any { return &r.l.Seller.Name }},
	{"m.avatar_url", "", "NULL::text", func(r *sideRow) any { return &r.l.Seller.AvatarURL }},
	{"m.verified", "", "false", func(r *sideRow) any { return &r.l.Seller.Verified }},
	{`COALESCE((SELECT json_agg(json_build_object('url', i.url, 'width', i.width, 'height', i.height, 'alt', i.alt)
	                            ORDER BY i.position)
	              FROM listing_images i WHERE i.listing_id = l.id), '[]')`, "", "NULL::json", func(r *sideRow) any { return &r.images }},
	{"", "j.company_name", "''", func(r *sideRow) any { return &r.j.CompanyName }},
	{"", "j.company_logo_url", "NULL::text", func(r *sideRow) any { return &r.j.CompanyLogoURL }},
	{"", "j.company_url", "NULL::text", func(r *sideRow) any { return &r.j.CompanyURL }},
	{"", "j.city", "NULL::text", func(r *sideRow) any { return &r.j.City }},
	{"", "j.region", "NULL::text", func(r *sideRow) any { return &r.j.Region }},
	{"", "j.country", "NULL::text", func(r *sideRow) any { return &r.j.Country }},
	{"", "j.workplace", "''", func(r *sideRow) any { return &r.j.Workplace }},
	{"", "j.employment_type", "''", func(r *sideRow) any { return &r.j.EmploymentType }},
	{"", "j.salary_min_minor", "NULL::bigint", func(r *sideRow) any { return &r.j.SalaryMinMinor }},
	{"", "j.salary_max_minor", "NULL::bigint", func(r *sideRow) any { return &r.j.SalaryMaxMinor }},
	{"", "j.salary_currency", "NULL::text", func(r *sideRow) any { return &r.j.SalaryCurrency }},
	{"", "j.salary_period", "NULL::text", func(r *sideRow) any { return &r.j.SalaryPeriod }},
	{"", "j.apply_url", "NULL::text", func(r *sideRow) any { return &r.j.ApplyURL }},
	{"", "j.expires_at", "NULL::timestamptz", func(r *sideRow) any { return &r.j.ExpiresAt }},
}

// sideSelect is the select list of a row of side's statement of kind k.
func sideSelect(k byte) string {
	var b strings.Builder
	for _, c := range sideColumns {
		v := c.zero
		switch {
		case k == 'l' && c.listing != "":
			v = c.listing
		case k == 'j' && c.job != "":
			v = c.job
		}
		b.WriteString(", " + v)
	}
	return b.String()
}

// sideFollowees is the row of the members the member $1 follows,
// ascending and separated by commas (none when $1 is null), for the kept
// post matches' visibility rule (postMatches.pageFor). Text rather than an
// array: pq.Int64Array allocated a slice per element when it scanned the
// hundreds of a busy member, a tenth of what a search allocated. Built
// from the ARRAY of the index's order: string_agg(... ORDER BY) sorted
// them again and took twice as long.
var sideFollowees = `
	SELECT 'f' AS kind, 0 AS ord,
	       array_to_string(ARRAY(SELECT f.followee_id FROM follows f WHERE f.follower_id = $1 ORDER BY f.followee_id), ',')` + sideSelect('f')

// sideListings are the rows of the listings $2 (an array of ids), leaving
// out those whose seller was suspended since they were found.
var sideListings = hydrate.NewListQuery("$2", func(list string) string {
	return `
	SELECT 'l', page.ord, ''` + sideSelect('l') + `
	  FROM ` + list + `
	  JOIN listings l ON l.id = page.id
	  JOIN categories c ON c.id = l.category_id
	  JOIN members m ON m.id = l.seller_id
	 WHERE m.suspended_at IS NULL`
})

// sideJobs are the rows of the jobs $3 (an array of ids), leaving out those
// closed or expired since they were found.
var sideJobs = hydrate.NewListQuery("$3", func(list string) string {
	return `
	SELECT 'j', page.ord, ''` + sideSelect('j') + `
	  FROM ` + list + `
	  JOIN jobs j ON j.id = page.id
	 WHERE ` + jobs.Open
})

// sideStatements memoizes the statement of side for a number of listings
// and of jobs (a few pairs: the page sizes asked; at most 51 × 51 of 3 KB).
var sideStatements sync.Map // [2]int → string

func sideStatement(listings, jobs int) string {
	key := [2]int{listings, jobs}
	if q, ok := sideStatements.Load(key); ok {
		return q.(string)
	}
	q, _ := sideStatements.LoadOrStore(key, sideFollowees+`
	 UNION ALL`+sideListings.For(listings)+`
	 UNION ALL`+sideJobs.For(jobs)+`
	 ORDER BY kind, ord`)
	return q.(string)
}

// side reads, in one statement, the members viewerID follows (when
// followees), and the listings listingIDs and the jobs jobIDs in their
// order, which re-checks what their search checked: listings of sellers
// suspended and jobs closed or expired since they were found are left out.
func (s *Store) side(ctx context.Context, viewerID int64, followees bool, listingIDs, jobIDs []int64) (side, error) {
	var viewer *int64
	if followees {
		viewer = &viewerID
	}
	rows, err := s.prep.QueryContext(ctx, sideStatement(len(listingIDs), len(jobIDs)), viewer, pq.Array(listingIDs), pq.Array(jobIDs))
	if err != nil {
		return side{}, pg.Classify(ctx, fmt.Errorf("search: read followees, listings and jobs: %w", err))
	}
	defer rows.Close()
	out := side{listings: make([]Listing, 0, len(listingIDs)), jobs: make([]Job, 0, len(jobIDs))}
	var r sideRow
	dest := []any{&r.kind, &r.ord, &r.followees}
	for _, c := range sideColumns {
		dest = append(dest, c.dest(&r))
	}
	for rows.Next() {
		r.l, r.j = Listing{}, Job{}
		if err := rows.Scan(dest...); err != nil {
			return side{}, pg.Classify(ctx, fmt.Errorf("search: read followees, listings and jobs: %w", err))
		}
		switch r.kind {
		case "f":
			if out.followees, err = parseIDs(r.followees); err != nil {
				return side{}, fmt.Errorf("search: followees: %w", err)
			}
		case "l":
			l := r.l
			l.ID, l.Title, l.Description, l.CreatedAt = r.id, r.title, r.desc, r.at
			if err := json.Unmarshal(r.images, &l.Images); err != nil {
				return side{}, fmt.Errorf("search: images of listing %d: %w", l.ID, err)
			}
			out.listings = append(out.listings, l)
		default:
			j := r.j
			j.ID, j.Title, j.Description, j.PostedAt = r.id, r.title, r.desc, r.at
			out.jobs = append(out.jobs, j)
		}
	}
	if err := rows.Err(); err != nil {
		return side{}, pg.Classify(ctx, fmt.Errorf("search: read followees, listings and jobs: %w", err))
	}
	return out, nil
}

// parseIDs reads ids separated by commas ("" is none).
func parseIDs(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	ids := make([]int64, 0, strings.Count(s, ",")+1)
	for s != "" {
		var id string
		id, s, _ = strings.Cut(s, ",")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, err
		}
		ids = append(ids, n)
	}
	return ids, nil
}
