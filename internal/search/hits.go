package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// hit is one match chosen for a page: its id and its sort key.
type hit struct {
	ID   int64     `db:"id"`
	At   time.Time `db:"at"`
	Rank float64   `db:"rank"`
}

// Position is the keyset position of h.
func (h hit) Position() cursor.Position { return cursor.Position{Rank: h.Rank, Time: h.At, ID: h.ID} }

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
// hid is what the caller's reads hide (read when s keeps matches): people
// matches are kept per digest of the members people search hides.
func (s *Store) cachedHits(ctx context.Context, k Kind, viewerID int64, hid hiding, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	if s.matches == nil || k == Posts {
		return s.hits(ctx, k, viewerID, q, w, after, limit)
	}
	text, hidden := q.Text, ""
	if k == People {
		text, hidden = q.Name, hid.people
	}
	r, err := s.matches.load(ctx, cacheKey(k, text, hidden, after, limit), func() (matchResult, error) {
		hits, total, err := s.hits(ctx, k, viewerID, q, w, after, limit)
		return matchResult{hits: hits, total: total}, err
	})
	if err != nil {
		return nil, 0, pg.Classify(ctx, err)
	}
	return r.hits, r.total, nil
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
		query, args = peopleQuery, peopleArgs(viewerID, q, after, limit)
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

// source is how one kind matches: the rows (from), the match condition
// (where), and the id, sort time and relevance (rank) of a row.
type source struct {
	from, where, id, at, rank string
	// newest, when set, is the SQL expression ordering rows newest first
	// through an index: only the MatchCap newest matches are ranked
	// and counted.
	newest string
}

// args collects query arguments and hands out their placeholders, so no value
// is ever formatted into SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

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
		vis := visibility.PostInStream("t", a.add(viewerID)+"::bigint")
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

// walkOf names a walk: the kind it searches, and how it looks up its
// lexemes (keysAll or keysAny).
type walkOf struct {
	kind Kind
	keys string
}

// walks are the bucket walks of the full-text kinds, by either way of
// looking up the lexemes: posts under the stream's visibility rule (a
// search is a stream: mutes hide too), listings and jobs
// under the conditions of sourceOf.
var walks = func() map[walkOf]string {
	m := make(map[walkOf]string)
	for _, keys := range []string{keysAll, keysAny} {
		m[walkOf{Posts, keys}] = walk("posts", "p", "post_search_bucket", "created_at", visibility.PostInStream("p", "(SELECT viewer FROM a)"), keys)
		m[walkOf{Listings, keys}] = walk("listings", "l", "listing_search_bucket", "created_at", listingSeen("l"), keys)
		m[walkOf{Jobs, keys}] = walk("jobs", "j", "job_search_bucket", "posted_at", jobs.Open, keys)
	}
	return m
}()

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
