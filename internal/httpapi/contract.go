package httpapi

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/meta"
)

// operation is what the edge needs to know about one spec operation.
type operation struct {
	id          string
	scope       auth.Scope
	hasBody     bool
	query       map[string]bool // declared query parameter -> is an array
	route       *routers.Route
	pathPattern string
}

// Probe reports whether the resource a request's path names exists and is
// visible to the caller (nil) or not (an apperr NotFound). It runs only when
// a request also fails validation, so that "absent or not visible" (404) wins
// over "malformed" (400/422), as API_DESIGN.md orders the checks.
type Probe func(ctx context.Context, p auth.Principal, pathParams map[string]string) error

// contract matches requests to spec operations and validates them with
// kin-openapi.
type contract struct {
	router routers.Router
	ops    map[*openapi3.Operation]*operation
	probes map[string]Probe
	// byEcho is each operation's route by method and the path Echo
	// registered its handler under ("/api/v1/posts/:id"): Echo has already
	// chosen the operation that will answer, so match reads it from there
	// instead of matching the path against every route's pattern again
	// (gorillamux: about 5 % of the server's CPU on a single post).
	byEcho map[string]map[string]*routers.Route
}

// echoPath is the path Echo routes a spec path under: base, then the path
// with {name} written :name, as oapi-codegen registers it.
func echoPath(base, path string) string {
	var b strings.Builder
	b.WriteString(base)
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '{':
			b.WriteByte(':')
		case '}':
		default:
			b.WriteByte(path[i])
		}
	}
	return b.String()
}

func newContract(spec *openapi3.T, probes map[string]Probe) (*contract, error) {
	// The validator matches servers by host and scheme when their URLs are
	// absolute; keep only the path so the API answers under any host name.
	for _, s := range spec.Servers {
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
			s.URL = u.Path
		}
	}
	router, err := gorillamux.NewRouter(spec)
	if err != nil {
		return nil, fmt.Errorf("spec router: %w", err)
	}
	c := &contract{router: router, ops: map[*openapi3.Operation]*operation{}, probes: probes,
		byEcho: map[string]map[string]*routers.Route{}}
	var server *openapi3.Server
	base := ""
	if len(spec.Servers) == 1 { // else the slow path chooses among them
		server, base = spec.Servers[0], strings.TrimSuffix(spec.Servers[0].URL, "/")
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			if server != nil {
				if c.byEcho[method] == nil {
					c.byEcho[method] = map[string]*routers.Route{}
				}
				c.byEcho[method][echoPath(base, path)] = &routers.Route{Spec: spec, Server: server, Path: path,
					PathItem: item, Method: method, Operation: op}
			}
			o := &operation{id: op.OperationID, scope: auth.Scope(meta.ScopeOf(spec, op)), hasBody: op.RequestBody != nil,
				query: map[string]bool{}, pathPattern: path}
			for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range ps {
					if p.Value.In == openapi3.ParameterInQuery {
						o.query[p.Value.Name] = p.Value.Schema != nil && p.Value.Schema.Value.Type.Is(openapi3.TypeArray)
					}
				}
			}
			_ = method
			c.ops[op] = o
		}
	}
	return c, nil
}

type routeMatch struct {
	route  *routers.Route
	params map[string]string
	op     *operation
	err    error // *apperr.Error: not found or method not allowed
	allow  string
}

// match finds the operation of the request Echo routed to c: the one of
// the handler Echo chose when the path needs no unescaping, else (and for
// paths Echo has no handler for: 404, 405) by matching the request against
// the spec's routes.
func (ct *contract) match(c echo.Context) routeMatch {
	r := c.Request()
	if r.URL.RawPath == "" && !strings.Contains(r.URL.Path, "%") {
		if route := ct.byEcho[r.Method][c.Path()]; route != nil {
			names, values := c.ParamNames(), c.ParamValues()
			params := make(map[string]string, len(names))
			for i, n := range names {
				if i < len(values) {
					params[n] = values[i]
				}
			}
			return routeMatch{route: route, params: params, op: ct.ops[route.Operation]}
		}
	}
	return ct.matchSpec(r)
}

// matchSpec finds the operation of a request by its method and path.
func (ct *contract) matchSpec(r *http.Request) routeMatch {
	route, params, err := ct.router.FindRoute(r)
	if err == nil {
		for k, v := range params {
			if u, err := url.PathUnescape(v); err == nil {
				params[k] = u
			}
		}
		return routeMatch{route: route, params: params, op: ct.ops[route.Operation]}
	}
	if errors.Is(err, routers.ErrMethodNotAllowed) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, _, err := ct.router.FindRoute(probe); err == nil {
				allow = append(allow, m)
			}
		}
		return routeMatch{
			err:   apperr.New(apperr.MethodNotAllowed, fmt.Sprintf("%s is not allowed on this path.", r.Method)),
			allow: strings.Join(allow, ", "),
		}
	}
	return routeMatch{err: apperr.New(apperr.NotFound, "No such API path.")}
}

// checkQuery rejects query parameters the operation does not declare, and
// repeated single-valued ones (which kin-openapi would silently resolve).
func (o *operation) checkQuery(q url.Values) error {
	var fields []apperr.FieldError
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		isArray, known := o.query[k]
		switch {
		case !known:
			fields = append(fields, apperr.FieldError{Parameter: k, Code: "unknown_parameter",
				Detail: "This operation does not accept this query parameter."})
		case !isArray && len(q[k]) > 1:
			fields = append(fields, apperr.FieldError{Parameter: k, Code: "repeated_parameter",
				Detail: "This parameter may appear only once."})
		}
	}
	if len(fields) > 0 {
		return &apperr.Error{Code: apperr.InvalidParameter, Detail: "The query string has parameters this operation does not accept.", Fields: fields}
	}
	return nil
}

