package httpapi

import (
	"log/slog"
	"sync"
	"time"
)

// outageEvery is the longest a run of 503s goes without a log line, and the
// quiet period that ends a run.
const outageEvery = 10 * time.Second

// outageLog keeps an outage (the database down, restarting, read-only or
// out of connections) from flooding the log with one ERROR line per
// request: the first 503 unavailable of a run is logged at ERROR with its
// cause, then at most one WARN line per outageEvery, each saying how many
// 503s went unlogged before it. A run ends after outageEvery without a 503;
// the next 503 starts a new run at ERROR. Every request still gets its
// access-log line and is counted in socialapi_http_requests_total.
type outageLog struct {
	now func() time.Time

	mu         sync.Mutex
	lastFail   time.Time // the last 503 unavailable
	lastLine   time.Time // the last one logged
	suppressed int       // 503s not logged since lastLine
}

func newOutageLog(now func() time.Time) *outageLog {
	if now == nil {
		now = time.Now
	}
	return &outageLog{now: now}
}

// note records one 503 unavailable and says whether to log it, at which
// level, and how many went unlogged before it.
func (o *outageLog) note() (level slog.Level, unlogged int, log bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	quiet := o.lastFail.IsZero() || now.Sub(o.lastFail) >= outageEvery
	o.lastFail = now
	switch {
	case quiet:
		level = slog.LevelError
	case now.Sub(o.lastLine) >= outageEvery:
		level = slog.LevelWarn
	default:
		o.suppressed++
		return 0, 0, false
	}
	unlogged, o.suppressed, o.lastLine = o.suppressed, 0, now
	return level, unlogged, true
}
