package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/visibility"
)

// oldPostPage is the one-statement shape post search had before windows
// (pageQuery over every post): the newest MatchCap matches the viewer
// may see in a stream, ranked, and one page of them after the position
// after.
func oldPostPage(viewerID int64, text string, tags []string, after *cursor.Position, limit int) (string, []any) {
	a := args{viewerID}
	match := "p.search_tsv @@ websearch_to_tsquery('simple', " + a.add(text) + ")"
	rank := "ts_rank(p.search_tsv, websearch_to_tsquery('simple', $2))::float8"
	if tags != nil {
		a = args{viewerID}
		match, rank = "p.tags @> "+a.add(pq.Array(tags))+"::text[]", "0::float8"
	}
	keyset := ""
	if after != nil {
		keyset = fmt.Sprintf("WHERE (rank, at, id) < (%s::float8, %s::timestamptz, %s::bigint)",
			a.add(after.Rank), a.add(after.Time), a.add(after.ID))
	}
	return `
		WITH hit AS MATERIALIZED (
		    SELECT p.id, p.created_at AS at, ` + rank + ` AS rank
		      FROM posts p
		     WHERE ` + match + ` AND ` + visibility.PostInStream("p", "$1::bigint") + `
		     ORDER BY p.id DESC LIMIT ` + fmt.Sprint(MatchCap) + `
		)
		SELECT h.id, h.at, h.rank, t.total
		  FROM (SELECT count(*) AS total FROM hit) t
		  LEFT JOIN LATERAL (SELECT id, at, rank FROM hit ` + keyset + ` ORDER BY rank DESC, at DESC, id DESC LIMIT ` + a.add(limit) + `) h ON true
		 ORDER BY h.rank DESC, h.at DESC, h.id DESC`, a
}

