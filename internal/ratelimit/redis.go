package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	goredisstore "github.com/throttled/throttled/v2/store/goredisstore.v9"
)

func init() {
	// The limiter reports store failures itself (onFailure, Health); the
	// client's own log lines would repeat them once per connection attempt.
	redis.SetLogger(quiet{})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// NewRedis returns a Limiter whose budgets live in the Redis at url, so
// every instance shares them. Short timeouts keep a failing Redis from
// slowing requests: the limiter then limits in process (fail open) and
// reports it through onFailure and Health.
func NewRedis(url string, q Quotas, onFailure func(error)) (*Limiter, *redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.DialTimeout = 250 * time.Millisecond
	opt.ReadTimeout = 150 * time.Millisecond
	opt.WriteTimeout = 150 * time.Millisecond
	opt.PoolTimeout = 250 * time.Millisecond
	opt.MaxRetries = 0
	opt.DialerRetries = 1
	opt.DialerRetryTimeout = 10 * time.Millisecond
	client := redis.NewClient(opt)
	st, err := goredisstore.NewCtx(client, "socialapi:rl:")
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	l, err := NewShared("redis", st, q, onFailure)
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	return l, client, nil
}
