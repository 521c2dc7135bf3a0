// Package apitest runs requests through the real HTTP stack against a fresh
// database and checks every response against openapi.yaml (status, headers
// and body), so no test can pass with an undocumented answer.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/httpapi"
	"github.com/socialnet/socialapi/internal/members"
	"github.com/socialnet/socialapi/internal/pg/pgtest"
	"github.com/socialnet/socialapi/internal/search"
	"github.com/socialnet/socialapi/internal/views"
)

// PublicURL is the base URL the test server is configured with.
const PublicURL = "https://social.example"

// Env is one API under test with its own database.
type Env struct {
	T    testing.TB
	DB   *sqlx.DB
	Echo *echo.Echo
	Logs *bytes.Buffer // everything the server logged
	mu   sync.Mutex
}

// Options adjust the server under test.
type Options struct {
	// RateWindow replaces the one-minute refill period of the rate limits
	// (quotas unchanged), so counting tests see no refill.
	RateWindow time.Duration
	// Metrics, when set, receives the server's Prometheus collectors.
	Metrics *prometheus.Registry
	// CORSOrigins are the browser origins allowed cross-origin.
	CORSOrigins []string
	// Configure, when set, changes the server's configuration (NewWith's)
	// before the server is built.
	Configure func(*httpapi.Config)
}

// New starts an API over a fresh database.
func New(t testing.TB) *Env {
	t.Helper()
	return NewWith(t, Options{})
}

