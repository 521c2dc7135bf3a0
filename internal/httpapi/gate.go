package httpapi

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
)

// gate admits at most cap(g) API requests at a time and queues the others in
// arrival order. It sits in front of everything that uses the database
// (authentication included), sized as the connection pool: a request inside
// it then finds a connection free, and the queue forms here instead of in
// database/sql, which hands a freed connection to a random waiter
// (connRequestSet.TakeRandom). Under a load larger than the pool, random
// hand-out gave some requests many times the median wait (the home feed at
// 64 connections: p50 27 ms, p99 109 ms); a channel wakes its blocked senders
// first come, first served.
type gate chan struct{}

// newGate returns a gate of n places; n <= 0: no gate.
func newGate(n int) gate {
	if n <= 0 {
		return nil
	}
	return make(gate, n)
}

// middleware holds a place for the whole request. A request whose context
// ends while it waits (its deadline, or the client gone) is answered 503, as
// a request the database could not serve in time is.
//
// The routes in own (method and the path Echo routes, "GET /api/v1/posts/:id")
// pass without a place: their reads bound their own statements in flight
// and coalesce those that wait (package coalesce), so holding a place while
// waiting there would only keep the reads that could share a statement out
// of it. With 8 places, the single post ran 5,043-5,228 req/s with about 3
// reads a statement; ungated, 6,519-7,764 with 5-10.
func (g gate) middleware(own ...string) echo.MiddlewareFunc {
	skip := map[string]map[string]bool{}
	for _, r := range own {
		method, path, _ := strings.Cut(r, " ")
		if skip[method] == nil {
			skip[method] = map[string]bool{}
		}
		skip[method][path] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if g == nil {
			return next
		}
		return g.wrap(next, skip)
	}
}

func (g gate) wrap(next echo.HandlerFunc, skip map[string]map[string]bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if paths := skip[c.Request().Method]; paths != nil && paths[c.Path()] {
			return next(c)
		}
		select {
		case g <- struct{}{}:
		default:
			select {
			case g <- struct{}{}:
			case <-c.Request().Context().Done():
				return apperr.TryLater(nil)
			}
		}
		defer func() { <-g }()
		return next(c)
	}
}
