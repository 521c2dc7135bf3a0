// Package httpapi wires the HTTP edge: Echo, the middleware order, request
// validation against the embedded openapi.yaml, authentication, the one
// error renderer, and the struct that satisfies the generated strict server
// interface by embedding each resource's handler.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/docs"
	"github.com/socialnet/socialapi/internal/idempotency"
	"github.com/socialnet/socialapi/internal/pg"
	"github.com/socialnet/socialapi/internal/ratelimit"
	"github.com/socialnet/socialapi/internal/stream"
	"github.com/socialnet/socialapi/internal/views"
)

// Config is the part of the service configuration the edge needs. Every
// value is final (DefaultConfig has serve's defaults).
type Config struct {
	PublicURL      string // absolute base for every URL in a body or header
	RateLimits     ratelimit.Quotas
	RedisURL       string               // shared rate-limit store; empty: in process
	BodyLimit      int64                // maximum request body, bytes
	RequestTimeout time.Duration        // budget of one request, database included; 0: none
	Metrics        *prometheus.Registry // receives the Prometheus collectors; nil: none
	CORSOrigins    []string             // browser origins allowed cross-origin ("*": any); none: no CORS headers
	TrustedProxies []*net.IPNet         // networks whose X-Forwarded-For names the client
	Views          *views.Counter       // counts post views (required)
	MaxActive      int                  // API requests served at once (gate); 0: no bound
	PostCache      int                  // posts whose static parts are kept (hydrate.Cache); 0: none
	CoalesceSlots  int                  // coalesced statements in flight (hydrate.Getter, Cache.CoalescePages); 0: no coalescing
	SearchCache    time.Duration        // how long search keeps what a text matched; 0: not at all
	SearchBounds   SearchBounds
	// Router sends lag-tolerant reads to read replicas (replicas.go); nil:
	// every statement on the primary.
	Router *pg.Router
	// Stream serves GET /stream (its Run pokes it; the caller runs it);
	// nil: New makes one with the defaults, which nothing pokes.
	Stream *stream.Hub
}

// SearchBounds bound searches, the reads whose cost can reach tens of
// milliseconds: PerMember and Active the searches in flight that read their
// matches from the database, one member's and all members' (one more
// answers 429), Timeout how long one search may run (then 503); 0: no bound.
type SearchBounds struct {
	PerMember, Active int
	Timeout           time.Duration
}

// ipExtractor takes client addresses from the connection, never from
// X-Forwarded-For or X-Real-IP, unless the connection comes from a
// configured trusted proxy.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// Deps are the collaborators of the edge.
type Deps struct {
	DB     *sqlx.DB
	Log    *slog.Logger
	Auth   Authenticator
	API    gen.StrictServerInterface
	Probes map[string]Probe
	Limits *limits
	// SpecYAML is openapi.yaml as written, served at /api/v1/openapi.yaml.
	SpecYAML []byte
}

// BasePath is where the API is mounted.
const BasePath = "/api/v1"

// newEcho builds the Echo instance that serves the API.
func newEcho(cfg Config, d Deps) (*echo.Echo, error) {
	spec, err := gen.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load embedded spec: %w", err)
	}
	ct, err := newContract(spec, d.Probes)
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(d.Log, cfg.PublicURL, newOutageLog(nil))
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)

	mws := []echo.MiddlewareFunc{headWithoutBody, requestID, accessLog(d.Log)}
	if cfg.Metrics != nil {
		m, err := newMetrics(cfg.Metrics, d.DB, cfg.Router)
		if err != nil {
			return nil, err
		}
		d.Limits.rejected = m.rateLimited
		mws = append(mws, m.middleware)
	}
	mws = append(mws, recoverPanics(d.Log), requestTimeout(cfg.RequestTimeout), securityHeaders(cfg.PublicURL))
	if len(cfg.CORSOrigins) > 0 {
		mws = append(mws, cors(cfg.CORSOrigins)) // after securityHeaders: it adds Vary: Origin
	}
	e.Use(mws...)
	root := withHead{e}
	root.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	root.GET("/readyz", readyz(d.DB, d.Limits.lim, cfg.Router))
	// The API's root is /api/v1/ (the index); without the slash it is a
	// redirect, answered before authentication as it reveals nothing.
	root.GET(BasePath, func(c echo.Context) error {
		to := cfg.PublicURL + BasePath + "/"
		if q := c.Request().URL.RawQuery; q != "" {
			to += "?" + q
		}
		return c.Redirect(http.StatusMovedPermanently, to)
	})
	root.GET(BasePath+"/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", d.SpecYAML)
	})
	published, err := gen.GetSpec() // a fresh copy: the contract rewrote its servers
	if err != nil {
		return nil, err
	}
	specJSON, err := json.Marshal(published)
	if err != nil {
		return nil, err
	}
	root.GET(BasePath+"/openapi.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, specJSON)
	})
	docSpec, err := gen.GetSpec()
	if err != nil {
		return nil, err
	}
	ref, err := docs.New(docSpec, cfg.PublicURL+BasePath, cfg.PublicURL+BasePath+"/openapi.yaml")
	if err != nil {
		return nil, err
	}
	ref.Register(root) // HEAD too, as every GET route

	idem := &idempotent{store: idempotency.NewStore(d.DB, 2*max(cfg.RequestTimeout, 30*time.Second)), log: d.Log}
	// A stream holds its request for as long as it is open: it takes no
	// place of the gate (its reads are short statements of their own).
	ungated := []string{http.MethodGet + " " + streamRoute, http.MethodHead + " " + streamRoute}
	if cfg.CoalesceSlots > 0 {
		ungated = append(ungated, coalescedRoutes...)
	}
	apiEdge := &edge{contract: ct, authn: d.Auth, limits: d.Limits, idem: idem, tags: newETags(spec), bodyLimit: cfg.BodyLimit,
		router: cfg.Router, log: d.Log}
	g := e.Group(BasePath, newGate(cfg.MaxActive).middleware(ungated...), apiEdge.serve)
	gen.RegisterHandlers(withHead{g}, gen.NewStrictHandler(d.API, nil))
	// The stream's route replaces the generated one (the strict handler
	// answers with a body it has whole); the edge's checks apply the same.
	withHead{g}.GET(strings.TrimPrefix(streamRoute, BasePath), serveStream(cfg.Stream))
	return e, nil
}

