// Package inflight bounds how many of an expensive read run at once, per
// member and for the whole instance, without queueing: a read that finds no
// place is refused at once, so the reads it would have waited behind cannot
// hold a client's connection, and the places of the request gate and the
// connections of the pool stay free for everything else.
package inflight

import (
	"fmt"
	"sync"

	"github.com/socialnet/socialapi/internal/apperr"
)

// RetryAfter is the Retry-After (seconds) of a refusal: an expensive read
// ends within a few seconds, so a place is soon free again.
const RetryAfter = 1

// Limiter admits at most PerMember reads in flight for one member and Total
// for all members together. A nil Limiter admits every read.
type Limiter struct {
	what      string // what is limited, for the refusal's detail ("searches")
	perMember int
	total     int
	policy    string // the rate-limit policy the reads count against
	quota     int    // that policy's quota, for the problem's limit

	mu       sync.Mutex
	inFlight int
	byMember map[int64]int
}

// Config sizes a Limiter.
type Config struct {
	// What names the reads in refusals, plural ("searches").
	What string
	// PerMember and Total bound the reads in flight; 0 or less: no bound of
	// that kind.
	PerMember, Total int
	// Policy and Quota are the rate-limit policy the reads count against
	// and its quota per window, which a refusal reports as a rate_limited
	// problem does.
	Policy string
	Quota  int
}

// New returns a Limiter; nil when c bounds nothing.
func New(c Config) *Limiter {
	if c.PerMember <= 0 && c.Total <= 0 {
		return nil
	}
	return &Limiter{what: c.What, perMember: c.PerMember, total: c.Total, policy: c.Policy, quota: c.Quota,
		byMember: map[int64]int{}}
}

// Enter takes a place for one read of member. It returns the function that
// gives the place back (call it once, when the read is done), or, when the
// member already has PerMember reads in flight or all members Total, a
// rate_limited error with Retry-After, and takes nothing.
func (l *Limiter) Enter(member int64) (leave func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perMember > 0 && l.byMember[member] >= l.perMember {
		return nil, l.refuse("member", l.perMember,
			fmt.Sprintf("You already have %d %s running; at most %d run at once per member. Retry in %d s.", l.byMember[member], l.what, l.perMember, RetryAfter))
	}
	if l.total > 0 && l.inFlight >= l.total {
		return nil, l.refuse("service", l.total,
			fmt.Sprintf("The service is running as many %s as it allows at once (%d). Retry in %d s.", l.what, l.total, RetryAfter))
	}
	l.inFlight++
	l.byMember[member]++
	var once sync.Once
	return func() { once.Do(func() { l.leave(member) }) }, nil
}

func (l *Limiter) leave(member int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight--
	if l.byMember[member]--; l.byMember[member] <= 0 {
		delete(l.byMember, member)
	}
}

// refuse is the rate_limited problem of a read refused at a bound of scope
// ("member" or "service") and size limit.
func (l *Limiter) refuse(scope string, limit int, detail string) error {
	return &apperr.Error{Code: apperr.RateLimited, Detail: detail, Meta: map[string]any{
		"policy": l.policy, "limit": l.quota, "retry_after": RetryAfter,
		"concurrency_scope": scope, "concurrency_limit": limit,
	}}
}
