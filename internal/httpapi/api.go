package httpapi

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apiurl"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/coalesce"
	"github.com/socialnet/socialapi/internal/comments"
	"github.com/socialnet/socialapi/internal/conversations"
	"github.com/socialnet/socialapi/internal/feed"
	"github.com/socialnet/socialapi/internal/follows"
	"github.com/socialnet/socialapi/internal/hydrate"
	"github.com/socialnet/socialapi/internal/inflight"
	"github.com/socialnet/socialapi/internal/jobs"
	"github.com/socialnet/socialapi/internal/market"
	"github.com/socialnet/socialapi/internal/me"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/meta"
	"github.com/socialnet/socialapi/internal/notifications"
	"github.com/socialnet/socialapi/internal/posts"
	"github.com/socialnet/socialapi/internal/ratelimit"
	"github.com/socialnet/socialapi/internal/reactions"
	"github.com/socialnet/socialapi/internal/relations"
	"github.com/socialnet/socialapi/internal/search"
	"github.com/socialnet/socialapi/internal/stream"
	"github.com/socialnet/socialapi/internal/users"
)

// Local aliases let API embed every resource's Handler under a distinct name.
type (
	metaHandler          = meta.Handler
	meHandler            = me.Handler
	marketHandler        = market.Handler
	jobsHandler          = jobs.Handler
	notificationsHandler = notifications.Handler
	conversationsHandler = conversations.Handler
	feedHandler          = feed.Handler
	postsHandler         = posts.Handler
	reactionsHandler     = reactions.Handler
	commentsHandler      = comments.Handler
	usersHandler         = users.Handler
	followsHandler       = follows.Handler
	relationsHandler     = relations.Handler
	searchHandler        = search.Handler
	streamHandler        = streamOperation
)

// API satisfies the generated strict server interface by embedding each
// resource's handler. A missing or duplicated operation is a compile error.
type API struct {
	*metaHandler
	*meHandler
	*marketHandler
	*jobsHandler
	*notificationsHandler
	*conversationsHandler
	*feedHandler
	*postsHandler
	*reactionsHandler
	*commentsHandler
	*usersHandler
	*followsHandler
	*relationsHandler
	*searchHandler
	*streamHandler
}

var _ gen.StrictServerInterface = (*API)(nil)

// DefaultConfig is serve's defaults of the edge's tunables: the contract's
// rate limits, the post cache, coalescing and search's cache and bounds.
// SearchBounds.Active, whose default depends on MaxActive and the
// connection pool (search.DefaultActive), is the caller's to set.
func DefaultConfig() Config {
	return Config{
		RateLimits:    ratelimit.DefaultQuotas,
		PostCache:     hydrate.DefaultCacheEntries,
		CoalesceSlots: hydrate.DefaultCoalesceSlots,
		SearchCache:   search.DefaultMatchTTL,
		SearchBounds:  SearchBounds{PerMember: search.DefaultPerMember, Timeout: search.DefaultTimeout},
	}
}

