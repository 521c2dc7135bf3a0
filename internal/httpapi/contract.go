package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

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
	query       map[string]queryParam // declared query parameters by name
	route       *routers.Route
	pathPattern string
}

// queryParam is what checkQuery needs to know about a declared query
// parameter.
type queryParam struct {
	array      bool // may repeat
	allowEmpty bool // allowEmptyValue: "name=" is a value
	text       bool // search text (q): only white space is no value either
}

// Probe reports whether the resource a request's path names exists and is
// visible to the caller (nil) or not (an apperr NotFound). It runs only when
// a request's values fail validation, so that "absent or not visible" (404)
// wins over invalid values (400/422), as the contract orders the checks
// (docs/design.md); not when a path parameter itself is malformed, which
// names no resource (400), and never for the request's form (400/413/415),
// which is checked before it.
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
	// instead of matching the path against every route's pattern again,
	// which is a visible share of a cheap request's CPU.
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
			o := &operation{id: op.OperationID, scope: auth.Scope(meta.ScopeOf(op)), hasBody: op.RequestBody != nil,
				query: map[string]queryParam{}, pathPattern: path}
			for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range ps {
					if p.Value.In == openapi3.ParameterInQuery {
						o.query[p.Value.Name] = queryParam{array: p.Value.Schema != nil && p.Value.Schema.Value.Type.Is(openapi3.TypeArray),
							allowEmpty: p.Value.AllowEmptyValue, text: p.Value.Name == searchText}
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
// the spec's routes. A HEAD is its GET's operation (RFC 9110 §9.3.2: the
// same answer without the body), validated, limited and tagged as the GET.
func (ct *contract) match(c echo.Context) routeMatch {
	r := c.Request()
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if r.URL.RawPath == "" && !strings.Contains(r.URL.Path, "%") {
		if route := ct.byEcho[method][c.Path()]; route != nil {
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

// matchSpec finds the operation of a request by its method and path (a
// HEAD's: the GET's).
func (ct *contract) matchSpec(r *http.Request) routeMatch {
	method := r.Method
	if method == http.MethodHead {
		r = r.WithContext(r.Context()) // a shallow copy, to route as the GET
		r.Method = http.MethodGet
	}
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
				if m == http.MethodGet {
					allow = append(allow, http.MethodHead)
				}
			}
		}
		return routeMatch{
			err:   apperr.New(apperr.MethodNotAllowed, fmt.Sprintf("%s is not allowed on this path.", method)),
			allow: strings.Join(allow, ", "),
		}
	}
	return routeMatch{err: apperr.New(apperr.NotFound, "No such API path.")}
}

// searchText is the name of the search text parameter of every operation
// that takes one (/search, /market, /jobs).
const searchText = "q"

// blank reports whether v is only white space (Unicode's, as strings.Fields
// splits on): a search text with no word in it.
func blank(v string) bool { return strings.TrimSpace(v) == "" }

// checkQuery rejects query parameters the operation does not declare,
// repeated single-valued ones (which kin-openapi would silently resolve),
// and empty values ("per_page="), which kin-openapi would read as absent and
// replace with the parameter's default: a parameter is either left out or
// given a value, the same rule on every operation. A search text of only
// white space is no value either (`q=%20`): refused the same way on every
// operation that takes one, before any handler reads it.
func (o *operation) checkQuery(q url.Values) error {
	var fields []apperr.FieldError
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p, known := o.query[k]
		switch {
		case !known:
			fields = append(fields, apperr.FieldError{Parameter: k, Code: apperr.FieldUnknownParameter,
				Detail: "This operation does not accept this query parameter."})
		case !p.array && len(q[k]) > 1:
			fields = append(fields, apperr.FieldError{Parameter: k, Code: apperr.FieldRepeatedParameter,
				Detail: "This parameter may appear only once."})
		case !p.allowEmpty && slices.Contains(q[k], ""):
			fields = append(fields, apperr.FieldError{Parameter: k, Code: apperr.FieldInvalid,
				Detail: "This parameter must not be empty: leave it out for its default."})
		case p.text && slices.ContainsFunc(q[k], blank):
			fields = append(fields, apperr.FieldError{Parameter: k, Code: apperr.FieldInvalid,
				Detail: "This parameter must contain something other than white space."})
		}
	}
	if len(fields) > 0 {
		return &apperr.Error{Code: apperr.InvalidParameter, Detail: "The query string has parameters this operation does not accept.", Fields: fields}
	}
	return nil
}

// checkPathText rejects a path parameter that is not UTF-8 text or holds a
// NUL (`/users/a%00`): 400 naming the parameter, as for any malformed
// parameter, and never a value PostgreSQL text cannot store.
func checkPathText(params map[string]string) error {
	for name, v := range params {
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return &apperr.Error{Code: apperr.InvalidParameter, Detail: "Path parameters must be UTF-8 text without NUL characters.",
				Fields: []apperr.FieldError{{Parameter: name, Code: apperr.FieldInvalidText, Detail: "must be UTF-8 text without NUL characters"}}}
		}
	}
	return nil
}

