package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
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
	// window is how many post ids the first look for posts matching words
	// through their GIN index covers (firstWindow; tests make it small).
	window int64
	// scan is how many of the newest post ids are looked through by the
	// primary key before that (scanWindow; 0: none).
	scan  int64
	posts *hydrate.Cache
}

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store {
	return &Store{db: db, prep: pg.NewPrepared(db), window: firstWindow, scan: scanWindow}
}

// WithCache makes s keep the static parts of the posts it shows in c.
func (s *Store) WithCache(c *hydrate.Cache) *Store { s.posts = c; return s }

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

// hits returns up to limit matches of kind k after the position after, and
// how many matches of k the caller may see.
func (s *Store) hits(ctx context.Context, k Kind, viewerID int64, q Query, after *cursor.Position, limit int) ([]hit, int, error) {
	if k == Posts && len(q.Tags) == 0 {
		return s.postHits(ctx, viewerID, q, after, limit)
	}
	query, args := pageQuery(k, viewerID, q, after, limit)
	var rows []struct {
		ID    *int64     `db:"id"`
		At    *time.Time `db:"at"`
		Rank  *float64   `db:"rank"`
		Total int        `db:"total"`
	}
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

// firstWindow is how many post ids the first look for posts matching words
// through their GIN index covers.
const firstWindow = 20_000

// scanWindow is how many of the newest post ids a search for words first
// walks by the primary key, testing each row's words.
const scanWindow = 2_000

// denseShare: while at least 1 in denseShare of the ids looked through so far
// matched, the next window is walked by the primary key too.
const denseShare = 20

// postWindow selects, for the viewer $1, up to $5 posts matching the words
// $2 (the matches condition) with ids in ($3, $4], newest first, ranked.
// Run planned for its bounds each time (s.db, not s.prep): a generic plan
// cannot tell a window of a few thousand ids from the whole table.
func postWindow(matches string) string {
	return `
		SELECT w.id, w.at, ts_rank(w.search_tsv, websearch_to_tsquery('simple', $2))::float8 AS rank
		  FROM (SELECT p.id, p.created_at AS at, p.search_tsv
		          FROM posts p
		         WHERE ` + matches + ` AND p.id > $3 AND p.id <= $4
		           AND ` + visibility.Post("p", "$1::bigint") + `
		         ORDER BY p.id DESC
		         LIMIT $5) w`
}

var (
	// postWindowByIndex reads a window through the words' GIN index.
	postWindowByIndex = postWindow(`p.search_tsv @@ websearch_to_tsquery('simple', $2)`)
	// postWindowByKey walks a window by posts_pkey: IS TRUE keeps the
	// words' test away from the GIN index.
	postWindowByKey = postWindow(`(p.search_tsv @@ websearch_to_tsquery('simple', $2)) IS TRUE`)
)

// postBuckets selects, for the viewer $1, the newest PostMatchCap posts
// matching the words $2 that contain every lexeme of $3, walking the
// buckets of posts_search_keys_idx from the newest post's down: per bucket,
// one look into the index for the bucket's posts with those lexemes, tested
// against the whole query ($2 may be a phrase) and the visibility rule,
// newest first. The nested loop runs the buckets in generate_series order
// and the LIMIT stops it at the bucket that completes the cap, so the
// statement reads the matches of the buckets it needs and no others
// (TestExplain checks the shape).
//
// Prepared, and written so that its generic plan is taken: the arguments
// reach the plan only through a materialized CTE read by InitPlans, the
// newest bucket through a subquery, the cap as a constant. A custom plan
// then sees nothing a generic one does not and is never estimated cheaper
// by more than its planning, so the statement is not planned again on every
// search (3 ms here).
var postBuckets = `
	WITH a AS MATERIALIZED (
	    SELECT $1::bigint AS viewer, websearch_to_tsquery('simple', $2::text) AS q, array_to_tsvector($3::text[]) AS words
	)
	SELECT w.id, w.at, ts_rank(w.search_tsv, (SELECT q FROM a))::float8 AS rank
	  FROM (SELECT p.id, p.at, p.search_tsv
	          FROM generate_series((SELECT post_search_bucket(max(id)) FROM posts), 0, -1) AS b(bucket)
	         CROSS JOIN LATERAL (
	             SELECT p.id, p.created_at AS at, p.search_tsv
	               FROM posts p
	              WHERE post_search_keys(post_search_bucket(p.id), p.search_tsv) @> post_search_keys(b.bucket, (SELECT words FROM a))
	                AND (p.search_tsv @@ (SELECT q FROM a)) IS TRUE
	                AND ` + visibility.Post("p", "(SELECT viewer FROM a)") + `
	              ORDER BY p.id DESC) p
	         LIMIT ` + strconv.Itoa(PostMatchCap) + `) w`

// conjunction returns the lexemes of the tsquery text tsq (as PostgreSQL
// prints a tsquery: quoted lexemes between operators) and whether every one
// of them must be in a matching post: no "or" (|) and no negation (!).
func conjunction(tsq string) ([]string, bool) {
	var lexemes []string
	for i := 0; i < len(tsq); i++ {
		switch tsq[i] {
		case '|', '!':
			return nil, false
		case '\'':
			// A lexeme: '' is a quote within it, \ escapes the next byte.
			var b strings.Builder
			for i++; i < len(tsq); i++ {
				c := tsq[i]
				if c == '\\' && i+1 < len(tsq) {
					i++
					c = tsq[i]
				} else if c == '\'' {
					if i+1 < len(tsq) && tsq[i+1] == '\'' {
						i++
					} else {
						break
					}
				}
				b.WriteByte(c)
			}
			if !slices.Contains(lexemes, b.String()) {
				lexemes = append(lexemes, b.String())
			}
		}
	}
	return lexemes, true
}

// postHits is hits for posts matching words: the newest PostMatchCap
// matches the caller may see, ranked; their order and the page are computed
// here, with the keyset of pageQuery.
//
// A text whose every word must be in a match (words and phrases, the usual
// search) walks posts_search_keys_idx bucket by bucket (postBuckets): one
// statement whose cost is the matches of the few newest buckets it needs.
// A text with "or" or a negated word has no word every match carries, so it
// is collected from consecutive windows of post ids, newest first, each
// window asked only for the matches still missing (PERFORMANCE_NOTES §6:
// recent first, then further back). A window is read one of two ways. By the
// primary key, backwards, testing each row's words: the cost is the window's
// length, and a common word fills the cap within a few thousand ids. Through
// the words' GIN index, ANDed with the window's id range: the cost is a
// bitmap of every match in the table (76 ms of a 95 ms search for a word in
// half of a million posts, against 2 ms by the key), worth it only for a
// rare word. The first window (scanWindow ids) goes by the key; the next ones
// by the key while the matches met so far are dense (1 in denseShare or
// more), else by the index. Each window is sized from the density of matches
// met so far.
func (s *Store) postHits(ctx context.Context, viewerID int64, q Query, after *cursor.Position, limit int) ([]hit, int, error) {
	var top struct {
		ID      int64  `db:"id"`
		TSQuery string `db:"tsquery"`
	}
	const topQuery = `SELECT COALESCE(max(id), 0) AS id, websearch_to_tsquery('simple', $1)::text AS tsquery FROM posts`
	if err := sqlx.GetContext(ctx, s.prep, &top, topQuery, q.Text); err != nil {
		return nil, 0, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
	}
	var all []hit
	if lexemes, ok := conjunction(top.TSQuery); ok {
		// No lexeme (a text of punctuation only): nothing matches.
		if len(lexemes) > 0 {
			if err := sqlx.SelectContext(ctx, s.prep, &all, postBuckets, viewerID, q.Text, pq.Array(lexemes)); err != nil {
				return nil, 0, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
			}
		}
		return page(all, after, limit)
	}
	hi, size, scanned := top.ID, s.scan, int64(0)
	dense := s.scan > 0
	if !dense {
		size = s.window
	}
	for hi > 0 && len(all) < PostMatchCap {
		lo := max(hi-size, 0)
		query := postWindowByIndex
		if dense {
			query = postWindowByKey
		}
		var rows []hit
		if err := sqlx.SelectContext(ctx, s.db, &rows, query, viewerID, q.Text, lo, hi, PostMatchCap-len(all)); err != nil {
			return nil, 0, pg.Classify(ctx, fmt.Errorf("search posts: %w", err))
		}
		all = append(all, rows...)
		scanned += hi - lo
		hi = lo
		wasDense := dense
		dense = int64(len(all))*denseShare >= scanned
		// Enough ids for the missing matches at the density met so far,
		// with a margin; from twice to sixteen times the last window, and
		// at least firstWindow for the first look through the index.
		size = min(max(2*size, int64(float64(PostMatchCap-len(all))*1.5*float64(scanned)/float64(max(len(all), 1)))), 16*size)
		if wasDense && !dense {
			size = max(size, s.window)
		}
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
func (s *Store) Search(ctx context.Context, viewerID int64, q Query, kind Kind, after *cursor.Position, perPage int) (Result, error) {
	res := Result{People: []hydrate.Profile{}, Posts: []hydrate.Post{}, Listings: []Listing{}, Jobs: []Job{}}
	kinds, limit := Kinds, perPage
	if kind != "" {
		kinds, limit = []Kind{kind}, perPage+1
	}
	for _, k := range kinds {
		hits, total, err := s.hits(ctx, k, viewerID, q, after, limit)
		if err != nil {
			return Result{}, err
		}
		res.Totals.set(k, total)
		if len(hits) > perPage {
			hits = hits[:perPage]
			last := hits[perPage-1]
			res.Next = &cursor.Position{Rank: last.Rank, Time: last.At, ID: last.ID}
		}
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		switch k {
		case People:
			res.People, err = hydrate.Profiles(ctx, s.prep, viewerID, ids)
		case Posts:
			res.Posts, err = s.posts.Posts(ctx, s.prep, viewerID, ids)
		case Listings:
			res.Listings, err = s.listings(ctx, ids)
		case Jobs:
			res.Jobs, err = s.jobs(ctx, ids)
		}
		if err != nil {
			return Result{}, err
		}
	}
	// Each page query counted its own kind; one kind searched leaves the
	// others to count, posts as their search counts them.
	if kind != "" {
		if kind != Posts {
			_, total, err := s.hits(ctx, Posts, viewerID, q, nil, 0)
			if err != nil {
				return Result{}, err
			}
			res.Totals.Posts = total
		}
		others := slices.DeleteFunc(slices.Clone(Kinds), func(k Kind) bool { return k == kind || k == Posts })
		query, args := totalsQuery(viewerID, q, others)
		var counts Totals
		if err := sqlx.GetContext(ctx, s.prep, &counts, query, args...); err != nil {
			return Result{}, pg.Classify(ctx, fmt.Errorf("count search matches: %w", err))
		}
		for _, k := range others {
			res.Totals.set(k, counts.get(k))
		}
	}
	return res, nil
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

func (t Totals) get(k Kind) int {
	switch k {
	case People:
		return t.People
	case Posts:
		return t.Posts
	case Listings:
		return t.Listings
	default:
		return t.Jobs
	}
}

// source is how one kind matches: the rows (from), the match condition
// (where), and the id, sort time and relevance of a row. rank adds its own
// arguments, if any, when it is called: counts do not rank.
type source struct {
	from, where, id, at string
	rank                func() string
	// newest, when set, is the SQL expression ordering rows newest first
	// through an index: only the PostMatchCap newest matches are ranked
	// and counted.
	newest string
}

// PostMatchCap is how many of the newest matching posts a search ranks and
// counts (documented in openapi.yaml): with it, a word in 5 % of a million
// posts costs one backward walk of the primary key to its 1,000th match, not
// a read of every match scattered over the table.
const PostMatchCap = 1000

// constant returns a rank function of the SQL expression expr.
func constant(expr string) func() string { return func() string { return expr } }

// args collects query arguments and hands out their placeholders, so no value
// is ever formatted into SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// trigramName is the expression members_search_trgm_idx indexes.
const trigramName = "lower(m.name || ' ' || m.handle)"

// sourceOf returns how kind k matches q for viewerID, adding its arguments
// to a.
func sourceOf(k Kind, viewerID int64, q Query, a *args) source {
	switch k {
	case People:
		name := a.add(q.Name)
		like := escapeLike(q.Name)
		// Word similarity finds names and handles from a word's first two
		// letters on and forgives typos; a substring needs three characters
		// for the trigram index to serve it.
		match := name + " <% " + trigramName
		if len([]rune(q.Name)) >= 3 {
			match += " OR " + trigramName + " LIKE " + a.add("%"+like+"%")
		}
		// A handle equal to the text ranks first, then handles starting with
		// it, then by similarity (at most 1).
		rank := func() string {
			return "(CASE WHEN lower(m.handle) = " + name + " THEN 2 WHEN lower(m.handle) LIKE " + a.add(like+"%") +
				" THEN 1 ELSE 0 END + word_similarity(" + name + ", " + trigramName + "))::float8"
		}
		return source{from: "members m", where: "m.suspended_at IS NULL AND (" + match + ")",
			id: "m.id", at: "m.created_at", rank: rank}
	case Posts:
		if len(q.Tags) > 0 {
			// Exact tags: no text relevance, so newest first. post_tags_tag_idx
			// reads the first tag's posts newest first, index-only with the
			// columns of the visibility rule; further tags are looked up by
			// post (post_tags_pkey).
			vis := visibility.Post("t", a.add(viewerID)+"::bigint")
			where := "t.tag = " + a.add(q.Tags[0]) + " AND NOT EXISTS (SELECT 1 FROM unnest(" + a.add(pq.Array(q.Tags[1:])) +
				"::text[]) o(tag) WHERE NOT EXISTS (SELECT 1 FROM post_tags ot WHERE ot.post_id = t.post_id AND ot.tag = o.tag)) AND " + vis
			return source{from: "post_tags t", where: where,
				id: "t.post_id", at: "t.created_at", rank: constant("0::float8"), newest: "t.post_id DESC"}
		}
		vis := visibility.Post("p", a.add(viewerID)+"::bigint")
		tsq := "websearch_to_tsquery('simple', " + a.add(q.Text) + ")"
		return source{from: "posts p", where: "p.search_tsv @@ " + tsq + " AND " + vis,
			id: "p.id", at: "p.created_at", rank: constant("ts_rank(p.search_tsv, " + tsq + ")::float8"), newest: "p.id DESC"}
	case Listings:
		// As the market lists them: listings of suspended sellers are left out
		// (an anti-join with the few suspended members, members_suspended_idx,
		// rather than a member lookup per match); title matches weigh more
		// than description matches.
		tsq := "websearch_to_tsquery('simple', " + a.add(q.Text) + ")"
		return source{from: "listings l",
			where: "l.search_tsv @@ " + tsq + " AND NOT EXISTS (SELECT 1 FROM members m WHERE m.id = l.seller_id AND m.suspended_at IS NOT NULL)",
			id:    "l.id", at: "l.created_at", rank: constant("ts_rank(l.search_tsv, " + tsq + ")::float8")}
	default: // Jobs: open ones only, as the jobs list shows them.
		tsq := "websearch_to_tsquery('simple', " + a.add(q.Text) + ")"
		return source{from: "jobs j",
			where: "j.search_tsv @@ " + tsq + " AND j.closed_at IS NULL AND (j.expires_at IS NULL OR j.expires_at > now())",
			id:    "j.id", at: "j.posted_at", rank: constant("ts_rank(j.search_tsv, " + tsq + ")::float8")}
	}
}

// pageQuery selects up to limit matches of kind k after the position after,
// best first: rank, then newest, then id, all descending.
//
// The matches are collected first behind a MATERIALIZED fence: ranking needs
// every candidate anyway. Posts are capped at the newest PostMatchCap
// matches (posts matching words are searched by Store.postHits instead).
//
// The statement always returns a row: the total, with a null id when the
// page is empty.
func pageQuery(k Kind, viewerID int64, q Query, after *cursor.Position, limit int) (string, []any) {
	var a args
	src := sourceOf(k, viewerID, q, &a)
	rank := src.rank()
	keyset := ""
	if after != nil {
		keyset = fmt.Sprintf("WHERE (rank, at, id) < (%s::float8, %s::timestamptz, %s::bigint)",
			a.add(after.Rank), a.add(after.Time), a.add(after.ID))
	}
	query := `
		WITH hit AS MATERIALIZED (
		    SELECT ` + src.id + ` AS id, ` + src.at + ` AS at, ` + rank + ` AS rank
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

// totalsQuery counts the matches of the kinds ks in one statement, with the
// conditions of pageQuery.
func totalsQuery(viewerID int64, q Query, ks []Kind) (string, []any) {
	var a args
	counts := make([]string, len(ks))
	for i, k := range ks {
		src := sourceOf(k, viewerID, q, &a)
		counts[i] = "(SELECT count(*) FROM (SELECT 1 FROM " + src.from + " WHERE " + src.where + capped(src) + ") c) AS " + string(k)
	}
	return "SELECT " + strings.Join(counts, ",\n       "), a
}

// capped limits a source's matches to its newest PostMatchCap, if it has an
// order for that.
func capped(src source) string {
	if src.newest == "" {
		return ""
	}
	return " ORDER BY " + src.newest + " LIMIT " + strconv.Itoa(PostMatchCap)
}

// escapeLike quotes the LIKE wildcards of s ('_' is common in handles).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Listing is a marketplace listing as search shows it.
type Listing struct {
	ID           int64                      `db:"id"`
	Title        string                     `db:"title"`
	Description  string                     `db:"description"`
	PriceMinor   int64                      `db:"price_minor"`
	Currency     string                     `db:"currency"`
	Condition    string                     `db:"condition"`
	CategorySlug string                     `db:"category_slug"`
	CategoryName string                     `db:"category_name"`
	City         string                     `db:"city"`
	Region       *string                    `db:"region"`
	Country      string                     `db:"country"`
	Status       string                     `db:"status"`
	CreatedAt    time.Time                  `db:"created_at"`
	Seller       hydrate.Author             `db:"seller"`
	Images       hydrate.JSON[[]ImageEntry] `db:"images"`
}

// ImageEntry is one picture of a listing.
type ImageEntry struct {
	URL    string  `json:"url"`
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Alt    *string `json:"alt"`
}

// listingsQuery reads the listings $1 (an array of ids) in their order.
var listingsQuery = hydrate.NewListQuery("$1", func(list string) string {
	return `
		SELECT l.id, l.title, l.description, l.price_minor, l.currency, l.condition,
		       c.slug AS category_slug, c.name AS category_name, l.city, l.region, l.country, l.status, l.created_at,
		       m.id AS "seller.author_id", m.handle AS "seller.author_handle", m.name AS "seller.author_name",
		       m.avatar_url AS "seller.author_avatar_url", m.verified AS "seller.author_verified",
		       COALESCE((SELECT json_agg(json_build_object('url', i.url, 'width', i.width, 'height', i.height, 'alt', i.alt)
		                                 ORDER BY i.position)
		                   FROM listing_images i WHERE i.listing_id = l.id), '[]') AS images
		  FROM ` + list + `
		  JOIN listings l ON l.id = page.id
		  JOIN categories c ON c.id = l.category_id
		  JOIN members m ON m.id = l.seller_id
		 WHERE m.suspended_at IS NULL
		 ORDER BY page.ord`
})

// listings reads the listings ids in the order of ids, in one query.
func (s *Store) listings(ctx context.Context, ids []int64) ([]Listing, error) {
	out := []Listing{}
	if len(ids) == 0 {
		return out, nil
	}

	if err := sqlx.SelectContext(ctx, s.prep, &out, listingsQuery.For(len(ids)), pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("read found listings: %w", err))
	}
	return out, nil
}

// Job is an open job as search shows it.
type Job struct {
	ID             int64      `db:"id"`
	Title          string     `db:"title"`
	CompanyName    string     `db:"company_name"`
	CompanyLogoURL *string    `db:"company_logo_url"`
	CompanyURL     *string    `db:"company_url"`
	City           *string    `db:"city"`
	Region         *string    `db:"region"`
	Country        *string    `db:"country"`
	Workplace      string     `db:"workplace"`
	EmploymentType string     `db:"employment_type"`
	SalaryMinMinor *int64     `db:"salary_min_minor"`
	SalaryMaxMinor *int64     `db:"salary_max_minor"`
	SalaryCurrency *string    `db:"salary_currency"`
	SalaryPeriod   *string    `db:"salary_period"`
	Description    string     `db:"description"`
	ApplyURL       *string    `db:"apply_url"`
	PostedAt       time.Time  `db:"posted_at"`
	ExpiresAt      *time.Time `db:"expires_at"`
}

// jobsQuery reads the jobs $1 (an array of ids) in their order.
var jobsQuery = hydrate.NewListQuery("$1", func(list string) string {
	return `
		SELECT j.id, j.title, j.company_name, j.company_logo_url, j.company_url, j.city, j.region, j.country,
		       j.workplace, j.employment_type, j.salary_min_minor, j.salary_max_minor, j.salary_currency,
		       j.salary_period, j.description, j.apply_url, j.posted_at, j.expires_at
		  FROM ` + list + `
		  JOIN jobs j ON j.id = page.id
		 ORDER BY page.ord`
})

// jobs reads the jobs ids in the order of ids, in one query.
func (s *Store) jobs(ctx context.Context, ids []int64) ([]Job, error) {
	out := []Job{}
	if len(ids) == 0 {
		return out, nil
	}

	if err := sqlx.SelectContext(ctx, s.prep, &out, jobsQuery.For(len(ids)), pq.Array(ids)); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("read found jobs: %w", err))
	}
	return out, nil
}
