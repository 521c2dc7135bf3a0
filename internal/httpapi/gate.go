package httpapi

import (
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
func (g gate) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	if g == nil {
		return next
	}
	return func(c echo.Context) error {
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
