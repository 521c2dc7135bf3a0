package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

const (
	headerRequestID = "X-Request-Id"
	ctxRequestID    = "request_id"
	ctxMemberID     = "member_id"
)

// clientRequestID is what we accept from a client's X-Request-Id (as
// openapi.yaml states): at most 64 characters of a safe alphabet. Anything
// else is replaced by an id of our own, so logs cannot be forged or
// inflated through it.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// What a client chooses is cut to these lengths in log lines (bytes, before
// the log format escapes them; docs/operations.md), so one request cannot
// write a large line. Both log formats escape control characters, so a
// value cannot start a line of its own.
const (
	logMethodMax = 16   // a method
	logPathMax   = 256  // a path
	logTextMax   = 1024 // an error's text or a panic's value, which may quote input
)

// clip cuts s to at most n bytes, at a character boundary, and marks a cut
// with a trailing "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// requestID gives every request an id, echoed in X-Request-Id and problem
// bodies and logged with the request.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(headerRequestID)
		if !clientRequestID.MatchString(id) {
			b := make([]byte, 12)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		c.Set(ctxRequestID, id)
		c.Response().Header().Set(headerRequestID, id)
		return next(c)
	}
}

func requestIDOf(c echo.Context) string {
	id, _ := c.Get(ctxRequestID).(string)
	return id
}

// accessLog writes one structured line per request. It never logs headers
// or query strings (tokens must not reach logs). An error is handed to the
// error renderer first, so the line carries the status actually sent; the
// error is then returned, as Echo's own logger does, for the middleware
// above (the renderer ignores a response already committed).
//
// The line goes to the logger's handler directly: slog.Logger would look up
// the caller's program counter for every line, which nothing here uses.
func accessLog(log *slog.Logger) echo.MiddlewareFunc {
	h := log.Handler()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			ctx := req.Context()
			if !h.Enabled(ctx, slog.LevelInfo) {
				return err
			}
			path := req.URL.Path
			if path == "" {
				path = "/"
			}
			end := time.Now()
			r := slog.NewRecord(end, slog.LevelInfo, "request", 0)
			r.AddAttrs(
				slog.String("method", clip(req.Method, logMethodMax)),
				slog.String("path", clip(path, logPathMax)),
				slog.String("route", c.Path()),
				slog.Int("status", res.Status),
				slog.Float64("duration_ms", float64(end.Sub(start).Microseconds())/1000),
				slog.Int64("bytes", res.Size),
				slog.String("request_id", requestIDOf(c)),
			)
			if id, ok := c.Get(ctxMemberID).(int64); ok {
				r.AddAttrs(slog.Int64("member_id", id))
			}
			_ = h.Handle(ctx, r)
			return err
		}
	}
}

// recoverPanics turns a panic into a 500 problem and logs it with its stack.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					buf := make([]byte, 8<<10)
					buf = buf[:runtime.Stack(buf, false)]
					log.Error("panic", slog.String("request_id", requestIDOf(c)),
						slog.String("panic", clip(fmt.Sprint(r), logTextMax)), slog.String("stack", string(buf)))
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// cors answers preflight requests and lets scripts on origins read the
// headers clients need: pagination, rate limits, request ids, ETags,
// idempotent replays. Tokens travel in Authorization, never in cookies, so
// credentials are not allowed.
func cors(origins []string) echo.MiddlewareFunc {
	return middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins: origins,
		AllowMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete},
		AllowHeaders: []string{echo.HeaderAuthorization, echo.HeaderContentType, "Idempotency-Key", "If-None-Match", headerRequestID},
		ExposeHeaders: []string{"Link", echo.HeaderLocation, "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit",
			"X-RateLimit-Remaining", "X-RateLimit-Reset", echo.HeaderRetryAfter, headerRequestID, "ETag",
			"Idempotent-Replayed", echo.HeaderWWWAuthenticate, echo.HeaderAllow},
		MaxAge: 600,
	})
}
