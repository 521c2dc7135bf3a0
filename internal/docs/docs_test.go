package docs_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/docs"
)

func TestPageIsSelfContained(t *testing.T) {
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	h, err := docs.New(spec, "https://social.example/api/v1", "https://social.example/api/v1/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	h.Register(e)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	page := get(docs.Path)
	if page.Code != 200 || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs = %d %s", page.Code, page.Header().Get("Content-Type"))
	}
	if csp := page.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy = %q, want scripts from this origin only", csp)
	}
	body := page.Body.String()
	if !strings.Contains(body, `"operationId":"getIndex"`) || !strings.Contains(body, `"url":"https://social.example/api/v1"`) {
		t.Errorf("the page does not embed the contract with this deployment's server URL")
	}
	srcs := regexp.MustCompile(`<script src="([^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(srcs) != 2 {
		t.Fatalf("script tags = %v, want the bundle and init.js", srcs)
	}
	for _, m := range srcs {
		if !strings.HasPrefix(m[1], docs.Path+"/") {
			t.Errorf("script %q is not served by this binary", m[1])
		}
		if rec := get(m[1]); rec.Code != 200 || !strings.Contains(rec.Header().Get("Content-Type"), "javascript") || rec.Body.Len() == 0 {
			t.Errorf("GET %s = %d %s (%d bytes)", m[1], rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
	}
}