// namesPathParam reports whether err is about a path parameter of params:
// a malformed or out-of-range id or handle (`/posts/9007199254740992`) names
// no resource, so no lookup runs and the 400 answers.
func namesPathParam(err error, params map[string]string) bool {
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.InvalidParameter {
		return false
	}
	for _, f := range ae.Fields {
		if _, ok := params[f.Parameter]; ok && f.Parameter != "" {
			return true
		}
	}
	return false
}

// checkContentType enforces application/json on requests that carry a body.
// Media types and charset names are case-insensitive (RFC 9110 §8.3.1):
// `Application/JSON; charset=UTF-8` is JSON. A charset other than UTF-8 is
// refused (JSON is UTF-8, RFC 8259 §8.1). The header is then rewritten to
// plain `application/json`, the one spelling the validator and the
// generated decoder look for.
func (o *operation) checkContentType(r *http.Request) error {
	if !o.hasBody || (r.ContentLength == 0 && len(r.TransferEncoding) == 0) {
		return nil
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)) // lower-cases mt and parameter names
	if err != nil || mt != echo.MIMEApplicationJSON {
		return apperr.New(apperr.UnsupportedMedia, "Request bodies must be sent as application/json.")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return apperr.New(apperr.UnsupportedMedia, "Request bodies must be UTF-8 JSON: send application/json with no charset or charset=utf-8.")
	}
	r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
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

// validate runs kin-openapi's request validation (parameters and body),
// with the checks of strict input around it: a body naming a member twice
// is not JSON the API accepts (400), and an integer member must be written
// as the generated decoder reads it (422). Every problem is translated into
// fields of our own words, without echoing values.
func (ct *contract) validate(ctx context.Context, r *http.Request, m routeMatch) error {
	if m.op.hasBody {
		body, err := readBody(r)
		if err != nil {
			return err
		}
		if ptr := duplicateMember(body); ptr != "" {
			return &apperr.Error{Code: apperr.InvalidJSON,
				Detail: "The request body is not valid JSON for this API: the member " + ptr + " appears more than once.",
				Fields: []apperr.FieldError{{Pointer: ptr, Code: apperr.FieldDuplicate, Detail: "This member appears more than once in its object."}}}
		}
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: m.params, Route: m.route, Options: validateOptions}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return translate(err)
	}
	if m.op.hasBody {
		return checkIntegers(r, m.route)
	}
	return nil
}

