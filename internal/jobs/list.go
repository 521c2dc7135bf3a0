package jobs

import (
	"context"
	"fmt"
	"github.com/jmoiron/sqlx"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/pg"
)

// Filter selects open jobs.
type Filter struct {
	Q              string // websearch syntax over title, company and description; "" matches all
	Workplace      string // "" for all
	EmploymentType string // "" for all
	Country        string // ISO 3166-1 alpha-2; "" for all
}

// values are the query values the cursor is bound to: the filters f sets
// (an absent filter and an empty one select alike).
func (f Filter) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "workplace": f.Workplace, "employment_type": f.EmploymentType, "country": f.Country} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// Item is a job as lists show it.
type Item struct {
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
	Rank           float64    `db:"rank"` // text relevance; 0 without a ranked query
}

// Position is the keyset position of it.
func (it Item) Position() cursor.Position {
	return cursor.Position{Time: it.PostedAt, ID: it.ID, Rank: it.Rank}
}

// ItemColumns is the select list of an Item over jobs j with the relevance
// expression rank.
func ItemColumns(rank string) string {
	return `j.id, j.title, j.company_name, j.company_logo_url, j.company_url, j.city, j.region, j.country,
	        j.workplace, j.employment_type, j.salary_min_minor, j.salary_max_minor, j.salary_currency,
	        j.salary_period, j.description, j.apply_url, j.posted_at, j.expires_at, ` + rank + ` AS rank`
}

// Open is the SQL condition of an open job j: not closed, not expired.
const Open = "j.closed_at IS NULL AND (j.expires_at IS NULL OR j.expires_at > now())"

// List returns up to limit open jobs matching f after the position after
// (nil: from the start), newest first (posted_at, then id, descending).
func (s *Store) List(ctx context.Context, f Filter, after *cursor.Position, limit int) ([]Item, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{Open}
	if f.Q != "" {
		where = append(where, "j.search_tsv @@ websearch_to_tsquery('simple', "+arg(f.Q)+")")
	}
	if f.Workplace != "" {
		where = append(where, "j.workplace = "+arg(f.Workplace))
	}
	if f.EmploymentType != "" {
		where = append(where, "j.employment_type = "+arg(f.EmploymentType))
	}
	if f.Country != "" {
		where = append(where, "j.country = "+arg(f.Country))
	}
	if after != nil {
		where = append(where, fmt.Sprintf("(j.posted_at, j.id) < (%s, %s)", arg(after.Time), arg(after.ID)))
	}
	q := `SELECT ` + ItemColumns("0::float8") + `
		  FROM jobs j
		 WHERE ` + strings.Join(where, " AND ") + `
		 ORDER BY j.posted_at DESC, j.id DESC
		 LIMIT ` + arg(limit)
	items := []Item{}
	if err := sqlx.SelectContext(ctx, pg.Reader(ctx, s.db), &items, q, args...); err != nil {
		return nil, pg.Classify(ctx, fmt.Errorf("list jobs: %w", err))
	}
	return items, nil
}
