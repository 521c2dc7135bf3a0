// Package ratelimit enforces the API's per-member request budgets with the
// GCRA of github.com/throttled/throttled: a policy's capacity is its
// per-minute quota, refilled evenly over the minute. A denied request spends
// nothing.
package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
)

// Policy names a budget.
type Policy string

// The two policies (docs/design.md, Rate limits).
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

// DefaultWindow is the period quotas are expressed in.
const DefaultWindow = time.Minute

// Quotas are requests per Window.
type Quotas struct {
	Read  int
	Write int
	// Window is the refill period, positive: configuration resolves it
	// (DefaultQuotas, RATE_LIMIT_WINDOW), so a Limiter takes it as given.
	// Tests lengthen it so that no refill happens while they count.
	Window time.Duration
}

// DefaultQuotas are the contract's published limits (openapi.yaml, Rate limits).
var DefaultQuotas = Quotas{Read: 120, Write: 60, Window: DefaultWindow}

// Result is the state of a budget after a request.
type Result struct {
	Policy     Policy
	Limited    bool
	Limit      int
	Remaining  int
	ResetAfter time.Duration // until the budget is full again
	RetryAfter time.Duration // until the next request is allowed (when Limited)
}

// Limiter holds one GCRA per policy over a store: this process's memory, or
// a shared store (Redis) with the in-process one as its fallback.
type Limiter struct {
	quotas   Quotas
	limiters map[Policy]*throttled.GCRARateLimiterCtx
	// fallback serves while the shared store is failing (fail open, but
	// still limited per instance); nil for an in-process limiter.
	fallback *Limiter
	shared   string // name of the shared store, for health reports

	mu        sync.Mutex
	failedAt  time.Time // last failure of the shared store
	lastError error
	onFailure func(error)
}

// retryShared is how long the shared store is skipped after a failure, so a
// black-holed Redis costs one timeout per interval, not one per request.
const retryShared = time.Second

// NewMemory returns a Limiter that keeps its state in this process.
func NewMemory(q Quotas) (*Limiter, error) {
	st, err := memstore.NewCtx(65536)
	if err != nil {
		return nil, fmt.Errorf("rate-limit store: %w", err)
	}
	return newLimiter(st, q)
}

// NewShared returns a Limiter whose budgets live in st (shared by every
// instance). While st fails, requests are limited in process instead and
// onFailure is told (at most once per retry interval).
func NewShared(name string, st throttled.GCRAStoreCtx, q Quotas, onFailure func(error)) (*Limiter, error) {
	l, err := newLimiter(st, q)
	if err != nil {
		return nil, err
	}
	if l.fallback, err = NewMemory(q); err != nil {
		return nil, err
	}
	l.shared, l.onFailure = name, onFailure
	return l, nil
}

func newLimiter(st throttled.GCRAStoreCtx, q Quotas) (*Limiter, error) {
	if q.Window <= 0 {
		return nil, fmt.Errorf("rate-limit window must be positive, got %v", q.Window)
	}
	l := &Limiter{quotas: q, limiters: map[Policy]*throttled.GCRARateLimiterCtx{}}
	for p, n := range map[Policy]int{Read: q.Read, Write: q.Write} {
		if n < 1 {
			return nil, fmt.Errorf("rate limit %s must be at least 1 per minute", p)
		}
		g, err := throttled.NewGCRARateLimiterCtx(st, throttled.RateQuota{MaxRate: throttled.PerDuration(n, q.Window), MaxBurst: n - 1})
		if err != nil {
			return nil, fmt.Errorf("rate limiter %s: %w", p, err)
		}
		l.limiters[p] = g
	}
	return l, nil
}

// Health reports the shared store's state: "" for an in-process limiter,
// "ok", or the reason it is being bypassed.
func (l *Limiter) Health() (store, status string) {
	if l.fallback == nil {
		return "memory", "ok"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lastError != nil && time.Since(l.failedAt) < 2*retryShared {
		return l.shared, "unreachable, limiting in process: " + l.lastError.Error()
	}
	return l.shared, "ok"
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
	if l.fallback == nil {
		return l.local(ctx, p, key, n)
	}
	l.mu.Lock()
	skip := l.lastError != nil && time.Since(l.failedAt) < retryShared
	l.mu.Unlock()
	if !skip {
		r, err := l.local(ctx, p, key, n)
		if err == nil {
			l.mu.Lock()
			l.lastError = nil
			l.mu.Unlock()
			return r, nil
		}
		if ctx.Err() != nil {
			return Result{}, err
		}
		l.mu.Lock()
		l.lastError, l.failedAt = err, time.Now()
		l.mu.Unlock()
		if l.onFailure != nil {
			l.onFailure(err)
		}
	}
	return l.fallback.local(ctx, p, key, n)
}

func (l *Limiter) local(ctx context.Context, p Policy, key string, n int) (Result, error) {
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
