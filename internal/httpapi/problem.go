package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/socialnet/socialapi/internal/apperr"
)

// problemSpec is the fixed status and title of one error code.
type problemSpec struct {
	status int
	title  string
}

// problems is the one code → status table of the API (openapi.yaml,
// Problem.code, documents the same list).
var problems = map[apperr.Code]problemSpec{
	apperr.Unauthenticated:      {http.StatusUnauthorized, "Authentication required"},
	apperr.InvalidJSON:          {http.StatusBadRequest, "Malformed JSON body"},
	apperr.InvalidParameter:     {http.StatusBadRequest, "Invalid parameter"},
	apperr.InvalidCursor:        {http.StatusBadRequest, "Invalid cursor"},
	apperr.ValidationFailed:     {http.StatusUnprocessableEntity, "Validation failed"},
	apperr.InvalidToken:         {http.StatusUnauthorized, "Invalid access token"},
	apperr.TokenExpired:         {http.StatusUnauthorized, "Access token expired"},
	apperr.TokenRevoked:         {http.StatusUnauthorized, "Access token revoked"},
	apperr.InsufficientScope:    {http.StatusForbidden, "Insufficient scope"},
	apperr.Forbidden:            {http.StatusForbidden, "Forbidden"},
	apperr.NotFound:             {http.StatusNotFound, "Not found"},
	apperr.MethodNotAllowed:     {http.StatusMethodNotAllowed, "Method not allowed"},
	apperr.UnsupportedMedia:     {http.StatusUnsupportedMediaType, "Unsupported media type"},
	apperr.PayloadTooLarge:      {http.StatusRequestEntityTooLarge, "Payload too large"},
	apperr.CannotFollowSelf:     {http.StatusUnprocessableEntity, "Cannot follow yourself"},
	apperr.AccountSuspended:     {http.StatusUnauthorized, "Account suspended"},
	apperr.CannotBlockSelf:      {http.StatusUnprocessableEntity, "Cannot block yourself"},
	apperr.CannotMuteSelf:       {http.StatusUnprocessableEntity, "Cannot mute yourself"},
	apperr.MemberBlocked:        {http.StatusUnprocessableEntity, "Member blocked"},
	apperr.CannotMessage:        {http.StatusForbidden, "Cannot message"},
	apperr.RateLimited:          {http.StatusTooManyRequests, "Rate limit exceeded"},
	apperr.IdempotencyKeyInUse:  {http.StatusConflict, "Idempotency key in use"},
	apperr.IdempotencyKeyReused: {http.StatusUnprocessableEntity, "Idempotency key reused"},
	apperr.Unavailable:          {http.StatusServiceUnavailable, "Service unavailable"},
	apperr.Internal:             {http.StatusInternalServerError, "Internal server error"},
	apperr.NotImplemented:       {http.StatusNotImplemented, "Not implemented"},
}

// StatusOf returns the HTTP status of an error code.
func StatusOf(c apperr.Code) int {
	if p, ok := problems[c]; ok {
		return p.status
	}
	return http.StatusInternalServerError
}

// problemField is one entry of Problem.errors.
type problemField struct {
	Pointer   *string `json:"pointer"`
	Parameter *string `json:"parameter"`
	Code      string  `json:"code"`
	Detail    string  `json:"detail"`
}

// problem is the RFC 9457 body of every error response.
type problem struct {
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Status    int            `json:"status"`
	Detail    string         `json:"detail"`
	Instance  string         `json:"instance"`
	Code      apperr.Code    `json:"code"`
	RequestID string         `json:"request_id"`
	Errors    []problemField `json:"errors"`
}

// Bounds of a problem body, the maxLength and maxItems openapi.yaml gives
// Problem: a request's path, or a field or parameter name a client made up,
// may be longer, and is cut rather than echoed whole.
const (
	maxProblemInstance = 2048 // characters of instance
	maxProblemText     = 1000 // characters of detail, pointer, parameter
	maxProblemFields   = 100  // entries of errors
)

// clipChars cuts s to at most n characters (JSON Schema's maxLength counts
// code points): a longer s keeps at most n-1 bytes, so fewer characters, and
// clip adds "…".
func clipChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return clip(s, n-1)
}

// writeProblem renders e as application/problem+json, with the headers its
// code calls for.
func writeProblem(w http.ResponseWriter, publicURL, instance, requestID string, e *apperr.Error) error {
	spec, ok := problems[e.Code]
	if !ok {
		spec = problems[apperr.Internal]
	}
	p := problem{
		Type:      publicURL + "/problems/" + string(e.Code),
		Title:     spec.title,
		Status:    spec.status,
		Detail:    clipChars(e.Detail, maxProblemText),
		Instance:  clipChars(instance, maxProblemInstance),
		Code:      e.Code,
		RequestID: requestID,
		Errors:    make([]problemField, 0, len(e.Fields)),
	}
	for _, f := range e.Fields[:min(len(e.Fields), maxProblemFields)] {
		code := f.Code
		if code == (apperr.FieldCode{}) {
			code = apperr.FieldInvalid
		}
		pf := problemField{Code: code.String(), Detail: clipChars(f.Detail, maxProblemText)}
		if f.Parameter != "" {
			param := clipChars(f.Parameter, maxProblemText)
			pf.Parameter = &param
		} else {
			ptr := clipChars(f.Pointer, maxProblemText)
			pf.Pointer = &ptr
		}
		p.Errors = append(p.Errors, pf)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if len(e.Meta) > 0 {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		for k, v := range e.Meta {
			m[k] = v
		}
		if b, err = json.Marshal(m); err != nil {
			return err
		}
	}
	h := w.Header()
	switch e.Code {
	case apperr.Unauthenticated:
		h.Set("WWW-Authenticate", `Bearer realm="api"`)
	case apperr.InvalidToken, apperr.TokenExpired, apperr.TokenRevoked, apperr.AccountSuspended:
		h.Set("WWW-Authenticate", `Bearer realm="api", error="invalid_token"`)
	case apperr.InsufficientScope:
		h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="write"`)
	case apperr.Unavailable:
		h.Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
	case apperr.RateLimited:
		if s, ok := e.Meta["retry_after"].(int); ok {
			h.Set("Retry-After", strconv.Itoa(s))
		}
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	// Known now: sent as is instead of chunked, and the same on a HEAD,
	// which sends no body (headWithoutBody).
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(spec.status)
	_, err = w.Write(b)
	return err
}

// retryAfterUnavailable is the Retry-After (seconds) of a 503.
const retryAfterUnavailable = 2