// TestPostHitsEqualOneStatement checks, on random data over several id
// buckets, that the bucket walk (words), the windowed search (texts with "or"
// or a negation) and the post_tags tag search give exactly what the former
// one-statement search over posts gave: the same pages, in the same order,
// with the same totals, for common, rare and absent words, tags, and every
// viewer relation (follows, blocks either way, mutes, suspended authors);
// and so does a search through the matches kept for every viewer
// (Store.keptPostHits), tags included.
func TestPostHitsEqualOneStatement(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	pgtest.Social(t, db, 3000)
	// Viewers 7 and 500 block, are blocked by and mute authors; two authors
	// are suspended.
	for _, q := range []string{
		`INSERT INTO blocks (blocker_id, blocked_id) VALUES (7, 11), (13, 7), (500, 21), (500, 22), (31, 500)`,
		`INSERT INTO mutes (muter_id, muted_id) VALUES (7, 17), (500, 23), (500, 11)`,
		`UPDATE members SET suspended_at = now() WHERE id IN (3, 4)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// More posts further on, so that they span several buckets of
	// posts_search_keys_idx (16,384 ids each), one of them empty.
	for _, from := range []int{20_000, 50_000} {
		q := `INSERT INTO posts (author_id, body, visibility)
		      SELECT 1 + g % 1000, 'post', (ARRAY['public', 'public', 'followers', 'private'])[1 + g % 4] FROM generate_series(1, 1500) g`
		if _, err := db.Exec(`SELECT setval('posts_id_seq', $1)`, from); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var all []int64
	if err := db.Select(&all, `SELECT id FROM posts ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 15))
	// Words of several frequencies, some repeated (ranks differ), tags, and
	// times that collide and do not follow ids (ties are broken by id).
	var ids, hours []int64
	var bodies, tagLists []string
	for i, id := range all {
		body := fmt.Sprintf("post %d", id)
		for _, w := range []struct {
			word string
			p    float64
		}{{"common", 0.45}, {"medium", 0.08}, {"rare", 0.004}, {"late", 0}} {
			if w.word == "late" && i >= len(all)-100 {
				w.p = 0.5
			}
			for r.Float64() < w.p {
				body += " " + w.word
			}
		}
		tags := []string{}
		for _, tg := range []string{"tone", "ttwo", "tthree"} {
			if r.IntN(3) == 0 {
				tags = append(tags, tg)
				body += " #" + tg
			}
		}
		lit, err := pq.Array(tags).Value()
		if err != nil {
			t.Fatal(err)
		}
		ids, bodies, tagLists, hours = append(ids, id), append(bodies, body), append(tagLists, lit.(string)), append(hours, int64(r.IntN(500)))
	}
	const update = `
		UPDATE posts p SET body = u.body, tags = u.tags::text[], created_at = timestamptz '2025-01-01 00:00:00+00' + u.hours * interval '1 hour'
		  FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) u(id, body, tags, hours)
		 WHERE p.id = u.id`
	if _, err := db.Exec(update, pq.Array(ids), pq.Array(bodies), pq.Array(tagLists), pq.Array(hours)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM ANALYZE posts, post_tags`); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	// Stores that keep the matches of a text for every viewer (cache.go):
	// all of them (complete), the default number, and so few that most
	// viewers are walked instead.
	var cached []*Store
	for _, n := range []int{5000, postCandidates, 40} {
		c := NewStore(db).WithMatchCache(time.Hour)
		c.candidates = n
		cached = append(cached, c)
	}
	queries := []string{"common", "medium", "rare", "late", "absent", "common medium", "rare or late", "medium -common",
		`"common medium"`, "common common", "-common", "!!!", "common rare absent",
		"rare or absent", "absent or missing", "common medium or rare", `"common medium" or rare late`, "rare or -common",
		"common -common", "late or rare -common", "medium or medium rare",
		"#tone", "#ttwo #tthree", "#tone #tone", "#tnone"}
	for _, viewer := range []int64{1, 7, 500, 1000} {
		for _, text := range queries {
			q, w := read(t, s, text)
			for _, c := range cached {
				name := fmt.Sprintf("viewer %d, %q, %d kept", viewer, text, c.candidates)
				samePostPages(t, db, name, viewer, q, 37, func(after *cursor.Position, limit int) ([]hit, int, error) {
					return keptHits(t, c, viewer, q, w, after, limit)
				})
			}
			// Texts no walk serves: first windows of several sizes (pages
			// of 23 with the first only: under -race, each page of such a
			// text costs seconds).
			scans := []int64{scanWindow, 3, 37, 700, 1}
			if w.walks() || len(q.Tags) > 0 {
				scans = scans[:1] // the windows are not read
			}
			for i, scan := range scans {
				s.scan = scan
				pers := []int{100}
				if i == 0 {
					pers = append(pers, 23)
				}
				for _, per := range pers {
					name := fmt.Sprintf("viewer %d, %q, first window %d", viewer, text, scan)
					samePostPages(t, db, name, viewer, q, per, func(after *cursor.Position, limit int) ([]hit, int, error) {
						return s.hits(t.Context(), Posts, viewer, q, w, after, limit)
					})
				}
			}
		}
	}
}

// keptHits is what Search does for the posts of q (read as w) through the
// matches s keeps for every caller: the members the viewer's streams hide,
// the matches, the viewer's followees when a match is for followers only,
// and the viewer's page of them.
func keptHits(t *testing.T, s *Store, viewerID int64, q Query, w words, after *cursor.Position, limit int) ([]hit, int, error) {
	t.Helper()
	hid, err := s.hiding(t.Context(), viewerID)
	if err != nil {
		return nil, 0, err
	}
	if !s.keepsPosts(q, w) {
		return s.cachedHits(t.Context(), Posts, viewerID, hid, q, w, after, limit)
	}
	m, err := s.keptPosts(t.Context(), q, w)
	if err != nil {
		return nil, 0, err
	}
	var sd side
	if m.followersOnly {
		if sd, err = s.side(t.Context(), viewerID, true, nil, nil); err != nil {
			return nil, 0, err
		}
	}
	return s.keptPostHits(t.Context(), m, sd.followees, viewerID, hid.stream, q, w, after, limit)
}

// TestWalksEqualPageQuery checks, on random listings and jobs over several
// id buckets, that the bucket walks (by every lexeme, or by any) give
// exactly what the one-statement search (pageQuery, which texts no walk
// serves still use) gives: the same pages, in the same order, with the same
// totals, for common, rare and absent words, "or" and negations, phrases,
// suspended sellers, and closed and expired jobs.
func TestWalksEqualPageQuery(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	sellers := pgtest.Members(t, db, "seller", "suspended")
	r := rand.New(rand.NewPCG(4, 2))
	body := func() string {
		b := "item"
		for _, w := range []struct {
			word string
			p    float64
		}{{"common", 0.5}, {"medium", 0.1}, {"rare", 0.01}} {
			for r.Float64() < w.p {
				b += " " + w.word
			}
		}
		return b
	}
	// Three runs of ids, so that the rows span several buckets (1,024 ids
	// each), some empty; more matches of "common" than the cap.
	for _, from := range []int{0, 3_000, 9_000} {
		for _, table := range []string{"listings", "jobs"} {
			if from > 0 {
				if _, err := db.Exec(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2)`, table, from); err != nil {
					t.Fatal(err)
				}
			}
		}
		for range 1200 {
			title, desc := body(), body()
			seller := sellers[[]string{"seller", "suspended"}[r.IntN(2)]]
			if _, err := db.Exec(`INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition, city, country, created_at)
				VALUES ($1, 1, $2, $3, 100, 'EUR', 'good', 'Lyon', 'FR', timestamptz '2026-01-01' + $4 * interval '1 hour')`,
				seller, title, desc, r.IntN(300)); err != nil {
				t.Fatal(err)
			}
			var closed, expires *time.Time
			posted := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(300)) * time.Hour)
			switch r.IntN(6) {
			case 0:
				c := posted.Add(time.Hour)
				closed = &c
			case 1:
				e := posted.Add(time.Hour) // long expired
				expires = &e
			case 2:
				e := time.Now().Add(24 * time.Hour)
				expires = &e
			}
			if _, err := db.Exec(`INSERT INTO jobs (title, company_name, workplace, employment_type, description, posted_at, closed_at, expires_at)
				VALUES ($1, 'Company', 'remote', 'full_time', $2, $3, $4, $5)`, title, desc, posted, closed, expires); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.Exec(`UPDATE members SET suspended_at = now() WHERE handle = 'suspended'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`VACUUM ANALYZE listings, jobs`); err != nil {
		t.Fatal(err)
	}
	s := NewStore(db)
	for _, k := range []Kind{Listings, Jobs} {
		for _, text := range []string{"common", "medium", "rare", "absent", "common medium", `"common medium"`, "medium rare", "item", "!!!",
			"rare or absent", "medium or rare", "rare -common", `"common medium" or rare`, "absent or missing", "item -item", "-rare", "common or -rare"} {
			q, w := read(t, s, text)
			var after *cursor.Position
			for page := 0; ; page++ {
				got, gotTotal, err := s.hits(t.Context(), k, sellers["seller"], q, w, after, 101)
				if err != nil {
					t.Fatal(err)
				}
				// A text no walk serves takes pageQuery: compare with
				// pageQuery itself.
				query, args := pageQuery(k, sellers["seller"], q, after, 101)
				name := fmt.Sprintf("%s %q, page %d", k, text, page)
				samePage(t, db, name, got, gotTotal, query, args)
				if text == "common" && page == 0 && gotTotal != MatchCap {
					t.Errorf("%s: total %d, want the cap %d", name, gotTotal, MatchCap)
				}
				if len(got) <= 100 {
					break
				}
				last := got[99]
				after = &cursor.Position{Rank: last.Rank, Time: last.At, ID: last.ID}
			}
		}
	}
}

// TestPeopleEqualPageQuery: people search (peopleQuery, its arguments out of
// the planner's sight) finds, ranks, counts and pages members exactly as the
// one statement of pageQuery's shape over peopleSource does, for names
// shorter and longer than three characters, handles, prefixes, LIKE
// wildcards, suspended members and members a block separates from the
// viewer (either way; a muted member is found).
func TestPeopleEqualPageQuery(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	load := []string{
		`INSERT INTO members (handle, name, created_at)
		 SELECT 'user' || g || CASE WHEN g % 7 = 0 THEN '_x' ELSE '' END,
		        (ARRAY['Ann', 'Anna', 'Bruno', 'Chloé', 'Dmitri', 'Eva', 'Evan'])[1 + g % 7] || ' ' ||
		        (ARRAY['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Petit', 'Durand', 'Mart'])[1 + g % 8],
		        timestamptz '2024-01-01' + (g % 50) * interval '1 day'
		   FROM generate_series(1, 3000) g`,
		`UPDATE members SET suspended_at = now() WHERE id % 11 = 0`,
		`INSERT INTO blocks (blocker_id, blocked_id) SELECT 1, id FROM members WHERE id % 13 = 0`,
		`INSERT INTO blocks (blocker_id, blocked_id) SELECT id, 1 FROM members WHERE id % 17 = 0`,
		`INSERT INTO mutes (muter_id, muted_id) SELECT 1, id FROM members WHERE id % 5 = 0`,
		`VACUUM ANALYZE members`,
	}
	for _, q := range load {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("load: %v\n%s", err, q)
		}
	}
	s := NewStore(db)
	for _, text := range []string{"ann", "an", "a", "@user42", "user1", "chloé dubois", "mart", "martin", "evan robert", "x_", "_", "%", "zzz", "@user7_x"} {
		q, w := read(t, s, text)
		var after *cursor.Position
		for page := 0; page < 30; page++ {
			got, gotTotal, err := s.hits(t.Context(), People, 1, q, w, after, 51)
			if err != nil {
				t.Fatal(err)
			}
			var a args
			query, args := sourcePage(peopleSource(1, q, &a), a, after, 51)
			samePage(t, db, fmt.Sprintf("people %q, page %d", text, page), got, gotTotal, query, args)
			if len(got) <= 50 {
				break
			}
			last := got[49]
			after = &cursor.Position{Rank: last.Rank, Time: last.At, ID: last.ID}
		}
	}
}

// peopleSource is the reference for peopleQuery: people search by viewerID
// as a source of pageQuery, its arguments in sight of the planner (what
// search ran before peopleQuery).
func peopleSource(viewerID int64, q Query, a *args) source {
	seen := visibility.Author("m.id", a.add(viewerID)+"::bigint")
	name := a.add(q.Name)
	like := escapeLike(q.Name)
	match := name + " <% " + trigramName
	if len([]rune(q.Name)) >= 3 {
		match += " OR " + trigramName + " LIKE " + a.add("%"+like+"%")
	}
	rank := "(CASE WHEN lower(m.handle) = " + name + " THEN 2 WHEN lower(m.handle) LIKE " + a.add(like+"%") +
		" THEN 1 ELSE 0 END + word_similarity(" + name + ", " + trigramName + "))::float8"
	return source{from: "members m", where: seen + " AND (" + match + ")", id: "m.id", at: "m.created_at", rank: rank}
}

// read parses text and reads it as the store does.
func read(t *testing.T, s *Store, text string) (Query, words) {
	t.Helper()
	q, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.words(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	return q, w
}

// samePostPages pages through the post matches that fetch returns, per
// to a page, and fails t unless every page and total is oldPostPage's.
func samePostPages(t *testing.T, db *sqlx.DB, name string, viewer int64, q Query, per int,
	fetch func(after *cursor.Position, limit int) ([]hit, int, error)) {
	t.Helper()
	var after *cursor.Position
	for page := 0; ; page++ {
		got, total, err := fetch(after, per+1)
		if err != nil {
			t.Fatal(err)
		}
		query, args := oldPostPage(viewer, q.Text, q.Tags, after, per+1)
		samePage(t, db, fmt.Sprintf("%s, per page %d, page %d", name, per, page), got, total, query, args)
		if len(got) <= per {
			return
		}
		last := got[per-1]
		after = &cursor.Position{Rank: last.Rank, Time: last.At, ID: last.ID}
	}
}

// samePage fails t unless got and total are the page and the total that the
// reference statement query (shaped as pageQuery) returns.
func samePage(t *testing.T, db *sqlx.DB, name string, got []hit, total int, query string, args []any) {
	t.Helper()
	var rows []pageRow
	if err := db.Select(&rows, query, args...); err != nil {
		t.Fatal(err)
	}
	want := []int64{}
	for _, row := range rows {
		if row.ID != nil {
			want = append(want, *row.ID)
		}
	}
	ids := make([]int64, len(got))
	for i, h := range got {
		ids[i] = h.ID
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("%s: ids (-want +got):\n%s", name, diff)
	}
	if total != rows[0].Total {
		t.Fatalf("%s: total %d, want %d", name, total, rows[0].Total)
	}
}

// TestPostTagsFollowPosts: post_tags holds exactly the tags of posts, with
// their author, visibility and time, after inserts, updates and deletes,
// and when a member's deletion takes their posts.
func TestPostTagsFollowPosts(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	stmts := []string{
		`INSERT INTO members (handle, name) SELECT 'm' || g, 'Member ' || g FROM generate_series(1, 3) g`,
		`INSERT INTO posts (author_id, body, tags) VALUES (1, 'a #x #y', '{x,y}'), (2, 'b #y', '{y}'), (3, 'c', '{}')`,
		`INSERT INTO posts (author_id, body, tags, visibility) SELECT 1 + g % 3, 'd', ARRAY['z' || g % 4], 'followers' FROM generate_series(1, 50) g`,
		`UPDATE posts SET tags = '{y,w}', visibility = 'private' WHERE body = 'a #x #y'`,
		`UPDATE posts SET created_at = created_at - interval '1 day', author_id = 3 WHERE body = 'b #y'`,
		`UPDATE posts SET like_count = 1`,
		`DELETE FROM posts WHERE id % 7 = 0`,
		`DELETE FROM members WHERE id = 2`,
	}
	const diff = `SELECT count(*) FROM (
		(SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at FROM posts p, unnest(p.tags) t(tag)
		 EXCEPT ALL SELECT post_id, tag, author_id, visibility, created_at FROM post_tags)
		UNION ALL
		(SELECT post_id, tag, author_id, visibility, created_at FROM post_tags
		 EXCEPT ALL SELECT p.id, t.tag, p.author_id, p.visibility, p.created_at FROM posts p, unnest(p.tags) t(tag))) d`
	for i, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		var n, rows int
		if err := db.Get(&n, diff); err != nil {
			t.Fatal(err)
		}
		if err := db.Get(&rows, `SELECT count(*) FROM post_tags`); err != nil {
			t.Fatal(err)
		}
		if n != 0 || (i > 0 && rows == 0) {
			t.Errorf("after %s: %d rows differ from posts.tags (%d rows)", q, n, rows)
		}
	}
}

// TestSide: the one statement of Store.side reads the followees of the
// viewer, ascending, and the listings and jobs asked, in the order asked,
// every column as it is stored (nulls included), leaving out unknown ids,
// the listings of suspended sellers and the jobs closed or expired.
func TestSide(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ids := pgtest.Members(t, db, "viewer", "seller", "plain", "gone", "a", "b", "c")
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	exec(`UPDATE members SET avatar_url = '/media/avatars/seller.png', verified = true WHERE id = $1`, ids["seller"])
	exec(`INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2), ($1, $3), ($1, $4), ($5, $1)`,
		ids["viewer"], ids["c"], ids["seller"], ids["a"], ids["b"])
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	listing := func(seller, title string, region *string, at time.Time) int64 {
		t.Helper()
		var id int64
		const q = `
			INSERT INTO listings (seller_id, category_id, title, description, price_minor, currency, condition, city, region, country, created_at)
			SELECT $1, id, $2, 'About ' || $2, 1250, 'EUR', 'like_new', 'Lyon', $3, 'FR', $4 FROM categories WHERE slug = 'books'
			RETURNING id`
		if err := db.Get(&id, q, ids[seller], title, region, at); err != nil {
			t.Fatal(err)
		}
		return id
	}
	region := "Rhône"
	shelf, lamp, gone := listing("seller", "Shelf", &region, t0), listing("plain", "Lamp", nil, t0.Add(time.Minute)), listing("gone", "Gone", nil, t0)
	exec(`INSERT INTO listing_images (listing_id, position, url, width, height, alt)
	      VALUES ($1, 1, '/media/market/b.jpg', 800, 600, NULL), ($1, 0, '/media/market/a.jpg', 1200, 900, 'Front')`, shelf)
	exec(`UPDATE members SET suspended_at = now() WHERE id = $1`, ids["gone"])
	job := func(title string, full bool, closed, expires *time.Time) int64 {
		t.Helper()
		var id int64
		q := `INSERT INTO jobs (title, company_name, workplace, employment_type, description, posted_at, closed_at, expires_at)
		      VALUES ($1, 'Acme', 'remote', 'contract', 'Do ' || $1, $2, $3, $4) RETURNING id`
		if full {
			q = `INSERT INTO jobs (title, company_name, company_logo_url, company_url, city, region, country, workplace, employment_type,
			                       salary_min_minor, salary_max_minor, salary_currency, salary_period, description, apply_url, posted_at, closed_at, expires_at)
			     VALUES ($1, 'Acme', '/media/logos/acme.png', 'https://acme.example', 'Berlin', 'Berlin', 'DE', 'hybrid', 'full_time',
			             6000000, 7000000, 'EUR', 'year', 'Do ' || $1, 'https://acme.example/apply', $2, $3, $4) RETURNING id`
		}
		if err := db.Get(&id, q, title, t0, closed, expires); err != nil {
			t.Fatal(err)
		}
		return id
	}
	later, past := time.Now().Add(24*time.Hour).UTC().Truncate(time.Microsecond), t0.Add(time.Hour)
	full, bare := job("Full", true, nil, &later), job("Bare", false, nil, nil)
	closed, expired := job("Closed", false, &t0, nil), job("Expired", false, nil, &past)

	s := NewStore(db)
	got, err := s.side(t.Context(), ids["viewer"], true, []int64{lamp, gone, 1 << 40, shelf}, []int64{expired, full, closed, bare})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	i64 := func(n int64) *int64 { return &n }
	want := side{
		followees: slices.Sorted(slices.Values([]int64{ids["a"], ids["c"], ids["seller"]})),
		listings: []Listing{
			{ID: lamp, Title: "Lamp", Description: "About Lamp", PriceMinor: 1250, Currency: "EUR", Condition: "like_new",
				CategorySlug: "books", CategoryName: "Books", City: "Lyon", Country: "FR", Status: "active", CreatedAt: t0.Add(time.Minute),
				Seller: apiurl.Author{ID: ids["plain"], Handle: "plain", Name: "plain"}, Images: []ImageEntry{}},
			{ID: shelf, Title: "Shelf", Description: "About Shelf", PriceMinor: 1250, Currency: "EUR", Condition: "like_new",
				CategorySlug: "books", CategoryName: "Books", City: "Lyon", Region: &region, Country: "FR", Status: "active", CreatedAt: t0,
				Seller: apiurl.Author{ID: ids["seller"], Handle: "seller", Name: "seller", AvatarURL: str("/media/avatars/seller.png"), Verified: true},
				Images: []ImageEntry{{URL: "/media/market/a.jpg", Width: 1200, Height: 900, Alt: str("Front")}, {URL: "/media/market/b.jpg", Width: 800, Height: 600}}},
		},
		jobs: []Job{
			{ID: full, Title: "Full", CompanyName: "Acme", CompanyLogoURL: str("/media/logos/acme.png"), CompanyURL: str("https://acme.example"),
				City: str("Berlin"), Region: str("Berlin"), Country: str("DE"), Workplace: "hybrid", EmploymentType: "full_time",
				SalaryMinMinor: i64(6000000), SalaryMaxMinor: i64(7000000), SalaryCurrency: str("EUR"), SalaryPeriod: str("year"),
				Description: "Do Full", ApplyURL: str("https://acme.example/apply"), PostedAt: t0, ExpiresAt: &later},
			{ID: bare, Title: "Bare", CompanyName: "Acme", Workplace: "remote", EmploymentType: "contract", Description: "Do Bare", PostedAt: t0},
		},
	}
	opts := cmp.Options{cmp.AllowUnexported(side{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("side (-want +got):\n%s", diff)
	}

	// Prepared, the statement settles on its generic plan: after the five
	// custom plans PostgreSQL always tries first, no search plans it again.
	conn, err := db.Connx(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	statement := sideStatement(5, 5)
	st, err := conn.PreparexContext(t.Context(), statement)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 10 {
		lists := [][]int64{{shelf, lamp}, {1 << 40}, {gone, lamp, shelf, 1, 2}}[i%3]
		rows, err := st.QueryContext(t.Context(), ids["viewer"], pq.Array(lists), pq.Array([]int64{full, bare}))
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if generic, custom := pgtest.Plans(t, conn, statement); generic != 5 || custom != 5 {
		t.Errorf("side: %d generic and %d custom plans in 10 runs; want 5 and 5", generic, custom)
	}

	// Without followees nor ids: nothing, and no followees even for a
	// member who follows some.
	got, err = s.side(t.Context(), ids["viewer"], false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(side{listings: []Listing{}, jobs: []Job{}}, got, opts); diff != "" {
		t.Errorf("side of nothing (-want +got):\n%s", diff)
	}
}