// checkIntegers rejects an integer member written with a fraction or an
// exponent (`38.0`, `3.8e1`): the validator accepts any number of integer
// value, the generated decoder only digits.
func checkIntegers(r *http.Request, route *routers.Route) error {
	vb, ok := r.Body.(validated)
	rb := route.Operation.RequestBody
	if !ok || rb == nil || rb.Value == nil {
		return nil
	}
	mt := rb.Value.Content.Get(echo.MIMEApplicationJSON)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	var fields []apperr.FieldError
	var walk func(*openapi3.SchemaRef, any, string)
	walk = func(ref *openapi3.SchemaRef, v any, at string) {
		if ref == nil || ref.Value == nil {
			return
		}
		s := ref.Value
		for _, sub := range s.AllOf {
			walk(sub, v, at)
		}
		switch x := v.(type) {
		case json.Number:
			if s.Type.Is(openapi3.TypeInteger) {
				if _, err := strconv.ParseInt(string(x), 10, 64); err != nil {
					fields = append(fields, apperr.FieldError{Pointer: at, Code: apperr.FieldWrongType,
						Detail: "Must be an integer, written without a fraction or an exponent."})
				}
			}
		case map[string]any:
			for k, c := range x {
				p := s.Properties[k]
				if p == nil {
					p = s.AdditionalProperties.Schema
				}
				walk(p, c, at+"/"+escapePointer(k))
			}
		case []any:
			for i, c := range x {
				walk(s.Items, c, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(mt.Schema, vb.ValidatedValue(), "")
	if len(fields) == 0 {
		return nil
	}
	return &apperr.Error{Code: apperr.ValidationFailed, Detail: "The request body failed validation.", Fields: sortFields(fields)}
}

// translate turns a kin-openapi validation error into one apperr.Error:
// parameter problems are 400 invalid_parameter, an undecodable body 400
// invalid_json, an oversize body 413, and schema violations of the body 422
// validation_failed, each with an RFC 6901 pointer to the member at fault
// (the missing one for `required`) or a parameter name. Every detail is
// written here from the schema: no reason of the validator or of a JSON
// decoder reaches the client.
func translate(err error) error {
	var (
		params, body []apperr.FieldError
		badJSON      *apperr.Error
		tooLarge     bool
	)
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(x)
			}
		case *openapi3filter.RequestError:
			switch {
			case e.Parameter != nil:
				if isCursor(e.Parameter) {
					params = append(params, apperr.FieldError{Parameter: e.Parameter.Name, Code: apperr.FieldInvalidCursor, Detail: "The cursor is not valid."})
					break
				}
				params = append(params, apperr.FieldError{Parameter: e.Parameter.Name, Code: apperr.FieldInvalid, Detail: describeParam(e.Parameter, e.Err)})
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
					walk(e.Err)
				default:
					badJSON = apperr.New(apperr.InvalidJSON, "The request body could not be read.")
				}
			}
		case *openapi3.SchemaError:
			if inner := allOfErrors(e); inner != nil {
				walk(inner)
				return
			}
			body = append(body, schemaFields(e)...)
		default:
			body = append(body, apperr.FieldError{Pointer: "", Code: apperr.FieldInvalid, Detail: "The request body is not valid."})
		}
	}
	walk(err)
	switch {
	case tooLarge:
		return apperr.New(apperr.PayloadTooLarge, "The request body is too large.")
	case len(params) > 0 && onlyCursor(params):
		return &apperr.Error{Code: apperr.InvalidCursor, Detail: "The cursor is not valid.", Fields: params, Err: err}
	case len(params) > 0:
		return &apperr.Error{Code: apperr.InvalidParameter, Detail: "One or more parameters are invalid.", Fields: params, Err: err}
	case badJSON != nil:
		badJSON.Err = err
		return badJSON
	default:
		return &apperr.Error{Code: apperr.ValidationFailed, Detail: "The request body failed validation.", Fields: sortFields(body), Err: err}
	}
}

// isCursor reports whether p is the Cursor parameter. Its schema states the
// cursor's length and alphabet for generators, but a cursor is opaque: one
// the schema refuses is malformed like one that does not decode, and
// answers 400 invalid_cursor as the parameter promises, never
// invalid_parameter.
func isCursor(p *openapi3.Parameter) bool {
	return p.In == openapi3.ParameterInQuery && p.Name == "cursor"
}

// onlyCursor reports whether every parameter problem is about the cursor.
func onlyCursor(fields []apperr.FieldError) bool {
	for _, f := range fields {
		if f.Code != apperr.FieldInvalidCursor {
			return false
		}
	}
	return true
}

// allOfErrors returns the errors of the subschemas an allOf error is made
// of (a property declared as `allOf: [$ref]` fails in its $ref), which
// carry the same pointer and say what is wrong; nil for any other error.
func allOfErrors(e *openapi3.SchemaError) error {
	if e.SchemaField != "allOf" {
		return nil
	}
	// Origin wraps the list of the subschemas' errors, itself a MultiError.
	var me openapi3.MultiError
	if inner := errors.Unwrap(errors.Unwrap(e.Origin)); inner != nil && errors.As(inner, &me) && len(me) > 0 {
		return me
	}
	return nil
}

// schemaFields describes one schema violation: where (the pointer of the
// member at fault) and what the schema asks for there.
func schemaFields(e *openapi3.SchemaError) []apperr.FieldError {
	var b strings.Builder
	for _, seg := range e.JSONPointer() {
		b.WriteString("/" + escapePointer(seg))
	}
	ptr, s := b.String(), e.Schema
	switch e.SchemaField {
	case "required":
		// The validator puts the missing member's name on the path.
		return []apperr.FieldError{{Pointer: ptr, Code: apperr.FieldRequired, Detail: "This member is required."}}
	case "properties":
		// One error per member the schema does not declare, each holding
		// the whole object: name them all, deduplicated by sortFields.
		obj, _ := e.Value.(map[string]any)
		var fields []apperr.FieldError
		for k := range obj {
			if _, ok := s.Properties[k]; !ok {
				fields = append(fields, apperr.FieldError{Pointer: ptr + "/" + escapePointer(k), Code: apperr.FieldUnknownField, Detail: "This member is not allowed."})
			}
		}
		if len(fields) > 0 {
			return fields
		}
	case "type":
		if _, ok := e.Value.(json.Number); ok && (s.Type.Is(openapi3.TypeInteger) || s.Type.Is(openapi3.TypeNumber)) {
			// A number too large for a float64 (1e400).
			return []apperr.FieldError{{Pointer: ptr, Code: apperr.FieldOutOfRange, Detail: describeNumber(s)}}
		}
	}
	return []apperr.FieldError{{Pointer: ptr, Code: schemaCode(e.SchemaField), Detail: describeSchema(s, e.SchemaField)}}
}

