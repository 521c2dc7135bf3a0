package search

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/visibility"
)

// Listing is a marketplace listing as search shows it: as the market lists
// it.
type Listing = market.Item

// ImageEntry is one picture of a listing.
type ImageEntry = market.Image

// Job is an open job as search shows it: as the jobs list shows it.
type Job = jobs.Item

// listingSeen is true for a listing (aliased l) that search shows, as the
// market lists them: listings of suspended sellers are left out
// (visibility.NotSuspended: an anti-join with the few suspended members,
// suspended_members, rather than a member lookup per match).
func listingSeen(l string) string { return visibility.NotSuspended(l + ".seller_id") }

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
var sideListings = cursor.NewListQuery("$2", func(list string) string {
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
var sideJobs = cursor.NewListQuery("$3", func(list string) string {
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
