package httpapi

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/socialnet/socialapi/internal/apperr"
)

// TestHygieneHeaderLimit holds the server to openapi.yaml's header limit:
// headers within 32 KiB reach the handler; beyond it (and the 8 KiB
// of read buffers net/http allows on top) net/http answers 431 itself, as
// plain text. The requests share a connection, as clients' do.
func TestHygieneHeaderLimit(t *testing.T) {
	srv := newServer(slog.New(slog.DiscardHandler), "", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	ts := httptest.NewUnstartedServer(srv.Handler)
	ts.Config = srv
	ts.Start()
	defer ts.Close()
	const documented = 32 << 10 // openapi.yaml, Conventions
	for _, tc := range []struct {
		size, status int
	}{
		{documented - 1024, http.StatusNoContent},
		{documented + 9<<10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(strconv.Itoa(tc.size)+" bytes", func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.URL+"/api/v1/me", nil)
			req.Header.Set("X-Big", strings.Repeat("a", tc.size))
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatalf("%d bytes of header: %v", tc.size, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("%d bytes of header: status %d, want %d", tc.size, resp.StatusCode, tc.status)
			}
			if tc.status == http.StatusRequestHeaderFieldsTooLarge && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
				t.Errorf("431 as %q (%s): the contract documents text/plain", resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// TestHygienePathText: a path parameter that is not text is a 400 naming
// it, whatever its schema would say, so no NUL reaches PostgreSQL.
func TestHygienePathText(t *testing.T) {
	for _, v := range []string{"a\x00", "\xff", "\x00"} {
		t.Run(strconv.Quote(v), func(t *testing.T) {
			err := checkPathText(map[string]string{"name": v})
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.InvalidParameter || len(ae.Fields) != 1 || ae.Fields[0].Parameter != "name" {
				t.Errorf("%q: %v, want invalid_parameter naming name", v, err)
			}
		})
	}
	if err := checkPathText(map[string]string{"name": "alice", "id": "42"}); err != nil {
		t.Errorf("text: %v", err)
	}
}

// TestHygieneContentTypeNormalised: a JSON media type in any spelling
// reaches the validator and the generated decoder as `application/json`
// (Echo's binder, which the decoder falls back to, compares it
// case-sensitively and would answer 415).
func TestHygieneContentTypeNormalised(t *testing.T) {
	o := &operation{hasBody: true}
	for _, ct := range []string{"Application/JSON; Charset=UTF-8", "APPLICATION/JSON", "application/json; charset=\"utf-8\""} {
		t.Run(ct, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
			r.Header.Set("Content-Type", ct)
			if err := o.checkContentType(r); err != nil || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%q: %v, Content-Type now %q, want application/json", ct, err, r.Header.Get("Content-Type"))
			}
		})
	}
}
