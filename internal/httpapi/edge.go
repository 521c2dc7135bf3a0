package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/pg"
)

// Authenticator resolves a bearer token to a principal.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (auth.Principal, error)
	// Recall is Authenticate from memory, for reads: a provisional
	// principal, or false (auth/recall.go).
	Recall(token string) (auth.Principal, bool)
}

// edge is the middleware in front of every /api/v1 request (serve). It
// applies the checks in the contract's order (docs/design.md): authenticate
// (401; failures are limited per client address) → rate limit (429) → route
// (404/405) → scope (403) → the request's form (400/413/415: checkRequest,
// checkText, readKey) → the request's values (400/422, unless the named
// resource does not exist or is hidden: 404; a malformed path parameter
// names no resource, so it is a 400). GET answers get an ETag and may be 304
// (etag.go); a conditional GET spends the read budget like any.
type edge struct {
	contract  *contract
	authn     Authenticator
	limits    *limits
	idem      *idempotent
	tags      *etags
	bodyLimit int64
	router    *pg.Router // read replicas (replicas.go); nil: none
	log       *slog.Logger
}

// serve is the edge as Echo middleware.
func (e *edge) serve(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		m := e.contract.match(c)
		// A GET, and a write whose statement checks the token itself, may
		// act for a recalled principal (auth/recall.go); it is confirmed in
		// full before anything is answered, unless a guarded statement
		// confirmed it meanwhile.
		tok, p, err := e.authenticate(c.Request(), recallable(c.Request(), m))
		if err != nil {
			return e.failed(c, err)
		}
		c.Set(ctxMemberID, p.MemberID)
		c.SetRequest(c.Request().WithContext(auth.WithPrincipal(c.Request().Context(), p)))
		pc := pendingConfirmation{edge: e, c: c, ctx: c.Request().Context(), tok: tok, pending: p.Pending()}
		err = e.check(c, next, m, p, &pc)
		if cerr := pc.confirm(); cerr != nil {
			// Nothing was sent: drop what the checks set for a member the
			// request turned out not to act for.
			h := c.Response().Header()
			e.limits.clear(h)
			h.Del("ETag")
			h.Del(echo.HeaderAllow)
			return cerr
		}
		return err
	}
}

// pendingConfirmation is what a request owes before it answers for a
// recalled principal: the token, to authenticate in full, and the
// principal's confirmation (auth.Pending), which a guarded statement may
// settle first. For a principal authenticated in full it owes nothing.
type pendingConfirmation struct {
	edge    *edge
	c       echo.Context
	ctx     context.Context // the request's, carrying the principal
	tok     string
	pending *auth.Pending // nil: authenticated in full

	ran bool  // confirm ran
	err error // its answer
}

// confirm authenticates the token in full unless the principal is
// confirmed already; it runs at most once and then repeats its answer,
// so a refused token spends the failure budget once.
func (pc *pendingConfirmation) confirm() error {
	if pc.ran {
		return pc.err
	}
	pc.ran = true
	if pc.pending == nil || pc.pending.Confirmed() {
		return nil
	}
	if _, err := pc.edge.authn.Authenticate(pc.ctx, pc.tok); err != nil {
		pc.err = pc.edge.failed(pc.c, err)
		return pc.err
	}
	pc.pending.Confirm()
	return nil
}

// guardedWrites are the writes whose one write statement checks the token
// of a provisional principal (auth.GuardSQL) before it writes anything: a
// token that no longer counts writes nothing, and the edge then answers 401.
// Any other write authenticates in full first. guarded_internal_test.go
// names the statements and holds this list to them.
var guardedWrites = map[string]bool{
	"createPost":                true,
	"reactToPost":               true,
	"deletePostReaction":        true,
	"createPostComment":         true,
	"toggleFollow":              true,
	"createConversationMessage": true,
}

// recallable reports whether r may act for a recalled principal: every GET
// and HEAD (its answer is held until confirmed, etag.go), and the guarded
// writes without an Idempotency-Key (a stored answer must come from a
// confirmed principal).
func recallable(r *http.Request, m routeMatch) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	return m.err == nil && m.op != nil && guardedWrites[m.op.id] && r.Header.Get(headerIdempotencyKey) == ""
}

