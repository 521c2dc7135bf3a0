package httpapi

import (
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
)

// gate admits at most n API requests at a time and queues the others. It
// sits in front of everything that uses the database (authentication
// included), sized as the connection pool: a request inside it then finds a
// connection free, and the queue forms here instead of in database/sql,
// which hands a freed connection to a random waiter
// (connRequestSet.TakeRandom) and so gives some requests many times the
// median wait.
//
// The queue is fair between clients: each client (its credentials, as sent)
// waits in a line of its own, and a freed place goes to the line after the
// one served last, round robin, each line first come, first served. So one
// client that sends hundreds of requests at once waits behind its own
// requests, not others behind it: any other client's request is admitted
// within one place's turn of each busy client. Requests of clients that send
// one at a time are admitted in arrival order.
type gate struct {
	mu     sync.Mutex
	places int                      // places in all
	free   int                      // places not taken
	lines  map[uint64][]*gateWaiter // waiting requests by client, oldest first
	ring   []uint64                 // clients with waiting requests, next to serve first
}

// gateWaiter is one waiting request; ready is closed when it is given a
// place.
type gateWaiter struct {
	ready   chan struct{}
	granted bool
}

// newGate returns a gate of n places; n <= 0: no gate.
func newGate(n int) *gate {
	if n <= 0 {
		return nil
	}
	return &gate{places: n, free: n, lines: map[uint64][]*gateWaiter{}}
}

// clientKey names the client of a request for the gate's lines: its
// Authorization header, hashed (the header is checked later, by the edge; a
// client without one shares the line of all such requests).
func clientKey(c echo.Context) uint64 {
	return xxhash.Sum64String(c.Request().Header.Get(echo.HeaderAuthorization))
}

// acquire takes a place for client, waiting in its line; false when done
// closed first (then no place is held).
func (g *gate) acquire(client uint64, done <-chan struct{}) bool {
	g.mu.Lock()
	if g.free > 0 && len(g.ring) == 0 {
		g.free--
		g.mu.Unlock()
		return true
	}
	w := &gateWaiter{ready: make(chan struct{})}
	if len(g.lines[client]) == 0 {
		g.ring = append(g.ring, client)
	}
	g.lines[client] = append(g.lines[client], w)
	g.mu.Unlock()

	select {
	case <-w.ready:
		return true
	case <-done:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.granted { // given a place as it gave up: pass it on
		g.releaseLocked()
		return false
	}
	line := g.lines[client]
	for i, x := range line {
		if x == w {
			line = append(line[:i], line[i+1:]...)
			break
		}
	}
	if len(line) == 0 {
		delete(g.lines, client)
		for i, k := range g.ring {
			if k == client {
				g.ring = append(g.ring[:i], g.ring[i+1:]...)
				break
			}
		}
	} else {
		g.lines[client] = line
	}
	return false
}

// release gives a place back: to the first request of the next line in the
// ring, or to the free places.
func (g *gate) release() {
	g.mu.Lock()
	g.releaseLocked()
	g.mu.Unlock()
}

func (g *gate) releaseLocked() {
	if len(g.ring) == 0 {
		g.free++
		return
	}
	client := g.ring[0]
	line := g.lines[client]
	w := line[0]
	line[0] = nil
	line = line[1:]
	g.ring = g.ring[1:]
	if len(line) == 0 {
		delete(g.lines, client)
	} else {
		g.lines[client] = line
		g.ring = append(g.ring, client) // its turn again after the others'
	}
	w.granted = true // the place passes from the releaser to w
	close(w.ready)
}

// middleware holds a place for the whole request. A request whose context
// ends while it waits (its deadline, or the client gone) is answered 503, as
// a request the database could not serve in time is.
//
// The routes in own (method and the path Echo routes, "GET /api/v1/posts/:id")
// pass without a place: their reads bound their own statements in flight
// and coalesce those that wait (package coalesce), so holding a place while
// waiting there would only keep the reads that could share a statement out
// of it.
func (g *gate) middleware(own ...string) echo.MiddlewareFunc {
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

func (g *gate) wrap(next echo.HandlerFunc, skip map[string]map[string]bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if paths := skip[c.Request().Method]; paths != nil && paths[c.Path()] {
			return next(c)
		}
		if !g.acquire(clientKey(c), c.Request().Context().Done()) {
			return apperr.TryLater(nil)
		}
		defer g.release()
		return next(c)
	}
}

// inUse is how many places are taken.
func (g *gate) inUse() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.places - g.free
}