// NewWith is New with options.
func NewWith(t testing.TB, o Options) *Env {
	t.Helper()
	conn := pgtest.New(t)
	logs := &bytes.Buffer{}
	env := &Env{T: t, DB: conn, Logs: logs}
	log := slog.New(slog.NewJSONHandler(syncWriter{&env.mu, logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// Views are flushed as the server does at shutdown, before the database
	// closes (cleanups run last-registered first).
	counter := views.New(conn, log, time.Second)
	t.Cleanup(func() { _ = counter.Close(context.Background()) })
	// serve's defaults, with a gate as the server has (MAX_ACTIVE_REQUESTS)
	// so that every API test passes through it, and no request timeout.
	cfg := httpapi.DefaultConfig()
	cfg.PublicURL, cfg.BodyLimit, cfg.MaxActive, cfg.Views = PublicURL, 64<<10, 8, counter
	cfg.SearchBounds.Active = search.DefaultActive(cfg.MaxActive, conn.Stats().MaxOpenConnections)
	cfg.Metrics, cfg.CORSOrigins = o.Metrics, o.CORSOrigins
	if o.RateWindow > 0 {
		cfg.RateLimits.Window = o.RateWindow
	}
	if o.Configure != nil {
		o.Configure(&cfg)
	}
	e, err := httpapi.New(cfg, conn, log, SpecYAML(t))
	if err != nil {
		t.Fatalf("apitest: build server: %v", err)
	}
	env.Echo = e
	return env
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// SpecYAML reads openapi.yaml from the repository root.
func SpecYAML(t testing.TB) []byte {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "openapi.yaml"))
	if err != nil {
		t.Fatalf("apitest: read openapi.yaml: %v", err)
	}
	return b
}

// Member creates a member and returns its id; a failure fails t, the
// test (or subtest) that asked.
func (env *Env) Member(t testing.TB, handle string) int64 {
	t.Helper()
	m, err := members.NewStore(env.DB).Create(context.Background(), members.New{Handle: handle, Name: strings.ToUpper(handle[:1]) + handle[1:]})
	if err != nil {
		t.Fatalf("apitest: create member %s: %v", handle, err)
	}
	return m.ID
}

// Token creates a token for handle and returns its value; a failure fails
// t, the test (or subtest) that asked.
func (env *Env) Token(t testing.TB, handle string, scope auth.Scope) string {
	t.Helper()
	_, secret, err := auth.NewStore(env.DB, nil).Create(context.Background(), auth.NewToken{Handle: handle, Scope: scope})
	if err != nil {
		t.Fatalf("apitest: create token for %s: %v", handle, err)
	}
	return secret
}

// Request is one request to send.
type Request struct {
	Method string
	Path   string // with query string
	Token  string // sent as "Authorization: Bearer <Token>" when not empty
	Body   string // sent as application/json when not empty
	Header http.Header
}

// Name is a short name of r for a subtest: its method and path, each cut to
// 24 bytes, and "anonymous" when it carries no token.
func (r Request) Name() string {
	cut := func(s string) string { return s[:min(len(s), 24)] }
	name := cut(r.Method) + " " + cut(r.Path)
	if r.Token == "" {
		name += " anonymous"
	}
	return name
}

// Response is a recorded response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Problem is the decoded problem body of an error response.
type Problem struct {
	Type, Title, Detail, Instance, Code, RequestID string
	Status                                         int
	Errors                                         []struct {
		Pointer, Parameter *string
		Code, Detail       string
	}
}

// Problem decodes the body as a problem document.
func (r *Response) Problem(t testing.TB) Problem {
	t.Helper()
	var raw struct {
		Type      string `json:"type"`
		Title     string `json:"title"`
		Status    int    `json:"status"`
		Detail    string `json:"detail"`
		Instance  string `json:"instance"`
		Code      string `json:"code"`
		RequestID string `json:"request_id"`
		Errors    []struct {
			Pointer   *string `json:"pointer"`
			Parameter *string `json:"parameter"`
			Code      string  `json:"code"`
			Detail    string  `json:"detail"`
		} `json:"errors"`
	}
	r.JSON(t, &raw)
	p := Problem{Type: raw.Type, Title: raw.Title, Detail: raw.Detail, Instance: raw.Instance, Code: raw.Code, RequestID: raw.RequestID, Status: raw.Status}
	for _, e := range raw.Errors {
		p.Errors = append(p.Errors, struct {
			Pointer, Parameter *string
			Code, Detail       string
		}{e.Pointer, e.Parameter, e.Code, e.Detail})
	}
	return p
}

// Do sends req through the whole stack and fails the test if the response
// does not conform to openapi.yaml.
func (env *Env) Do(t testing.TB, req Request) *Response {
	t.Helper()
	resp := env.Send(req)
	if err := Check(req, resp); err != nil {
		t.Fatalf("%s %s: response violates openapi.yaml: %v\nstatus %d\nbody %s", req.Method, req.Path, err, resp.Status, resp.Body)
	}
	return resp
}

// Send sends req without checking the response; use Do in tests.
func (env *Env) Send(req Request) *Response {
	var body io.Reader
	if req.Body != "" {
		body = strings.NewReader(req.Body)
	}
	r := httptest.NewRequest(req.Method, req.Path, body)
	for k, vs := range req.Header {
		if k == "Host" {
			r.Host = vs[0]
			continue
		}
		for _, v := range vs {
			r.Header.Add(k, v)
		}
	}
	if req.Body != "" && r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		r.Header.Set("Authorization", "Bearer "+req.Token)
	}
	rec := httptest.NewRecorder()
	env.Echo.ServeHTTP(rec, r)
	return &Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

var (
	specOnce sync.Once
	spec     *openapi3.T
	router   routers.Router
	specErr  error
)

func loadSpec() (*openapi3.T, routers.Router, error) {
	specOnce.Do(func() {
		spec, specErr = gen.GetSpec()
		if specErr != nil {
			return
		}
		if specErr = spec.Validate(context.Background()); specErr != nil {
			return
		}
		for _, s := range spec.Servers {
			if u, err := url.Parse(s.URL); err == nil {
				s.URL = u.Path
			}
		}
		router, specErr = gorillamux.NewRouter(spec)
	})
	return spec, router, specErr
}

// Check validates a response against the spec: an API operation's response
// by its documented status, headers and schema; anything else under /api/v1
// (unknown path, wrong method) must be a problem document. It also enforces
// the conventions JSON Schema cannot: absolute URLs, X-Request-Id, no header
// the spec does not declare for the status, and the rate-limit headers on
// every answer to an authenticated request (checkHeaders). A HEAD is checked
// as its GET, headers and status, and must have no body.
func Check(req Request, resp *Response) error {
	s, rt, err := loadSpec()
	if err != nil {
		return fmt.Errorf("spec: %w", err)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		return fmt.Errorf("missing X-Request-Id header")
	}
	if resp.Status >= 400 && resp.Header.Get("Content-Type") != "application/problem+json" {
		return fmt.Errorf("error response with Content-Type %q, want application/problem+json", resp.Header.Get("Content-Type"))
	}
	if len(resp.Body) > 0 {
		var v any
		if err := json.Unmarshal(resp.Body, &v); err != nil {
			return fmt.Errorf("body is not JSON: %w", err)
		}
		if err := checkURLs(v, ""); err != nil {
			return err
		}
	}
	method, head := req.Method, req.Method == http.MethodHead
	if head {
		if len(resp.Body) > 0 {
			return fmt.Errorf("HEAD answered with a body of %d bytes", len(resp.Body))
		}
		method = http.MethodGet
	}
	vreq := httptest.NewRequest(method, req.Path, nil)
	route, params, err := rt.FindRoute(vreq)
	if err != nil {
		// Not an operation: only a problem document may answer.
		if resp.Status < 400 {
			return fmt.Errorf("status %d for a request that matches no operation", resp.Status)
		}
		if err := checkHeaders(req, resp, unroutedHeaders(s, resp.Status)); err != nil {
			return err
		}
		if head {
			return nil
		}
		problem := s.Components.Schemas["Problem"].Value
		var v any
		_ = json.Unmarshal(resp.Body, &v)
		return problem.VisitJSON(v)
	}
	if declared := route.Operation.Responses.Status(resp.Status); declared != nil && declared.Value != nil {
		if err := checkHeaders(req, resp, declared.Value.Headers); err != nil {
			return err
		}
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  resp.Status,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(resp.Body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: head},
	})
}

// transportHeaders are the response headers no operation declares: those
// of HTTP's own framing and content negotiation, which every HTTP client
// reads itself and the spec's conventions describe once (Content-Type is
// each response's media type; Vary names Authorization, and Origin with CORS).
var transportHeaders = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Transfer-Encoding": true,
	"Connection": true, "Date": true, "Vary": true,
}

