package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/jobs"
)

func TestListJobs(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
	s := jobs.NewStore(env.DB)
	now := time.Now().UTC().Truncate(time.Second)
	ago := func(d int) *time.Time { v := now.Add(-time.Duration(d) * time.Hour); return &v }
	in := []jobs.NewJob{
		{Title: "Senior Go Engineer", CompanyName: "Acme Cloud", CompanyLogoURL: ptr("/media/acme.png"), City: ptr("Berlin"), Country: ptr("DE"),
			Workplace: "hybrid", EmploymentType: "full_time", Description: "APIs and Postgres",
			Salary:   &jobs.Salary{MinMinor: 7000000, MaxMinor: ptr(int64(9000000)), Currency: "EUR", Period: "year"},
			ApplyURL: ptr("https://acme.example/apply"), PostedAt: ago(50), ExpiresAt: ptr(now.Add(24 * time.Hour))},
		{Title: "Barista", CompanyName: "Bean Bar", City: ptr("Lyon"), Country: ptr("FR"), Workplace: "on_site",
			EmploymentType: "part_time", Description: "Coffee, golang not needed", PostedAt: ago(40)},
		{Title: "Go contractor", CompanyName: "Gophers Ltd", Workplace: "remote", EmploymentType: "contract",
			Description: "Remote work", PostedAt: ago(30)},
		{Title: "Intern", CompanyName: "Acme Cloud", City: ptr("Berlin"), Country: ptr("DE"), Workplace: "on_site",
			EmploymentType: "internship", Description: "Learn Go", PostedAt: ago(20)},
		{Title: "Closed Go job", CompanyName: "Gone", Workplace: "remote", EmploymentType: "full_time", Description: "Go", PostedAt: ago(10), Closed: true},
		{Title: "Expired Go job", CompanyName: "Late", Workplace: "remote", EmploymentType: "full_time", Description: "Go", PostedAt: ago(10), ExpiresAt: ago(1)},
	}
	var ids []int64
	for _, nj := range in {
		j, err := s.Create(context.Background(), nj)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	j := func(n ...int) []int64 {
		out := []int64{}
		for _, i := range n {
			out = append(out, ids[i-1])
		}
		return out
	}
	tests := []struct {
		query string
		want  []int64
	}{
		{"", j(4, 3, 2, 1)},
		{"q=go", j(4, 3, 1)},
		{"q=acme", j(4, 1)},
		{"q=golang", j(2)},
		{"workplace=remote", j(3)},
		{"employment_type=full_time", j(1)},
		{"country=DE", j(4, 1)},
		{"country=DE&workplace=on_site", j(4)},
		{"country=US", j()},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var walked []int64
			for _, p := range env.Walk(t, tok, "/api/v1/jobs?per_page=1&"+tt.query, 10) {
				walked = append(walked, apitest.IDs(t, p)...)
			}
			if diff := cmp.Diff(tt.want, append([]int64{}, walked...)); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
		})
	}

	resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/jobs?q=senior", Token: tok})
	var got gen.JobList
	resp.JSON(t, &got)
	want := gen.Job{
		ID: ids[0], Title: "Senior Go Engineer",
		Company:  gen.Company{Name: "Acme Cloud", Logo: ptr(apitest.PublicURL + "/media/acme.png")},
		Location: &gen.Location{City: "Berlin", Country: "DE"}, Workplace: "hybrid", EmploymentType: "full_time",
		Salary:      &gen.Salary{MinMinor: 7000000, MaxMinor: ptr(int64(9000000)), Currency: "EUR", Period: "year"},
		Description: "APIs and Postgres", ApplyURL: ptr("https://acme.example/apply"),
		URL: fmt.Sprintf("%s/jobs/%d", apitest.PublicURL, ids[0]),
	}
	if len(got.Data) != 1 {
		t.Fatalf("q=senior: %d jobs", len(got.Data))
	}
	g := got.Data[0]
	if !g.PostedAt.Equal(*ago(50)) || g.ExpiresAt == nil || !g.ExpiresAt.Equal(now.Add(24*time.Hour)) {
		t.Errorf("posted_at %v expires_at %v", g.PostedAt, g.ExpiresAt)
	}
	g.PostedAt, g.ExpiresAt = want.PostedAt, want.ExpiresAt
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("job (-want +got):\n%s", diff)
	}

	resp = env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/jobs?q=remote", Token: tok})
	if resp.Status != 200 || !strings.Contains(string(resp.Body), `"location":null,`) || !strings.Contains(string(resp.Body), `"salary":null,`) {
		t.Errorf("remote job without location or salary: %s", resp.Body)
	}
	for _, q := range []string{"workplace=moon", "country=de", "employment_type=x", "q="} {
		resp := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/jobs?" + q, Token: tok})
		if resp.Status != 400 || resp.Problem(t).Code != "invalid_parameter" {
			t.Errorf("%s: status %d: %s", q, resp.Status, resp.Body)
		}
	}
	page := env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/jobs?per_page=1", Token: tok})
	var first gen.JobList
	page.JSON(t, &first)
	resp = env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/jobs?q=go&cursor=" + *first.Meta.NextCursor, Token: tok})
	if resp.Status != 400 || resp.Problem(t).Code != "invalid_cursor" {
		t.Errorf("cursor with other filters: status %d: %s", resp.Status, resp.Body)
	}
}
