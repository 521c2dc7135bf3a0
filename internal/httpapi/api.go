package httpapi

import (
	"log/slog"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/me"
	"github.com/socialnet/socialapi/internal/meta"
	"github.com/socialnet/socialapi/internal/ratelimit"
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
	if cfg.RateLimits == (ratelimit.Quotas{}) {
		cfg.RateLimits = ratelimit.DefaultQuotas
	}
	rl, err := ratelimit.NewMemory(cfg.RateLimits)
	if err != nil {
		return nil, err
	}
	lim := newLimits(rl, log)
	mh, err := meta.NewHandler(spec, meta.Config{PublicURL: cfg.PublicURL, BasePath: BasePath, BodyLimit: cfg.BodyLimit,
		ReadPerMinute: cfg.RateLimits.Read, WritePerMinute: cfg.RateLimits.Write})
	if err != nil {
		return nil, err
	}
	api := &API{
		metaHandler: mh,
		meHandler:   me.NewHandler(me.NewStore(db), cfg.PublicURL, lim),
	}
	return newEcho(cfg, Deps{DB: db, Log: log, Auth: auth.NewStore(db, nil), API: api, SpecYAML: specYAML, Limits: lim})
}