// withHead registers every GET route for HEAD too: a HEAD runs the GET's
// handler, edge checks included (contract.match), and headWithoutBody
// drops the body, so it answers with the GET's status and headers.
type withHead struct{ gen.EchoRouter }

func (w withHead) GET(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	w.EchoRouter.HEAD(path, h, m...)
	return w.EchoRouter.GET(path, h, m...)
}

// headWithoutBody sends no body in answer to a HEAD, whatever writes one
// (the GET's handler, the error renderer). net/http drops it as well; this
// holds for any server and recorder.
func headWithoutBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodHead {
			res := c.Response()
			res.Writer = bodyless{res.Writer}
		}
		return next(c)
	}
}

// bodyless is a ResponseWriter that discards the body.
type bodyless struct{ http.ResponseWriter }

func (w bodyless) Write(b []byte) (int, error) { return len(b), nil }

// Unwrap lets http.ResponseController reach the connection's writer.
func (w bodyless) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// coalescedRoutes are the reads whose statements coalesce (hydrate.Getter
// and Cache.Page with CoalesceSlots): the gate lets them pass (gate).
var coalescedRoutes = []string{
	http.MethodGet + " " + BasePath + "/posts/:id",
	http.MethodGet + " " + BasePath + "/feed",
	http.MethodGet + " " + BasePath + "/users/:handle/posts",
}

// requestTimeout bounds every request's context, so a slow or unreachable
// database turns into a 503 within the budget instead of a hang.
func requestTimeout(d time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if d <= 0 || c.Path() == streamRoute { // a stream lasts; its writes have deadlines of their own
				return next(c)
			}
			ctx, cancel := context.WithTimeout(c.Request().Context(), d)
			defer cancel()
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// securityHeaders marks every response as not to be sniffed or cached by
// shared caches (bodies depend on the caller's token), and links every API
// response to the contract (RFC 8631 service-desc). The link is added just
// before the header is written, after any pagination link the handler set,
// so rel="next" stays first.
func securityHeaders(publicURL string) echo.MiddlewareFunc {
	serviceDesc := "<" + publicURL + BasePath + `/openapi.yaml>; rel="service-desc"`
	// The values are shared by every response, each a slice of one whose
	// capacity is one too: Set replaces it and Add copies it, so none is
	// ever written through (and the server copies the header when it sends it).
	nosniff, private, vary := []string{"nosniff"}, []string{"private, no-store"}, []string{"Authorization"}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h["X-Content-Type-Options"] = nosniff[:1:1]
			if strings.HasPrefix(c.Request().URL.Path, BasePath) {
				h["Cache-Control"], h["Vary"] = private[:1:1], vary[:1:1]
				c.Response().Before(func() { h.Add("Link", serviceDesc) })
			}
			return next(c)
		}
	}
}

// readyz reports whether the database answers (ready or not), and the
// state of the rate-limit store and of each read replica (a failing Redis
// or replica degrades, it does not stop the service: reads go to the
// primary).
func readyz(db *sqlx.DB, lim *ratelimit.Limiter, rt *pg.Router) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		status, code := "ok", http.StatusOK
		if err := db.PingContext(ctx); err != nil {
			status, code = "unreachable", http.StatusServiceUnavailable
		}
		store, storeStatus := lim.Health()
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		c.Response().WriteHeader(code)
		body := map[string]any{
			"ready":  code == http.StatusOK,
			"checks": map[string]string{"database": status, "rate_limit_store": store + ": " + storeStatus},
		}
		if rt.Replicas() {
			body["replicas"] = replicaStates(rt)
		}
		return json.NewEncoder(c.Response()).Encode(body)
	}
}

// maxHeaderBytes bounds a request's line and header fields together
// (openapi.yaml, Conventions). net/http enforces it while reading the
// request, with up to 8 KiB of read buffers beyond it (4 KiB of slop, and
// on a kept-alive connection the 4 KiB it buffered while waiting), and
// answers a larger one itself: 431 as text/plain, then closes the
// connection. No handler runs, so that answer cannot be a problem document.
const maxHeaderBytes = 32 << 10

// newServer is the HTTP server of h on addr, with the timeouts and limits
// the contract documents.
func newServer(log *slog.Logger, addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// Serve runs h on addr until ctx is cancelled, then stops accepting
// connections and drains in-flight requests for up to drain. The functions
// onShutdown run when the drain begins (stream.Hub.Shutdown: streams never
// end on their own).
func Serve(ctx context.Context, log *slog.Logger, addr string, h http.Handler, drain time.Duration, onShutdown ...func()) error {
	srv := newServer(log, addr, h)
	for _, f := range onShutdown {
		srv.RegisterOnShutdown(f)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	log.Info("serving", slog.String("addr", ln.Addr().String()))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", slog.Duration("timeout", drain))
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}
