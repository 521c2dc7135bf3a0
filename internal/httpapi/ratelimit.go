package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/ratelimit"
)

// limits applies the rate-limit policies at the edge and reports budgets to
// /me.
type limits struct {
	lim    *ratelimit.Limiter
	log    *slog.Logger
	policy string // the RateLimit-Policy header value
	// rejected counts 429s by policy (nil without metrics).
	rejected *prometheus.CounterVec
}

func newLimits(lim *ratelimit.Limiter, log *slog.Logger) *limits {
	q := lim.Quotas()
	w := int(q.Window.Seconds())
	return &limits{lim: lim, log: log,
		policy: fmt.Sprintf(`"read";q=%d;w=%d, "write";q=%d;w=%d`, q.Read, w, q.Write, w)}
}

// take spends one request of the member's budget for method and sets the
// rate-limit headers; an exceeded budget is a rate_limited error. If the
// limiter's store fails the request is served (fail open) and the failure
// logged.
func (l *limits) take(ctx context.Context, h http.Header, method string, memberID int64) error {
	res, err := l.lim.Take(ctx, ratelimit.PolicyOf(method), ratelimit.MemberKey(memberID))
	if err != nil {
		l.log.Warn("rate limiter unavailable: serving without limit", slog.String("error", err.Error()))
		return nil
	}
	l.headers(h, res)
	if res.Limited {
		return l.reject(res)
	}
	return nil
}

// headers sets the rate-limit headers of res: RateLimit-Policy and RateLimit
// (the IETF draft's), and the X-RateLimit-* trio. It runs on every
// request, so it stores the values under their canonical
// keys (what Set would do, without looking each key over) in one
// allocation of values instead of five, and formats numbers without fmt.
func (l *limits) headers(h http.Header, res ratelimit.Result) {
	reset := ceilSeconds(res.ResetAfter)
	var buf [64]byte
	rl := append(buf[:0], '"')
	rl = append(rl, res.Policy...)
	rl = append(rl, `";r=`...)
	rl = strconv.AppendInt(rl, int64(res.Remaining), 10)
	rl = append(rl, ";t="...)
	rl = strconv.AppendInt(rl, int64(reset), 10)
	v := make([]string, 5)
	v[0], v[1], v[2], v[3] = l.policy, string(rl), strconv.Itoa(res.Limit), strconv.Itoa(res.Remaining)
	v[4] = strconv.FormatInt(time.Now().Add(time.Duration(reset)*time.Second).Unix(), 10)
	h["Ratelimit-Policy"], h["Ratelimit"], h["X-Ratelimit-Limit"] = v[0:1:1], v[1:2:2], v[2:3:3]
	h["X-Ratelimit-Remaining"], h["X-Ratelimit-Reset"] = v[3:4:4], v[4:5:5]
}

// clear removes the headers headers sets.
func (l *limits) clear(h http.Header) {
	for _, k := range []string{"RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		h.Del(k)
	}
}

// takeAddress spends one request of a client address's budget, for requests
// that failed authentication. It reports whether the budget was exceeded.
func (l *limits) takeAddress(ctx context.Context, addr string) error {
	res, err := l.lim.Take(ctx, ratelimit.Read, ratelimit.AddressKey(addr))
	if err != nil || !res.Limited {
		return nil
	}
	return l.reject(res)
}

func (l *limits) reject(res ratelimit.Result) error {
	if l.rejected != nil {
		l.rejected.WithLabelValues(string(res.Policy)).Inc()
	}
	return rateLimited(res)
}

func rateLimited(res ratelimit.Result) error {
	retry := max(ceilSeconds(res.RetryAfter), 1)
	return &apperr.Error{
		Code:   apperr.RateLimited,
		Detail: fmt.Sprintf("The %s rate limit of %d requests per minute is exhausted. Retry in %d s.", res.Policy, res.Limit, retry),
		Meta:   map[string]any{"policy": string(res.Policy), "limit": res.Limit, "retry_after": retry},
	}
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int(math.Ceil(d.Seconds()))
}

// Status implements me.RateLimits: both budgets, without spending them.
func (l *limits) Status(ctx context.Context, memberID int64) gen.RateLimits {
	get := func(p ratelimit.Policy, limit int) gen.RateLimitStatus {
		now := time.Now()
		res, err := l.lim.Peek(ctx, p, ratelimit.MemberKey(memberID))
		if err != nil {
			return gen.RateLimitStatus{Limit: limit, Remaining: limit, ResetAt: apitime.New(now)}
		}
		return gen.RateLimitStatus{Limit: res.Limit, Remaining: res.Remaining, ResetAt: apitime.New(now.Add(time.Duration(ceilSeconds(res.ResetAfter)) * time.Second))}
	}
	q := l.lim.Quotas()
	return gen.RateLimits{Read: get(ratelimit.Read, q.Read), Write: get(ratelimit.Write, q.Write)}
}
