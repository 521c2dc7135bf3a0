package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestPanicBecomesProblem(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(log, "https://social.example", newOutageLog(nil))
	e.Use(requestID, recoverPanics(log))
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
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Request-Id", in)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		got := rec.Header().Get("X-Request-Id")
		if (got == in) != keep || got == "" {
			t.Errorf("X-Request-Id %q -> %q, keep = %v", in, got, keep)
		}
	}
}
