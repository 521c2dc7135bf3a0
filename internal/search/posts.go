package search

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

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
// m.followersOnly) and whose streams hide the authors hidden: the viewer's
// matches are the candidates the visibility rule lets them see
// (visibility.Sees, with the followees and hidden read for this request),
// the newest MatchCap of them, ranked and paged as the walk does. A viewer
// who may see fewer than MatchCap of incomplete candidates is walked
// instead.
func (s *Store) keptPostHits(ctx context.Context, m *postMatches, followees []int64, viewerID int64, hidden visibility.Hidden, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	if hits, total, ok := m.pageFor(viewerID, followees, hidden, after, limit); ok {
		return hits, total, nil
	}
	return s.hits(ctx, Posts, viewerID, q, w, after, limit)
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
		           AND ` + visibility.PostInStream("p", "$1::bigint") + `
		         ORDER BY p.id DESC
		         LIMIT $5) w`

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
		if err := sqlx.SelectContext(ctx, pg.Reader(ctx, s.db), &rows, postWindow, viewerID, q.Text, lo, hi, MatchCap-len(all)); err != nil {
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