// checkContentType enforces application/json on requests that carry a body.
func (o *operation) checkContentType(r *http.Request) error {
	if !o.hasBody || (r.ContentLength == 0 && len(r.TransferEncoding) == 0) {
		return nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if err != nil || mt != echo.MIMEApplicationJSON {
		return apperr.New(apperr.UnsupportedMedia, "Request bodies must be sent as application/json.")
	}
	return nil
}

// validateOptions are the options of every validation; kin-openapi only
// reads them.
var validateOptions = &openapi3filter.Options{
	MultiError:              true,
	KeepValidatedValue:      true,
	AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc, // authenticated before this runs
	SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
}

// validate runs kin-openapi's request validation (parameters and body) and
// translates its errors into problem fields without echoing values.
func (ct *contract) validate(ctx context.Context, r *http.Request, m routeMatch) error {
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: m.params, Route: m.route, Options: validateOptions}
	err := openapi3filter.ValidateRequest(ctx, in)
	if err == nil {
		return nil
	}
	return translate(err)
}

// translate turns a kin-openapi validation error into one apperr.Error:
// parameter problems are 400 invalid_parameter, an undecodable body 400
// invalid_json, an oversize body 413, and schema violations of the body 422
// validation_failed, each with a pointer or parameter name.
func translate(err error) error {
	var (
		params, body []apperr.FieldError
		badJSON      *apperr.Error
		tooLarge     bool
	)
	var walk func(error, string)
	walk = func(err error, pointer string) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x, pointer)
			}
		case *openapi3filter.RequestError:
			switch {
			case e.Parameter != nil:
				params = append(params, apperr.FieldError{Parameter: e.Parameter.Name, Code: "invalid", Detail: describeParam(e.Parameter, e.Err)})
			case e.RequestBody != nil:
				var mbe *http.MaxBytesError
				switch {
				case errors.As(e.Err, &mbe):
					tooLarge = true
				case errors.Is(e.Err, openapi3filter.ErrInvalidRequired):
					badJSON = apperr.New(apperr.InvalidJSON, "This operation requires a JSON request body.")
				case e.Reason == "failed to decode request body":
					badJSON = apperr.New(apperr.InvalidJSON, "The request body is not valid JSON.")
				case e.Err != nil:
					walk(e.Err, "")
				default:
					badJSON = apperr.New(apperr.InvalidJSON, "The request body could not be read.")
				}
			}
		case *openapi3.SchemaError:
			ptr := "/" + strings.Join(e.JSONPointer(), "/")
			if ptr == "/" {
				ptr = ""
			}
			code := schemaCode(e.SchemaField)
			if m := propertyInReason.FindStringSubmatch(e.Reason); m != nil {
				ptr += "/" + escapePointer(m[1])
				if m[2] == "unsupported" {
					code = "unknown_field"
				} else {
					code = "required"
				}
			}
			body = append(body, apperr.FieldError{Pointer: ptr, Code: code, Detail: e.Reason})
		default:
			body = append(body, apperr.FieldError{Pointer: pointer, Code: "invalid", Detail: "The value is not valid."})
		}
	}
	walk(err, "")
	switch {
	case tooLarge:
		return apperr.New(apperr.PayloadTooLarge, "The request body is too large.")
	case len(params) > 0:
		return &apperr.Error{Code: apperr.InvalidParameter, Detail: "One or more parameters are invalid.", Fields: params, Err: err}
	case badJSON != nil:
		badJSON.Err = err
		return badJSON
	default:
		return &apperr.Error{Code: apperr.ValidationFailed, Detail: "The request body failed validation.", Fields: body, Err: err}
	}
}

var propertyInReason = regexp.MustCompile(`^property "(.+)" is (unsupported|missing)$`)

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func schemaCode(field string) string {
	switch field {
	case "maxLength":
		return "too_long"
	case "minLength":
		return "too_short"
	case "enum":
		return "not_allowed"
	case "pattern", "format":
		return "bad_format"
	case "type":
		return "wrong_type"
	case "minimum", "maximum":
		return "out_of_range"
	}
	return "invalid"
}

// describeParam explains what a parameter accepts, from its schema, without
// repeating the value the client sent.
func describeParam(p *openapi3.Parameter, err error) string {
	if errors.Is(err, openapi3filter.ErrInvalidRequired) {
		return "This parameter is required."
	}
	if errors.Is(err, openapi3filter.ErrInvalidEmptyValue) {
		return "This parameter must not be empty."
	}
	if p.Schema == nil || p.Schema.Value == nil {
		return "The value is not valid."
	}
	s := p.Schema.Value
	switch {
	case len(s.Enum) > 0:
		vals := make([]string, 0, len(s.Enum))
		for _, v := range s.Enum {
			vals = append(vals, fmt.Sprint(v))
		}
		return "Must be one of: " + strings.Join(vals, ", ") + "."
	case s.Type.Is(openapi3.TypeInteger):
		switch {
		case s.Min != nil && s.Max != nil:
			return fmt.Sprintf("Must be an integer from %.0f to %.0f.", *s.Min, *s.Max)
		case s.Min != nil:
			return fmt.Sprintf("Must be an integer of at least %.0f.", *s.Min)
		}
		return "Must be an integer."
	case s.Type.Is(openapi3.TypeBoolean):
		return "Must be true or false."
	case s.Type.Is(openapi3.TypeString):
		msg := "Must be a string"
		if s.MaxLength != nil {
			msg += fmt.Sprintf(" of %d to %d characters", s.MinLength, *s.MaxLength)
		}
		if s.Pattern != "" {
			msg += " matching " + s.Pattern
		}
		return msg + "."
	}
	return "The value is not valid."
}
