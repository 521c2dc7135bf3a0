package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/internal/apperr"
)

// TestOutageLogsOncePerRun: during an outage every request still answers
// 503 with Retry-After, but the log gets one ERROR line when the run starts
// and then one WARN line per 10 s counting the 503s it left out, instead of
// an ERROR line per request; a quiet period ends the run. Other 5xx are
// logged one by one.
func TestOutageLogsOncePerRun(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	clock := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(log, "https://social.example", newOutageLog(func() time.Time { return clock }))
	e.Use(requestID)
	e.GET("/down", func(echo.Context) error {
		return apperr.Wrap(apperr.Unavailable, "The service is temporarily unavailable. Retry later.", errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"))
	})
	e.GET("/bug", func(echo.Context) error { return errors.New("boom") })
	get := func(path string, want int) {
		t.Helper()
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want || (want == 503 && rec.Header().Get("Retry-After") == "") {
			t.Fatalf("GET %s: %d Retry-After %q, want %d", path, rec.Code, rec.Header().Get("Retry-After"), want)
		}
	}
	type line struct {
		Level    string `json:"level"`
		Msg      string `json:"msg"`
		Code     string `json:"code"`
		Error    string `json:"error"`
		Unlogged int    `json:"unlogged_503s"`
	}
	lines := func() []line {
		t.Helper()
		var out []line
		dec := json.NewDecoder(bytes.NewReader(logs.Bytes()))
		for dec.More() {
			var l line
			if err := dec.Decode(&l); err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
		logs.Reset()
		return out
	}

	// 25 s of an outage, 20 requests per second: 500 × 503.
	for range 500 {
		get("/down", 503)
		clock = clock.Add(50 * time.Millisecond)
	}
	got := lines()
	if len(got) != 3 {
		t.Fatalf("a 25 s outage of 500 × 503 logged %d lines, want 3 (ERROR, WARN at 10 s, WARN at 20 s); the first: %+v", len(got), got[:min(len(got), 3)])
	}
	if l := got[0]; l.Level != "ERROR" || l.Code != "unavailable" || l.Error == "" || l.Unlogged != 0 {
		t.Errorf("first line = %+v, want the ERROR with its cause", l)
	}
	for i, l := range got[1:] {
		if l.Level != "WARN" || l.Unlogged != 199 || l.Error == "" {
			t.Errorf("line %d = %+v, want a WARN counting 199 unlogged 503s", i+2, l)
		}
	}
	// Other 5xx are bugs: each is logged, in the middle of an outage too.
	get("/bug", 500)
	get("/bug", 500)
	if got := lines(); len(got) != 2 || got[0].Level != "ERROR" || got[1].Level != "ERROR" {
		t.Errorf("two 500s logged %+v, want two ERROR lines", got)
	}
	// Quiet for 10 s: the next 503 starts a new run, at ERROR, and reports
	// what the last run left unlogged (99: t = 20.05 s … 24.95 s).
	clock = clock.Add(outageEvery)
	get("/down", 503)
	get("/down", 503)
	got = lines()
	if len(got) != 1 || got[0].Level != "ERROR" || got[0].Unlogged != 99 {
		t.Errorf("after a quiet period: %+v, want one ERROR line reporting 99 unlogged", got)
	}
}
