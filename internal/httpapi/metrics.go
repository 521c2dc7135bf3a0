package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/socialnet/socialapi/internal/pg"
)

// metrics are the service's Prometheus series. They are served by the
// operator listener (METRICS_ADDR), never on the public API port.
//
// Every label takes its values from a closed set, so no client can add
// series: method is one of seven methods or "other", route a
// registered route template or "unmatched", status the number sent.
type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec

	routesOnce sync.Once
	routes     map[string]bool // the registered route templates
}

// methodLabel is the method's name for the methods counted by name, and
// "other" for any other.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}

// routeLabel is the route template the request matched, or "unmatched".
// Echo's path for an unrouted request is empty or a group's not-found
// route ("/api/v1/*"), which is not a registered template. The templates
// are read on the first request, when every route is registered.
func (m *metrics) routeLabel(c echo.Context) string {
	m.routesOnce.Do(func() {
		m.routes = map[string]bool{}
		for _, r := range c.Echo().Routes() {
			if r.Method != echo.RouteNotFound {
				m.routes[r.Path] = true
			}
		}
	})
	if p := c.Path(); m.routes[p] {
		return p
	}
	return "unmatched"
}

func newMetrics(reg prometheus.Registerer, db *sqlx.DB, rt *pg.Router) (*metrics, error) {
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
	if rt.Replicas() {
		if err := reg.Register(replicaCollector{rt}); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// replicaCollector exports the read replicas' state (pg.Router): the
// replica label takes its values from DATABASE_REPLICA_URLS (host:port/db).
type replicaCollector struct{ rt *pg.Router }

var (
	replicaLagDesc = prometheus.NewDesc("socialapi_replica_lag_seconds",
		"How far each read replica's replay is behind the primary, as last polled.", []string{"replica"}, nil)
	replicaUpDesc = prometheus.NewDesc("socialapi_replica_serving",
		"1 while a read replica serves reads, 0 while it is skipped (lagging, unreachable or not a standby).", []string{"replica"}, nil)
	routedReadsDesc = prometheus.NewDesc("socialapi_routed_reads_total",
		"Requests of the replica-eligible operations by where their reads went: a replica's name, or primary (a fresh write of the member, no replica well or caught up).", []string{"target"}, nil)
	replicaFallbacksDesc = prometheus.NewDesc("socialapi_replica_fallbacks_total",
		"Statements that failed on a replica and ran again on the primary.", nil, nil)
)

func (c replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- replicaLagDesc
	ch <- replicaUpDesc
	ch <- routedReadsDesc
	ch <- replicaFallbacksDesc
}

func (c replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.rt.States() {
		up := 0.0
		if s.State == pg.StateOK {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, s.Lag.Seconds(), s.Name)
		ch <- prometheus.MustNewConstMetric(replicaUpDesc, prometheus.GaugeValue, up, s.Name)
		ch <- prometheus.MustNewConstMetric(routedReadsDesc, prometheus.CounterValue, float64(s.Reads), s.Name)
	}
	ch <- prometheus.MustNewConstMetric(routedReadsDesc, prometheus.CounterValue, float64(c.rt.PrimaryReads()), "primary")
	ch <- prometheus.MustNewConstMetric(replicaFallbacksDesc, prometheus.CounterValue, float64(c.rt.Fallbacks()))
}

// middleware records every request. It renders a handler's error itself so
// the recorded status is the one the client gets.
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		route, method := m.routeLabel(c), methodLabel(c.Request().Method)
		m.requests.WithLabelValues(route, method, strconv.Itoa(c.Response().Status)).Inc()
		m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		return nil
	}
}