// authenticate reads the one accepted credential: an Authorization header
// with the Bearer scheme. Tokens anywhere else (query, cookie) do not count.
// With recall, a token the store recalls gives a provisional principal
// (auth.Principal.Provisional) without a database round trip.
func (e *edge) authenticate(r *http.Request, recall bool) (string, auth.Principal, error) {
	values := r.Header.Values(echo.HeaderAuthorization)
	if len(values) == 0 {
		return "", auth.Principal{}, apperr.New(apperr.Unauthenticated, "This request needs an Authorization: Bearer <token> header.")
	}
	if len(values) > 1 {
		return "", auth.Principal{}, apperr.New(apperr.InvalidToken, "Send exactly one Authorization header.")
	}
	scheme, tok, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", auth.Principal{}, apperr.New(apperr.InvalidToken, "The Authorization header must use the Bearer scheme.")
	}
	if recall {
		if p, ok := e.authn.Recall(tok); ok {
			return tok, p, nil
		}
	}
	p, err := e.authn.Authenticate(r.Context(), tok)
	return tok, p, err
}

// failed answers a request whose authentication failed: its error, after
// spending the client address's budget for failed authentications (429 when
// exhausted). A failure to reach the token store is not the client's.
func (e *edge) failed(c echo.Context, err error) error {
	if apperr.Is(err, apperr.Unavailable) || apperr.Is(err, apperr.Internal) {
		return err
	}
	if lerr := e.limits.takeAddress(c.Request().Context(), c.RealIP()); lerr != nil {
		return lerr
	}
	return err
}

// check is the part of the edge after authentication: rate limit, route
// and scope, request validation, then the handler: through idempotency for
// a POST with a key, through conditional GET (which confirms a recalled
// principal before writing the answer) for a GET.
func (e *edge) check(c echo.Context, next echo.HandlerFunc, m routeMatch, p auth.Principal, pending *pendingConfirmation) error {
	r := c.Request()
	if err := e.limits.take(r.Context(), c.Response().Header(), r.Method, p.MemberID); err != nil {
		return err
	}
	if err := checkScope(c, m, p); err != nil {
		return err
	}
	key, hash, err := e.validate(r, m, p)
	if err == nil {
		e.routeReads(c, m, p)
		e.markWrites(c, p)
	}
	switch {
	case err != nil:
		return err
	case key != "":
		return e.idem.serve(c, next, p, r.Method+" "+BasePath+m.op.pathPattern, key, hash)
	case m.op.id == streamOperationID:
		// Streamed, so never buffered: the principal is confirmed first.
		if err := pending.confirm(); err != nil {
			return err
		}
		return next(c)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return e.tags.serve(c, next, m.op.id, pending)
	}
	return next(c)
}

// checkScope answers a request that matched no operation (404, or 405 with
// the Allow header), and one whose token lacks the operation's scope (403).
func checkScope(c echo.Context, m routeMatch, p auth.Principal) error {
	if m.err != nil {
		if m.allow != "" {
			c.Response().Header().Set(echo.HeaderAllow, m.allow)
		}
		return m.err
	}
	if !p.Scope.Allows(m.op.scope) {
		return apperr.New(apperr.InsufficientScope, "This operation needs a token with the write scope.")
	}
	return nil
}

