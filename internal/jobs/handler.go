package jobs

import (
	"context"
	"net/url"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/cursor"
	"github.com/socialnet/socialapi/internal/hydrate"
)

// Handler answers ListJobs.
type Handler struct {
	store     *Store
	publicURL string
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{store: s, publicURL: publicURL}
}

// ListJobs implements gen.StrictServerInterface.
func (h *Handler) ListJobs(ctx context.Context, req gen.ListJobsRequestObject) (gen.ListJobsResponseObject, error) {
	f, query := filterOf(req.Params)
	r := cursor.Request{Scope: "jobs", Self: h.publicURL + "/api/v1/jobs", Query: query, PerPage: req.Params.PerPage, Cursor: req.Params.Cursor}
	items, page, err := cursor.Paginate(r, func(after *cursor.Position, limit int) ([]Item, error) {
		return h.store.List(ctx, f, after, limit)
	})
	if err != nil {
		return nil, err
	}
	return gen.ListJobs200JSONResponse{
		Body:    gen.JobList{Data: ToAPI(hydrate.URLs{Public: h.publicURL}, items), Meta: hydrate.ListMeta(page)},
		Headers: gen.ListJobs200ResponseHeaders{Link: page.Link()},
	}, nil
}

// filterOf turns the request parameters into a Filter and the query values
// the cursor is bound to.
func filterOf(p gen.ListJobsParams) (Filter, url.Values) {
	f := Filter{Q: cursor.Deref(p.Q), Workplace: cursor.Deref(p.Workplace), EmploymentType: cursor.Deref(p.EmploymentType),
		Country: cursor.Deref(p.Country)}
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "workplace": f.Workplace, "employment_type": f.EmploymentType, "country": f.Country} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return f, v
}

// ToAPI converts jobs to their API form (the jobs list's and search's).
func ToAPI(urls hydrate.URLs, items []Item) []gen.Job {
	out := make([]gen.Job, len(items))
	for i, it := range items {
		j := gen.Job{
			ID:             it.ID,
			Title:          it.Title,
			Company:        gen.Company{Name: it.CompanyName, Logo: urls.MediaPtr(it.CompanyLogoURL), URL: it.CompanyURL},
			Workplace:      gen.JobWorkplace(it.Workplace),
			EmploymentType: gen.EmploymentType(it.EmploymentType),
			Description:    it.Description,
			ApplyURL:       it.ApplyURL,
			PostedAt:       apitime.New(it.PostedAt),
			ExpiresAt:      apitime.Ptr(it.ExpiresAt),
			URL:            urls.Public + "/jobs/" + strconv.FormatInt(it.ID, 10),
		}
		// A location needs a country and a city (the schema requires both);
		// a job without them is located nowhere in particular (remote).
		if it.City != nil && it.Country != nil {
			j.Location = &gen.Location{City: *it.City, Region: it.Region, Country: *it.Country}
		}
		if it.SalaryMinMinor != nil && it.SalaryCurrency != nil && it.SalaryPeriod != nil {
			j.Salary = &gen.Salary{MinMinor: *it.SalaryMinMinor, MaxMinor: it.SalaryMaxMinor,
				Currency: *it.SalaryCurrency, Period: gen.SalaryPeriod(*it.SalaryPeriod)}
		}
		out[i] = j
	}
	return out
}
