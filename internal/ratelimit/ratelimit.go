// Package ratelimit enforces the API's per-member request budgets with the
// GCRA of github.com/throttled/throttled: a policy's capacity is its
// per-minute quota, refilled evenly over the minute. A denied request spends
// nothing.
package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
)

// Policy names a budget.
type Policy string

// The two policies of API_DESIGN.md.
const (
	Read  Policy = "read"  // GET, HEAD
	Write Policy = "write" // POST, DELETE
)

// PolicyOf returns the policy an HTTP method counts against.
func PolicyOf(method string) Policy {
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return Read
	}
	return Write
}

// Window is the period a quota is expressed in.
const Window = time.Minute

// Quotas are requests per Window.
type Quotas struct {
	Read  int
	Write int
}

// DefaultQuotas are the limits of SERVICE_V1.md §8.
var DefaultQuotas = Quotas{Read: 120, Write: 60}

// Result is the state of a budget after a request.
type Result struct {
	Policy     Policy
	Limited    bool
	Limit      int
	Remaining  int
	ResetAfter time.Duration // until the budget is full again
	RetryAfter time.Duration // until the next request is allowed (when Limited)
}

// Limiter holds one GCRA per policy over a shared store.
type Limiter struct {
	quotas   Quotas
	limiters map[Policy]*throttled.GCRARateLimiterCtx
}

// NewMemory returns a Limiter that keeps its state in this process.
func NewMemory(q Quotas) (*Limiter, error) {
	st, err := memstore.NewCtx(65536)
	if err != nil {
		return nil, fmt.Errorf("rate-limit store: %w", err)
	}
	return New(st, q)
}

// New returns a Limiter over st (in memory, or shared, such as Redis).
func New(st throttled.GCRAStoreCtx, q Quotas) (*Limiter, error) {
	l := &Limiter{quotas: q, limiters: map[Policy]*throttled.GCRARateLimiterCtx{}}
	for p, n := range map[Policy]int{Read: q.Read, Write: q.Write} {
		if n < 1 {
			return nil, fmt.Errorf("rate limit %s must be at least 1 per minute", p)
		}
		g, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{MaxRate: throttled.PerDuration(n, Window), MaxBurst: n - 1})
		if err != nil {
			return nil, fmt.Errorf("rate limiter %s: %w", p, err)
		}
		l.limiters[p] = g
	}
	return l, nil
}

// Quotas returns the configured quotas.
func (l *Limiter) Quotas() Quotas { return l.quotas }

// Take spends one request of policy p for key, unless the budget is empty.
func (l *Limiter) Take(ctx context.Context, p Policy, key string) (Result, error) {
	return l.do(ctx, p, key, 1)
}

// Peek reports the budget of policy p for key without spending it.
func (l *Limiter) Peek(ctx context.Context, p Policy, key string) (Result, error) {
	return l.do(ctx, p, key, 0)
}

func (l *Limiter) do(ctx context.Context, p Policy, key string, n int) (Result, error) {
	g, ok := l.limiters[p]
	if !ok {
		return Result{}, fmt.Errorf("unknown rate-limit policy %q", p)
	}
	limited, r, err := g.RateLimitCtx(ctx, string(p)+":"+key, n)
	if err != nil {
		return Result{}, fmt.Errorf("rate limit: %w", err)
	}
	return Result{Policy: p, Limited: limited, Limit: r.Limit, Remaining: r.Remaining, ResetAfter: r.ResetAfter, RetryAfter: r.RetryAfter}, nil
}

// MemberKey is the budget key of a member: all of a member's tokens share it.
func MemberKey(memberID int64) string { return fmt.Sprintf("m%d", memberID) }

// AddressKey is the budget key of a client address, for requests that fail
// authentication.
func AddressKey(addr string) string { return "a" + addr }