// validate holds r to the contract, and returns its Idempotency-Key (a
// POST's, "" when it has none) with the request's fingerprint. The form is
// checked first and answers without a lookup; a request whose values are
// invalid and whose operation names a resource is 404 when the probe finds
// it missing or hidden from p.
func (e *edge) validate(r *http.Request, m routeMatch, p auth.Principal) (key string, hash []byte, err error) {
	if err := checkRequest(r, m, e.bodyLimit); err != nil {
		return "", nil, err
	}
	if err := checkText(r); err != nil {
		return "", nil, err
	}
	if r.Method == http.MethodPost {
		if key, err = readKey(r); err != nil {
			return "", nil, err
		}
		if key != "" {
			if hash, err = fingerprint(r); err != nil {
				return "", nil, classify(err)
			}
		}
	}
	ctx := r.Context()
	err = e.contract.validate(ctx, r, m)
	if err == nil && m.op.hasBody {
		err = checkOneValue(r)
	}
	if err != nil {
		if probe := e.contract.probes[m.op.id]; probe != nil && !apperr.Is(err, apperr.PayloadTooLarge) && !namesPathParam(err, m.params) {
			if perr := probe(ctx, p, m.params); perr != nil {
				return "", nil, perr
			}
		}
		return "", nil, err
	}
	return key, hash, nil
}

// checkRequest applies the checks kin-openapi does not: path parameters
// that are not text, undeclared or empty query parameters, the body's media
// type and its size.
func checkRequest(r *http.Request, m routeMatch, bodyLimit int64) error {
	if err := checkPathText(m.params); err != nil {
		return err
	}
	if err := m.op.checkQuery(r.URL.Query()); err != nil {
		return err
	}
	if err := m.op.checkContentType(r); err != nil {
		return err
	}
	if !m.op.hasBody {
		// Operations without a request body ignore one (a POST such as follow
		// accepts an empty body with or without a content type).
		r.Body = http.NoBody
		return nil
	}
	if r.ContentLength > bodyLimit {
		return apperr.New(apperr.PayloadTooLarge, "The request body is too large.")
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(nil, r.Body, bodyLimit)
	}
	return nil
}

// errorHandler is Echo's one error renderer: every error becomes a problem
// body; 5xx are logged once with the request id and their internal cause,
// except that a run of 503 unavailable (an outage) is summarised by outages.
func errorHandler(log *slog.Logger, publicURL string, outages *outageLog) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		ae := classify(err)
		status := StatusOf(ae.Code)
		if status >= 500 {
			level, msg, logIt := slog.LevelError, "request failed", true
			var extra []slog.Attr
			if ae.Code == apperr.Unavailable {
				var unlogged int
				level, unlogged, logIt = outages.note()
				if level == slog.LevelWarn {
					msg = "requests still failing: service unavailable"
				}
				extra = append(extra, slog.Int("unlogged_503s", unlogged))
			}
			if logIt {
				log.LogAttrs(c.Request().Context(), level, msg, append([]slog.Attr{
					slog.String("request_id", requestIDOf(c)),
					slog.String("method", clip(c.Request().Method, logMethodMax)),
					slog.String("path", clip(c.Request().URL.Path, logPathMax)),
					slog.String("code", string(ae.Code)),
					slog.String("error", clip(err.Error(), logTextMax)),
				}, extra...)...)
			}
		}
		if err := writeProblem(c.Response(), publicURL, c.Request().URL.Path, requestIDOf(c), ae); err != nil {
			log.Debug("write problem", slog.String("error", err.Error()))
		}
	}
}

// classify maps any error reaching the edge to an apperr.Error.
func classify(err error) *apperr.Error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.New(apperr.PayloadTooLarge, "The request body is too large.")
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return apperr.New(apperr.NotFound, "No such path.")
		case http.StatusMethodNotAllowed:
			return apperr.New(apperr.MethodNotAllowed, "This method is not allowed on this path.")
		case http.StatusRequestEntityTooLarge:
			return apperr.New(apperr.PayloadTooLarge, "The request body is too large.")
		case http.StatusUnsupportedMediaType:
			return apperr.New(apperr.UnsupportedMedia, "Request bodies must be sent as application/json.")
		case http.StatusBadRequest:
			// The generated wrappers report undecodable parameters and bodies this way.
			return apperr.Wrap(apperr.InvalidParameter, "The request could not be decoded.", err)
		case http.StatusServiceUnavailable:
			return apperr.TryLater(err)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.TryLater(err)
	}
	return apperr.Wrap(apperr.Internal, "An unexpected error occurred.", err)
}
