package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

const (
	headerRequestID = "X-Request-Id"
	ctxRequestID    = "request_id"
	ctxMemberID     = "member_id"
)

// clientRequestID is what we accept from a client's X-Request-Id; anything
// else is replaced, so logs cannot be forged through it.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

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
// or query strings (tokens must not reach logs).
func accessLog(log *slog.Logger) echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogMethod: true, LogRoutePath: true, LogStatus: true, LogLatency: true, LogURIPath: true,
		LogResponseSize: true, HandleError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			attrs := []slog.Attr{
				slog.String("method", v.Method),
				slog.String("path", v.URIPath),
				slog.String("route", v.RoutePath),
				slog.Int("status", v.Status),
				slog.Float64("duration_ms", float64(v.Latency.Microseconds())/1000),
				slog.Int64("bytes", v.ResponseSize),
				slog.String("request_id", requestIDOf(c)),
			}
			if id, ok := c.Get(ctxMemberID).(int64); ok {
				attrs = append(attrs, slog.Int64("member_id", id))
			}
			log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request", attrs...)
			return nil
		},
	})
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
						slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(buf)))
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
		AllowMethods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		AllowHeaders: []string{echo.HeaderAuthorization, echo.HeaderContentType, "Idempotency-Key", "If-None-Match", headerRequestID},
		ExposeHeaders: []string{"Link", echo.HeaderLocation, "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit",
			"X-RateLimit-Remaining", "X-RateLimit-Reset", echo.HeaderRetryAfter, headerRequestID, "ETag",
			"Idempotent-Replayed", echo.HeaderWWWAuthenticate, echo.HeaderAllow},
		MaxAge: 600,
	})
}
