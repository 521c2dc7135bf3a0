package httpapi

import (
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the service's Prometheus series. They are served by the
// operator listener (METRICS_ADDR), never on the public API port.
type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, db *sqlx.DB) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "socialapi_http_requests_total",
			Help: "HTTP requests by route template, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "socialapi_http_request_duration_seconds",
			Help:    "HTTP request latency by route template and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "socialapi_rate_limited_total",
			Help: "Requests rejected with 429, by policy.",
		}, []string{"policy"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.rateLimited,
		collectors.NewDBStatsCollector(db.DB, "socialapi")} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// middleware records every request. It renders a handler's error itself so
// the recorded status is the one the client gets.
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		method := c.Request().Method
		m.requests.WithLabelValues(route, method, strconv.Itoa(c.Response().Status)).Inc()
		m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		return nil
	}
}
