// Package jobs writes job offers and lists the open ones.
package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/pg"
)

// Salary is a job's pay in the currency's minor unit per period.
type Salary struct {
	MinMinor int64
	MaxMinor *int64
	Currency string // ISO 4217
	Period   string // hour, day, week, month or year
}

// NewJob describes a job offer to publish.
type NewJob struct {
	Title          string
	CompanyName    string
	CompanyLogoURL *string
	CompanyURL     *string
	City           *string
	Region         *string
	Country        *string // ISO 3166-1 alpha-2
	Workplace      string  // on_site, hybrid or remote
	EmploymentType string  // full_time, part_time, contract, temporary, internship or other
	Salary         *Salary
	Description    string
	ApplyURL       *string
	PostedAt       *time.Time // nil: now
	ExpiresAt      *time.Time
	// Closed stores the job as closed (fixtures): closed at the later of
	// now and PostedAt.
	Closed bool
}

// Job is a stored job as Create returns it.
type Job struct {
	ID        int64      `db:"id"`
	PostedAt  time.Time  `db:"posted_at"`
	ExpiresAt *time.Time `db:"expires_at"`
	ClosedAt  *time.Time `db:"closed_at"`
}

// Store writes jobs.
type Store struct{ db *sqlx.DB }

// NewStore returns a Store.
func NewStore(db *sqlx.DB) *Store { return &Store{db: db} }

// Create publishes a job offer.
func (s *Store) Create(ctx context.Context, nj NewJob) (Job, error) { return CreateTx(ctx, s.db, nj) }

// CreateTx is Create within a caller's transaction.
func CreateTx(ctx context.Context, ex sqlx.ExtContext, nj NewJob) (Job, error) {
	var sal Salary
	if nj.Salary != nil {
		sal = *nj.Salary
	}
	const q = `
		WITH v AS (SELECT date_trunc('second', COALESCE($16::timestamptz, now())) AS posted_at)
		INSERT INTO jobs (title, company_name, company_logo_url, company_url, city, region, country, workplace,
		                  employment_type, salary_min_minor, salary_max_minor, salary_currency, salary_period,
		                  description, apply_url, posted_at, expires_at, closed_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9,
		       CASE WHEN $10 THEN $11::bigint END, $12, CASE WHEN $10 THEN $13 END, CASE WHEN $10 THEN $14 END,
		       $15, $18, v.posted_at, $17, CASE WHEN $19 THEN GREATEST(now(), v.posted_at) END
		  FROM v
		RETURNING id, posted_at, expires_at, closed_at`
	var j Job
	err := sqlx.GetContext(ctx, ex, &j, q, nj.Title, nj.CompanyName, nj.CompanyLogoURL, nj.CompanyURL,
		nj.City, nj.Region, nj.Country, nj.Workplace, nj.EmploymentType,
		nj.Salary != nil, sal.MinMinor, sal.MaxMinor, sal.Currency, sal.Period,
		nj.Description, nj.PostedAt, nj.ExpiresAt, nj.ApplyURL, nj.Closed)
	if err != nil {
		if f, ok := fields[pg.ConstraintOf(err)]; ok {
			return Job{}, apperr.Field(f[0], apperr.FieldInvalid, f[1])
		}
		return Job{}, pg.Classify(ctx, fmt.Errorf("create job: %w", err))
	}
	return j, nil
}

// fields maps the constraints a client's input can violate to the field and
// the message.
var fields = map[string][2]string{
	"jobs_title_check":            {"/title", "title must be 1 to 200 characters"},
	"jobs_company_name_check":     {"/company/name", "company name must be 1 to 200 characters"},
	"jobs_company_logo_url_check": {"/company/logo", "company logo must be 1 to 2048 characters"},
	"jobs_company_url_check":      {"/company/url", "company url must be 1 to 2048 characters"},
	"jobs_city_check":             {"/city", "city must be 1 to 100 characters"},
	"jobs_region_check":           {"/region", "region must be 1 to 100 characters"},
	"jobs_country_check":          {"/country", "country must be an ISO 3166-1 alpha-2 code"},
	"jobs_workplace_check":        {"/workplace", "workplace must be on_site, hybrid or remote"},
	"jobs_employment_type_check":  {"/employment_type", "employment_type must be full_time, part_time, contract, temporary, internship or other"},
	"jobs_salary_min_minor_check": {"/salary/min_minor", "min_minor must not be negative"},
	"jobs_salary_max_minor_check": {"/salary/max_minor", "max_minor must not be below min_minor"},
	"jobs_salary_currency_check":  {"/salary/currency", "currency must be an ISO 4217 code"},
	"jobs_salary_period_check":    {"/salary/period", "period must be hour, day, week, month or year"},
	"jobs_description_check":      {"/description", "description must be 1 to 10000 characters"},
	"jobs_apply_url_check":        {"/apply_url", "apply_url must be 1 to 2048 characters"},
	"jobs_expires_at_check":       {"/expires_at", "expires_at must be after posted_at"},
}
