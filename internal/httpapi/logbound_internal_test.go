package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// TestTextLogCannotBeForged: with LOG_FORMAT=text, a path carrying a
// newline and what looks like a second line is logged on one line, quoted.
func TestTextLogCannotBeForged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(log, "https://social.example", newOutageLog(nil))
	e.Use(requestID, accessLog(log))
	e.GET("/*", func(echo.Context) error { return errors.New("internal") }) // a 5xx: logged twice
	forged := "%0Atime=2026-01-01T00:00:00Z%20level=ERROR%20msg=forged%0D%0A"
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/a"+forged, nil))
	if n := strings.Count(logs.String(), "\n"); n != 2 {
		t.Errorf("%d lines, want 2 (the request and its error):\n%s", n, logs.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !strings.HasPrefix(l, "time=") || strings.Contains(l, "\r") {
			t.Errorf("a forged line: %q", l)
		}
	}
}

// TestErrorAndPanicLinesAreBounded: the text of a 5xx's internal cause and a
// panic's value, which may quote what a client sent, are cut in the log.
func TestErrorAndPanicLinesAreBounded(t *testing.T) {
	t.Parallel()
	e, logs := loggingEcho(recoverPanics)
	big := strings.Repeat("x", 12<<10)
	e.GET("/err", func(echo.Context) error { return errors.New("bad input " + big) })
	e.GET("/panic", func(echo.Context) error { panic("bad input " + big) })
	for _, path := range []string{"/err", "/panic"} {
		t.Run(strings.TrimPrefix(path, "/"), func(t *testing.T) {
			logs.Reset()
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != http.StatusInternalServerError {
				t.Fatalf("%s: status %d", path, rec.Code)
			}
			dec := json.NewDecoder(logs)
			for dec.More() {
				var l map[string]any
				if err := dec.Decode(&l); err != nil {
					t.Fatal(err)
				}
				for _, field := range []string{"error", "panic"} {
					if v, ok := l[field].(string); ok && (len(v) > logTextMax+len("…") || !strings.HasSuffix(v, "…")) {
						t.Errorf("%s: %s of %d bytes logged, want at most %d and marked cut", path, field, len(v), logTextMax)
					}
				}
			}
		})
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"GET", 16, "GET"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcdef…"},
		{"abcdé", 5, "abcd…"}, // é is 2 bytes: not cut in half
		{"ab\xffcd", 3, "ab\xff…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := clip(tc.in, tc.n)
			if got != tc.want {
				t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
			if utf8.ValidString(tc.in) && !utf8.ValidString(got) {
				t.Errorf("clip(%q, %d) = %q: not valid UTF-8", tc.in, tc.n, got)
			}
		})
	}
}
