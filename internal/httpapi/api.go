package httpapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apitime"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/me"
	"github.com/socialnet/socialapi/internal/meta"
)

// Local aliases let API embed every resource's Handler under a distinct name.
type (
	metaHandler = meta.Handler
	meHandler   = me.Handler
)

// API satisfies the generated strict server interface by embedding each
// resource's handler. A missing or duplicated operation is a compile error.
type API struct {
	*metaHandler
	*meHandler
	pending
}

var _ gen.StrictServerInterface = (*API)(nil)

// New builds the whole HTTP service: the API under /api/v1, the raw contract,
// and the health checks.
func New(cfg Config, db *sqlx.DB, log *slog.Logger, specYAML []byte) (*echo.Echo, error) {
	spec, err := gen.GetSpec()
	if err != nil {
		return nil, err
	}
	mh, err := meta.NewHandler(spec, meta.Config{PublicURL: cfg.PublicURL, BasePath: BasePath, BodyLimit: cfg.BodyLimit})
	if err != nil {
		return nil, err
	}
	api := &API{
		metaHandler: mh,
		meHandler:   me.NewHandler(me.NewStore(db), cfg.PublicURL, unlimited{}),
	}
	return newEcho(cfg, Deps{DB: db, Log: log, Auth: auth.NewStore(db, nil), API: api, SpecYAML: specYAML})
}

// unlimited reports full budgets: rate limiting is not enforced in this
// build yet (see README, "Rate limits").
type unlimited struct{}

func (unlimited) Status(context.Context, int64) gen.RateLimits {
	now := apitime.New(time.Now())
	return gen.RateLimits{
		Read:  gen.RateLimitStatus{Limit: 120, Remaining: 120, ResetAt: now},
		Write: gen.RateLimitStatus{Limit: 60, Remaining: 60, ResetAt: now},
	}
}