// New builds the whole HTTP service: the API under /api/v1, the raw contract,
// and the health checks.
func New(cfg Config, db *sqlx.DB, log *slog.Logger, specYAML []byte) (*echo.Echo, error) {
	spec, err := gen.GetSpec()
	if err != nil {
		return nil, err
	}
	if cfg.Views == nil {
		return nil, errors.New("httpapi: Config.Views is required")
	}
	var rl *ratelimit.Limiter
	if cfg.RedisURL != "" {
		rl, _, err = ratelimit.NewRedis(cfg.RedisURL, cfg.RateLimits, func(err error) {
			log.Warn("rate-limit store unreachable: limiting in process until it returns", slog.String("error", err.Error()))
		})
	} else {
		rl, err = ratelimit.NewMemory(cfg.RateLimits)
	}
	if err != nil {
		return nil, err
	}
	lim := newLimits(rl, log)
	mh, err := meta.NewHandler(spec, meta.Config{PublicURL: cfg.PublicURL, BasePath: BasePath, BodyLimit: cfg.BodyLimit,
		ReadPerMinute: cfg.RateLimits.Read, WritePerMinute: cfg.RateLimits.Write, Window: cfg.RateLimits.Window,
		SpecSHA256: fmt.Sprintf("%x", sha256.Sum256(specYAML))})
	if err != nil {
		return nil, err
	}
	urls := apiurl.URLs{Public: cfg.PublicURL, API: cfg.PublicURL + BasePath}
	var postCache *hydrate.Cache
	if cfg.PostCache > 0 {
		postCache = hydrate.NewCache(cfg.PostCache)
	}
	var pool *coalesce.Pool // shared by every coalesced read
	if cfg.CoalesceSlots > 0 {
		pool = coalesce.NewPool(cfg.CoalesceSlots)
		postCache.CoalescePages(pool)
	}
	postStore, userStore := posts.NewStore(db, cfg.Views).WithCache(postCache).WithCoalescing(pool), users.NewStore(db).WithCache(postCache)
	convStore := conversations.NewStore(db)
	searchH := search.NewHandler(search.NewStore(db).WithCache(postCache).WithMatchCache(cfg.SearchCache), urls).
		WithBounds(searchLimiters(cfg))
	api := &API{
		metaHandler:          mh,
		meHandler:            me.NewHandler(me.NewStore(db), cfg.PublicURL, lim),
		marketHandler:        market.NewHandler(market.NewStore(db), cfg.PublicURL),
		jobsHandler:          jobs.NewHandler(jobs.NewStore(db), cfg.PublicURL),
		notificationsHandler: notifications.NewHandler(notifications.NewStore(db), cfg.PublicURL),
		conversationsHandler: conversations.NewHandler(convStore, cfg.PublicURL),
		feedHandler:          feed.NewHandler(feed.NewStore(db).WithCache(postCache), urls),
		postsHandler:         posts.NewHandler(postStore, urls),
		reactionsHandler:     reactions.NewHandler(reactions.NewStore(db)),
		commentsHandler:      comments.NewHandler(comments.NewStore(db), urls),
		usersHandler:         users.NewHandler(userStore, urls),
		followsHandler:       follows.NewHandler(follows.NewStore(db), urls),
		relationsHandler:     relations.NewHandler(relations.NewStore(db), db, urls),
		searchHandler:        searchH,
		streamHandler:        &streamOperation{},
	}
	// A request that is both invalid and about a missing or hidden resource answers 404.
	probes := map[string]Probe{
		"getPost":            idProbe(postStore.Visible),
		"deletePost":         idProbe(postStore.Visible),
		"reactToPost":        idProbe(postStore.Visible),
		"deletePostReaction": idProbe(postStore.Visible),
		"listPostComments":   idProbe(postStore.Visible),
		"createPostComment":  idProbe(postStore.Visible),
		"votePoll":           idProbe(postStore.PollVisible),
		"getUser":            memberProbe(userStore.Exists),
		"listUserPosts":      memberProbe(userStore.Exists),
		"toggleFollow":       memberProbe(userStore.Exists),
		"blockUser":          memberProbe(userStore.Exists),
		"unblockUser":        memberProbe(userStore.Exists),
		"muteUser":           memberProbe(userStore.Exists),
		"unmuteUser":         memberProbe(userStore.Exists),
		// Not a participant answers exactly like a missing conversation.
		"listConversationMessages":  idProbe(convStore.Participant),
		"createConversationMessage": idProbe(convStore.Participant),
		"markConversationRead":      idProbe(convStore.Participant),
	}
	authn := auth.NewStore(db, nil)
	if cfg.Stream == nil {
		var reg prometheus.Registerer // nil unless there is a registry (not a nil *Registry)
		if cfg.Metrics != nil {
			reg = cfg.Metrics
		}
		if cfg.Stream, err = stream.New(stream.Config{ReadQuota: cfg.RateLimits.Read}, db, log, authn, cfg.PublicURL, reg); err != nil {
			return nil, err
		}
	}
	return newEcho(cfg, Deps{DB: db, Log: log, Auth: authn, API: api, Probes: probes, SpecYAML: specYAML, Limits: lim})
}

// searchLimiters are the bounds of searches cfg.SearchBounds sets (see
// search.Handler.WithBounds); searches count against the read policy.
func searchLimiters(cfg Config) (walks *inflight.Limiter, timeout time.Duration) {
	b := cfg.SearchBounds
	walks = inflight.New(inflight.Config{What: "searches of texts not searched lately", PerMember: b.PerMember,
		Total: b.Active, Policy: string(ratelimit.Read), Quota: cfg.RateLimits.Read})
	return walks, b.Timeout
}

// postProbe answers NotFound for a request about a post (path parameter id)
// that does not exist or that the caller may not see.
func idProbe(visible func(ctx context.Context, viewerID, id int64) error) Probe {
	return func(ctx context.Context, p auth.Principal, params map[string]string) error {
		id, err := strconv.ParseInt(params["id"], 10, 64)
		if err != nil || id < 1 {
			return nil // a malformed id: the validation error answers
		}
		return visible(ctx, p.MemberID, id)
	}
}

// memberProbe answers NotFound for a request about a member (path parameter
// handle) that the caller may not see: missing, suspended, or blocking the
// caller (visibility.MemberRow).
func memberProbe(exists func(ctx context.Context, viewerID int64, handle string) error) Probe {
	return func(ctx context.Context, p auth.Principal, params map[string]string) error {
		if !members.HandlePattern.MatchString(params["handle"]) {
			return nil // a malformed handle: the validation error answers
		}
		return exists(ctx, p.MemberID, params["handle"])
	}
}
