package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
	"github.com/socialnet/socialapi/internal/auth"
	"github.com/socialnet/socialapi/internal/idempotency"
)

const headerIdempotencyKey = "Idempotency-Key"

// idempotencyKeyPattern is what the spec accepts as an Idempotency-Key.
var idempotencyKeyPattern = regexp.MustCompile(`^[!-~]{1,255}$`)

// replayedHeaders are the response headers a replay repeats.
var replayedHeaders = []string{"Location", "Content-Type"}

// idempotent runs a POST that carries an Idempotency-Key at most once per
// member and key: a retry with the same request replays the first response
// (Idempotent-Replayed: true), a different request with the same key is 422
// idempotency_key_reused, and a retry while the first still runs is 409
// idempotency_key_in_use. 5xx outcomes are not stored, so they can be retried.
type idempotent struct {
	store *idempotency.Store
	log   *slog.Logger
}

// readKey returns the request's key, or "" when it has none; a malformed key
// is a 400.
func readKey(r *http.Request) (string, error) {
	vals := r.Header.Values(headerIdempotencyKey)
	switch {
	case len(vals) == 0:
		return "", nil
	case len(vals) > 1 || !idempotencyKeyPattern.MatchString(vals[0]):
		return "", &apperr.Error{Code: apperr.InvalidParameter, Detail: "Idempotency-Key must be one value of 1 to 255 visible ASCII characters.",
			Fields: []apperr.FieldError{{Parameter: headerIdempotencyKey, Code: apperr.FieldInvalid, Detail: "1 to 255 visible ASCII characters"}}}
	}
	return vals[0], nil
}

// fingerprint reads the body (restoring it for the next reader) and returns
// the request's hash; JSON bodies are canonicalised so that formatting does
// not matter.
func fingerprint(r *http.Request) ([]byte, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(b))
		body = b
	}
	var v any
	if json.Unmarshal(body, &v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			body = canon
		}
	}
	return idempotency.Hash(r.Method, r.URL.Path, body), nil
}

func (id *idempotent) serve(c echo.Context, next echo.HandlerFunc, p auth.Principal, op, key string, hash []byte) error {
	ctx := c.Request().Context()
	outcome, stored, err := id.store.Begin(ctx, p.MemberID, key, op, hash)
	if err != nil {
		return err
	}
	switch outcome {
	case idempotency.Reused:
		return apperr.New(apperr.IdempotencyKeyReused, "This Idempotency-Key was already used for a different request.")
	case idempotency.InUse:
		return apperr.New(apperr.IdempotencyKeyInUse, "A request with this Idempotency-Key is still being processed. Retry later.")
	case idempotency.Replay:
		h := c.Response().Header()
		for k, v := range stored.Headers {
			h.Set(k, v)
		}
		h.Set("Idempotent-Replayed", "true")
		c.Response().WriteHeader(stored.Status)
		_, err := c.Response().Write(stored.Body)
		return err
	}

	rec := &recorder{ResponseWriter: c.Response().Writer}
	c.Response().Writer = rec
	if err := next(c); err != nil {
		c.Error(err) // render now, so the problem body is recorded too
	}
	// The client may be gone; record with a context of our own.
	bg := context.WithoutCancel(ctx)
	status := c.Response().Status
	if status >= 500 || status == http.StatusTooManyRequests {
		if err := id.store.Abandon(bg, p.MemberID, key); err != nil {
			id.log.Warn("abandon idempotency key", slog.String("error", err.Error()))
		}
		return nil
	}
	r := idempotency.Response{Status: status, Body: rec.body.Bytes(), Headers: map[string]string{}}
	for _, k := range replayedHeaders {
		if v := c.Response().Header().Get(k); v != "" {
			r.Headers[k] = v
		}
	}
	if err := id.store.Finish(bg, p.MemberID, key, r); err != nil {
		id.log.Warn("record idempotent response", slog.String("error", err.Error()))
	}
	return nil
}

// recorder tees a response body.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
