package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
)

// loggingEcho is an Echo with the server's error renderer, logging as JSON
// to the buffer returned, with the middleware that mw makes of the logger.
func loggingEcho(mw func(*slog.Logger) echo.MiddlewareFunc) (*echo.Echo, *bytes.Buffer) {
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(log, "https://social.example", newOutageLog(nil))
	e.Use(requestID, mw(log))
	return e, logs
}

func TestPanicBecomesProblem(t *testing.T) {
	t.Parallel()
	e, logs := loggingEcho(recoverPanics)
	e.GET("/boom", func(echo.Context) error { panic("secret internal state") })

	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/boom", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	var p problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code != "internal_error" || p.RequestID == "" {
		t.Errorf("body = %s (%v)", rec.Body, err)
	}
	if strings.Contains(rec.Body.String(), "secret") {
		t.Errorf("panic value leaked into the response: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "secret internal state") || !strings.Contains(logs.String(), p.RequestID) {
		t.Errorf("panic not logged with its request id: %s", logs.String())
	}
}

func TestRequestIDKeepsOnlySafeClientValues(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.Use(requestID)
	e.GET("/", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	for in, keep := range map[string]bool{"abc-123": true, "": false, "bad id\nInjected: x": false, strings.Repeat("a", 129): false} {
		t.Run(fmt.Sprintf("%.16q (%d bytes)", in, len(in)), func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("X-Request-Id", in)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			got := rec.Header().Get("X-Request-Id")
			if (got == in) != keep || got == "" {
				t.Errorf("X-Request-Id %q -> %q, keep = %v", in, got, keep)
			}
		})
	}
}

// TestAccessLogLine checks the one line logged per request: its fields, the
// status the error renderer sent for an error, and nothing from the query
// string; below info level nothing is logged.
func TestAccessLogLine(t *testing.T) {
	t.Parallel()
	e, logs := loggingEcho(accessLog)
	e.GET("/things/:id", func(c echo.Context) error {
		c.Set(ctxMemberID, int64(42))
		if c.Param("id") == "missing" {
			return apperr.New(apperr.NotFound, "No such thing.")
		}
		return c.JSON(http.StatusOK, map[string]string{"ok": "yes"})
	})
	lines := func(t *testing.T) []map[string]any {
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			if m["msg"] == "request" {
				out = append(out, m)
			}
		}
		return out
	}
	for _, tc := range []struct {
		path   string
		status float64
	}{{"/things/7?access_token=secret-token", 200}, {"/things/missing", 404}} {
		t.Run(tc.path, func(t *testing.T) {
			logs.Reset()
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("X-Request-Id", "req-1")
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != int(tc.status) {
				t.Fatalf("%s: status %d, want %v", tc.path, rec.Code, tc.status)
			}
			got := lines(t)
			if len(got) != 1 {
				t.Fatalf("%s: %d request lines, want 1: %s", tc.path, len(got), logs.String())
			}
			l := got[0]
			path, _, _ := strings.Cut(tc.path, "?")
			if l["level"] != "INFO" || l["method"] != "GET" || l["path"] != path || l["route"] != "/things/:id" ||
				l["status"] != tc.status || l["request_id"] != "req-1" || l["member_id"] != float64(42) ||
				l["bytes"] != float64(rec.Body.Len()) {
				t.Errorf("%s: line %v", tc.path, l)
			}
			if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
				t.Errorf("%s: duration_ms %v", tc.path, l["duration_ms"])
			}
			if strings.Contains(logs.String(), "secret-token") {
				t.Errorf("%s: the query string reached the log: %s", tc.path, logs.String())
			}
		})
	}

	logs.Reset()
	quiet := echo.New()
	quiet.Use(accessLog(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	quiet.GET("/", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	quiet.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if logs.Len() != 0 {
		t.Errorf("logged below its level: %s", logs.String())
	}
}
