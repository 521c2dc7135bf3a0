package jobs

import (
	"context"
	"strconv"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/cursor"
)

// filterOf turns the request parameters into a Filter.
func filterOf(p gen.ListJobsParams) Filter {
	return Filter{Q: cursor.Deref(p.Q), Workplace: cursor.Deref(p.Workplace), EmploymentType: cursor.Deref(p.EmploymentType),
		Country: cursor.Deref(p.Country)}
}

// Handler answers ListJobs.
type Handler struct {
	jobs apiurl.Lister[Filter, Item, gen.ListJobsResponseObject]
}

// NewHandler returns a Handler; publicURL is the absolute base of every URL
// it writes.
func NewHandler(s *Store, publicURL string) *Handler {
	return &Handler{jobs: apiurl.NewLister("jobs", publicURL, s.List, respond)}
}

// ListJobs implements gen.StrictServerInterface.
func (h *Handler) ListJobs(ctx context.Context, req gen.ListJobsRequestObject) (gen.ListJobsResponseObject, error) {
	f := filterOf(req.Params)
	return h.jobs.Answer(ctx, f, f.values(), req.Params.PerPage, req.Params.Cursor)
}

// ToAPI converts jobs to their API form (the jobs list's and search's).
func ToAPI(urls apiurl.URLs, items []Item) []gen.Job {
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

// respond is ListJobs' 200 response to a page of jobs.
func respond(urls apiurl.URLs, items []Item, page cursor.Page) gen.ListJobsResponseObject {
	return gen.ListJobs200JSONResponse{
		Body:    gen.JobList{Data: ToAPI(urls, items), Meta: apiurl.ListMeta(page)},
		Headers: gen.ListJobs200ResponseHeaders{Link: page.Link()},
	}
}
