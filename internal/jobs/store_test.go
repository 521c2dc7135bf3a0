package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
)

func ptr[T any](v T) *T { return &v }

func TestCreate(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	s := jobs.NewStore(db)
	posted := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	valid := func() jobs.NewJob {
		return jobs.NewJob{Title: "Backend Engineer", CompanyName: "Harbour", Workplace: "hybrid", EmploymentType: "full_time",
			Description: "Go and PostgreSQL", PostedAt: &posted, ExpiresAt: ptr(posted.AddDate(0, 2, 0)),
			Salary: &jobs.Salary{MinMinor: 7500000, MaxMinor: ptr(int64(9000000)), Currency: "EUR", Period: "year"}}
	}
	j, err := s.Create(ctx, valid())
	if err != nil {
		t.Fatal(err)
	}
	if !j.PostedAt.Equal(posted) || j.ClosedAt != nil {
		t.Errorf("Create = %+v, want posted at %v and open", j, posted)
	}
	closed := valid()
	closed.Closed, closed.Salary = true, nil
	if j, err := s.Create(ctx, closed); err != nil || j.ClosedAt == nil || j.ClosedAt.Before(posted) {
		t.Errorf("Create closed = %+v, %v, want closed after posting", j, err)
	}
	tests := []struct {
		name      string
		edit      func(*jobs.NewJob)
		wantField string
	}{
		{"bad workplace", func(n *jobs.NewJob) { n.Workplace = "moon" }, "/workplace"},
		{"max below min", func(n *jobs.NewJob) { n.Salary.MaxMinor = ptr(int64(1)) }, "/salary/max_minor"},
		{"expires before posted", func(n *jobs.NewJob) { n.ExpiresAt = ptr(posted.Add(-time.Hour)) }, "/expires_at"},
		{"bad country", func(n *jobs.NewJob) { n.Country = ptr("Germany") }, "/country"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.edit(&in)
			_, err := s.Create(ctx, in)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.ValidationFailed || ae.Fields[0].Pointer != tt.wantField {
				t.Errorf("%s: Create error = %v, want validation_failed on %s", tt.name, err, tt.wantField)
			}
		})
	}
}