// checkHeaders fails a response that carries a header the spec does not
// declare for its operation and status (beyond transportHeaders, and the
// Access-Control-* headers of CORS when the request named an Origin), or
// lacks one declared required. kin-openapi validates the declared headers'
// values but lets undeclared ones pass, and checks nothing on a 304.
func checkHeaders(req Request, resp *Response, declared openapi3.Headers) error {
	known := make(map[string]*openapi3.HeaderRef, len(declared))
	for name, h := range declared {
		known[http.CanonicalHeaderKey(name)] = h
	}
	cors := req.Header.Get("Origin") != ""
	var undeclared []string
	for name := range resp.Header {
		name = http.CanonicalHeaderKey(name)
		switch {
		case known[name] != nil, transportHeaders[name]:
		case cors && strings.HasPrefix(name, "Access-Control-"):
		default:
			undeclared = append(undeclared, name)
		}
	}
	if len(undeclared) > 0 {
		sort.Strings(undeclared)
		return fmt.Errorf("status %d sent headers openapi.yaml does not declare for it: %s", resp.Status, strings.Join(undeclared, ", "))
	}
	for name, h := range known {
		if h.Value != nil && h.Value.Required && resp.Header.Get(name) == "" {
			return fmt.Errorf("status %d lacks the required header %s", resp.Status, name)
		}
	}
	if spentBudget(req, resp.Status) {
		for _, name := range rateLimitHeaders {
			if resp.Header.Get(name) == "" {
				return fmt.Errorf("status %d to an authenticated request lacks %s", resp.Status, name)
			}
		}
	}
	return nil
}

// rateLimitHeaders are sent on every answer to a request whose token
// authenticated (the spec's Rate limits section). They are not `required`
// in the spec: the generated server would then write each from the
// handler's response value, over what the edge set.
var rateLimitHeaders = []string{"RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}

// spentBudget reports whether a request's answer shows that its token
// authenticated and spent the member's budget: any 2xx, 3xx or 4xx to a
// request with a token, except 401 (the token did not count) and 429 (it
// may be the client address's budget for failed authentications, which
// has no member's headers).
func spentBudget(req Request, status int) bool {
	return req.Token != "" && status < 500 && status != http.StatusUnauthorized && status != http.StatusTooManyRequests
}

// unroutedHeaders are the headers an answer to a request that matches no
// operation may carry: those of the shared response its status has. A 405
// is no operation's response, so no operation declares its Allow header:
// the spec's Errors section documents it, and it must be there.
func unroutedHeaders(s *openapi3.T, status int) openapi3.Headers {
	shared := map[int]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "NotFound",
		413: "PayloadTooLarge", 415: "UnsupportedMediaType", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}
	r := s.Components.Responses[shared[status]]
	if r == nil || r.Value == nil {
		return nil
	}
	if status != http.StatusMethodNotAllowed {
		return r.Value.Headers
	}
	h := maps.Clone(r.Value.Headers)
	h["Allow"] = &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Required: true}}}
	return h
}

// checkURLs requires every URL-valued field (url, *_url, avatar, logo) to be
// absolute, under the public base URL unless it points at external media.
// notURIChar reports whether r may not appear unescaped in a URI (RFC 3986:
// unreserved, reserved and "%" only).
func notURIChar(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)
}

func checkURLs(v any, key string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if err := checkURLs(c, k); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range x {
			if err := checkURLs(c, key); err != nil {
				return err
			}
		}
	case string:
		if key == "url" || strings.HasSuffix(key, "_url") || key == "avatar" || key == "logo" || key == "type" && strings.Contains(x, "/problems/") {
			u, err := url.Parse(x)
			if err != nil || !u.IsAbs() || u.Host == "" {
				return fmt.Errorf("field %q = %q is not an absolute URL", key, x)
			}
			if i := strings.IndexFunc(x, notURIChar); i >= 0 {
				return fmt.Errorf("field %q = %q is not a URI: %q is not allowed unescaped (RFC 3986)", key, x, x[i:i+1])
			}
		}
	}
	return nil
}

// DoHost is Do with the request's Host header set to host.
func (env *Env) DoHost(t testing.TB, req Request, host string) *Response {
	t.Helper()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Host", host)
	return env.Do(t, req)
}
