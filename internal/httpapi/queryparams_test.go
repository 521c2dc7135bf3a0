package httpapi_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/socialnet/socialapi/internal/apitest"
)

// TestHygieneMalformedCursor holds the Cursor parameter's promise on every
// list: a malformed cursor answers 400 invalid_cursor naming `cursor`,
// whether the spec's schema (length, alphabet), the text check or the
// decoder refuses it. An empty `cursor=` is an empty parameter (400
// invalid_parameter), and a malformed cursor next to another malformed
// parameter is one invalid_parameter naming both.
func TestHygieneMalformedCursor(t *testing.T) {
	h := newHygieneWith(t, apitest.Options{RateWindow: time.Millisecond})
	b64 := base64.RawURLEncoding.EncodeToString
	bad := map[string]string{
		"outside the alphabet":  "abc!",
		"base64 padding":        "e30=",
		"standard base64":       "a%2Bb%2F",
		"white space":           "%20abcd",
		"too long":              strings.Repeat("a", 513),
		"NUL":                   "ab%00",
		"not UTF-8":             "ab%FF",
		"not base64":            "a",
		"not JSON":              b64([]byte("null null")),
		"no position":           b64([]byte(`{}`)),
		"unknown member":        b64([]byte(`{"i":1,"q":"x","z":1}`)),
		"of another query":      b64([]byte(`{"i":1,"q":"AAAAAAAA"}`)),
		"alphabet, but garbage": "garbage",
	}
	lists := 0
	for _, o := range specOps(t, http.MethodGet) {
		if !o.declares("cursor", openapi3.ParameterInQuery) {
			continue
		}
		lists++
		extra := ""
		if o.path == "/search" {
			extra = "type=posts&" // a search cursor pages through one kind
		}
		for name, v := range bad {
			path := h.url(t, o, extra+"cursor="+v)
			t.Run(o.path+"/"+name, func(t *testing.T) {
				resp := h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice})
				if resp.Status != http.StatusBadRequest {
					t.Fatalf("%s: status %d, want 400: %s", path, resp.Status, resp.Body)
				}
				p := resp.Problem(t)
				if p.Code != "invalid_cursor" || len(p.Errors) != 1 || p.Errors[0].Parameter == nil ||
					*p.Errors[0].Parameter != "cursor" || p.Errors[0].Code != "invalid_cursor" {
					t.Errorf("%s: %s, want invalid_cursor with one invalid_cursor error naming cursor", path, resp.Body)
				}
			})
		}
		path := h.url(t, o, extra+"cursor=")
		wantParam(t, path, h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice}), "cursor")
		if o.declares("per_page", openapi3.ParameterInQuery) {
			path := h.url(t, o, extra+"per_page=0&cursor="+url.QueryEscape("abc!"))
			resp := h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice})
			wantParam(t, path, resp, "per_page")
			wantParam(t, path, resp, "cursor")
		}
	}
	if lists < 8 {
		t.Fatalf("only %d operations declare cursor", lists)
	}
}

// TestHygieneBlankSearchText holds one rule for the search text `q` of
// every operation that takes one: only white space (Unicode's) is 400
// invalid_parameter naming q, like an empty value; text around white space
// is searched.
func TestHygieneBlankSearchText(t *testing.T) {
	h := newHygieneWith(t, apitest.Options{RateWindow: time.Millisecond})
	var paths []string
	for _, o := range specOps(t, http.MethodGet) {
		if !o.declares("q", openapi3.ParameterInQuery) {
			continue
		}
		paths = append(paths, o.path)
		for _, v := range []string{"%20", "+", "%20%09%0A", "%E3%80%80", "%C2%A0", "%E2%80%A8"} {
			path := "/api/v1" + o.path + "?q=" + v
			wantParam(t, path, h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice}), "q")
		}
		path := "/api/v1" + o.path + "?q=%20hello%20"
		if resp := h.env.Do(t, apitest.Request{Method: "GET", Path: path, Token: h.alice}); resp.Status != http.StatusOK {
			t.Errorf("%s: status %d, want 200: %s", path, resp.Status, resp.Body)
		}
	}
	if want := []string{"/jobs", "/market", "/search"}; !slices.Equal(paths, want) {
		t.Errorf("operations taking q: %v, want %v", paths, want)
	}
}
