package httpapi_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/socialnet/socialapi/internal/apitest"
	"github.com/socialnet/socialapi/internal/auth"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	env := apitest.NewWith(t, apitest.Options{Metrics: reg, RateWindow: time.Hour})
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeRead)
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
		t.Run(n, func(t *testing.T) {
			if !names[n] {
				t.Errorf("metric %s missing", n)
			}
		})
	}
	if n, err := testutil.GatherAndCount(reg, "socialapi_rate_limited_total"); err != nil || n != 1 {
		t.Errorf("rate_limited series = %d, %v", n, err)
	}
}

// TestMetricsCardinalityIsBounded sends requests with random methods and
// paths, some with a token, and checks that they add only a bounded number
// of series: every label comes from a closed set (a known method or
// "other", a registered route template or "unmatched", a status number).
func TestMetricsCardinalityIsBounded(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	env := apitest.NewWith(t, apitest.Options{Metrics: reg, RateWindow: time.Hour})
	env.Member(t, "alice")
	tok := env.Token(t, "alice", auth.ScopeWrite)
	series := func() int {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, mf := range mfs {
			n += len(mf.GetMetric())
		}
		return n
	}
	before := series()

	rnd := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		b := make([]byte, 1+rnd.IntN(n))
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		return string(b)
	}
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	known := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}
	paths := []func() string{
		func() string { return "/" + word(letters, 40) },
		func() string { return "/api/v1/" + word(letters, 40) },
		func() string {
			return "/api/v1/" + word(letters, 10) + "/" + word(letters, 10) + "/" + word(letters, 10)
		},
		func() string { return "/api/v1/posts/" + word("0123456789", 12) },
		func() string { return "/api/v1/users/" + word(letters, 20) + "/posts" },
		func() string { return "/api/v1/me" },
		func() string { return "/healthz" },
	}
	for range 10_000 {
		method := word(letters, 24)
		if rnd.IntN(3) == 0 {
			method = known[rnd.IntN(len(known))]
		}
		req := apitest.Request{Method: method, Path: paths[rnd.IntN(len(paths))]()}
		if rnd.IntN(10) == 0 {
			req.Token = tok
		}
		env.Send(req)
	}

	// 8 method labels × the few routes these paths can match × the few
	// statuses they get, in two families; one series per random method or
	// path would add thousands.
	grown := series() - before
	t.Logf("series: %d before, %d added", before, grown)
	if grown > 120 {
		t.Errorf("10,000 requests with random methods and paths added %d series, want at most 120", grown)
	}
	routes := map[string]bool{"unmatched": true}
	for _, r := range env.Echo.Routes() {
		if r.Method != echo.RouteNotFound {
			routes[r.Path] = true
		}
	}
	methods := map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true, "other": true}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "socialapi_http_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				v := l.GetValue()
				ok := true
				switch l.GetName() {
				case "method":
					ok = methods[v]
				case "route":
					ok = routes[v]
				case "status":
					n, err := strconv.Atoi(v)
					ok = err == nil && n >= 100 && n <= 599
				}
				if !ok {
					t.Errorf("%s: label %s=%q is outside its closed set", mf.GetName(), l.GetName(), v)
				}
			}
		}
	}
}