// sortFields orders fields by pointer then code, dropping repeats: the
// validator reports an object's members in map order.
func sortFields(fields []apperr.FieldError) []apperr.FieldError {
	sort.SliceStable(fields, func(i, j int) bool {
		if fields[i].Pointer != fields[j].Pointer {
			return fields[i].Pointer < fields[j].Pointer
		}
		return fields[i].Code.String() < fields[j].Code.String()
	})
	return slices.Compact(fields)
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// schemaCode is the field code of a violated schema keyword.
func schemaCode(field string) apperr.FieldCode {
	switch field {
	case "maxLength", "maxItems":
		return apperr.FieldTooLong
	case "minLength", "minItems":
		return apperr.FieldTooShort
	case "enum":
		return apperr.FieldNotAllowed
	case "pattern", "format":
		return apperr.FieldBadFormat
	case "type", "nullable":
		return apperr.FieldWrongType
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return apperr.FieldOutOfRange
	case "uniqueItems":
		return apperr.FieldDuplicate
	}
	return apperr.FieldInvalid
}

// describeSchema says, in a sentence of ours, what s asks for by the
// keyword field the value failed.
func describeSchema(s *openapi3.Schema, field string) string {
	if s == nil {
		return "The value is not valid."
	}
	switch field {
	case "enum":
		return describeEnum(s.Enum)
	case "type", "nullable":
		return describeType(s)
	case "minLength":
		if s.MinLength == 1 {
			return "Must not be empty."
		}
		return fmt.Sprintf("Must be at least %d characters.", s.MinLength)
	case "maxLength":
		if s.MaxLength != nil {
			return fmt.Sprintf("Must be at most %d characters.", *s.MaxLength)
		}
	case "minItems":
		if s.MinItems == 1 {
			return "Must not be empty."
		}
		return fmt.Sprintf("Must have at least %d items.", s.MinItems)
	case "maxItems":
		if s.MaxItems != nil {
			return fmt.Sprintf("Must have at most %d items.", *s.MaxItems)
		}
	case "uniqueItems":
		return "Must not contain the same item twice."
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return describeNumber(s)
	case "pattern":
		return "Must match the pattern " + s.Pattern + "."
	case "format":
		switch s.Format {
		case "uri":
			return "Must be an absolute URI."
		case "date-time":
			return "Must be an RFC 3339 date-time."
		}
		return "Must be in the " + s.Format + " format."
	case "oneOf", "anyOf":
		return "Must match one of the forms this member accepts."
	}
	return "The value is not valid."
}

func describeEnum(enum []any) string {
	vals := make([]string, 0, len(enum))
	for _, v := range enum {
		vals = append(vals, fmt.Sprint(v))
	}
	return "Must be one of: " + strings.Join(vals, ", ") + "."
}

func describeType(s *openapi3.Schema) string {
	switch {
	case len(s.Enum) > 0:
		return describeEnum(s.Enum)
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		return describeNumber(s)
	case s.Type.Is(openapi3.TypeString):
		return "Must be a string."
	case s.Type.Is(openapi3.TypeBoolean):
		return "Must be true or false."
	case s.Type.Is(openapi3.TypeArray):
		return "Must be an array."
	case s.Type.Is(openapi3.TypeObject):
		return "Must be an object."
	}
	return "The value is not valid."
}

// describeNumber states a numeric schema's type and range.
func describeNumber(s *openapi3.Schema) string {
	kind := "a number"
	if s.Type.Is(openapi3.TypeInteger) {
		kind = "an integer"
	}
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf("Must be %s from %s to %s.", kind, num(*s.Min), num(*s.Max))
	case s.Min != nil:
		return fmt.Sprintf("Must be %s of at least %s.", kind, num(*s.Min))
	case s.Max != nil:
		return fmt.Sprintf("Must be %s of at most %s.", kind, num(*s.Max))
	}
	return "Must be " + kind + "."
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

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
		return describeEnum(s.Enum)
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		return describeNumber(s)
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
