package httpapi_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	env := apitest.NewWith(t, apitest.Options{Metrics: reg, RateWindow: time.Hour})
	env.Member("alice")
	tok := env.Token("alice", auth.ScopeRead)
	for range 122 {
		env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/me", Token: tok})
	}
	env.Do(t, apitest.Request{Method: "GET", Path: "/api/v1/nope", Token: tok})

	want := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
		if mf.GetName() != "socialapi_http_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				key += l.GetName() + "=" + l.GetValue() + ","
			}
			want[key] = m.GetCounter().GetValue()
		}
	}
	if got := want["method=GET,route=/api/v1/me,status=200,"]; got != 120 {
		t.Errorf("200s on /me = %v, want 120 (%v)", got, want)
	}
	if got := want["method=GET,route=/api/v1/me,status=429,"]; got != 2 {
		t.Errorf("429s on /me = %v, want 2", got)
	}
	for _, n := range []string{"socialapi_http_request_duration_seconds", "socialapi_rate_limited_total", "go_sql_max_open_connections"} {
		if !names[n] {
			t.Errorf("metric %s missing", n)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "socialapi_rate_limited_total"); err != nil || n != 1 {
		t.Errorf("rate_limited series = %d, %v", n, err)
	}
}
