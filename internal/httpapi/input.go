package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/socialnet/socialapi/internal/apperr"
)

// checkText rejects what PostgreSQL text cannot store and what Go's JSON
// decoder would silently rewrite: NUL characters anywhere, and bytes that
// are not UTF-8 (the decoder would turn them into U+FFFD). Without this a
// NUL reaches the database and fails there as a 500.
func checkText(r *http.Request) error {
	for name, vals := range r.URL.Query() {
		for _, v := range vals {
			if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
				return &apperr.Error{Code: apperr.InvalidParameter, Detail: "Parameters must be UTF-8 text without NUL characters.",
					Fields: []apperr.FieldError{{Parameter: name, Code: "invalid_text", Detail: "must be UTF-8 text without NUL characters"}}}
			}
		}
	}
	if p, err := url.PathUnescape(r.URL.EscapedPath()); err != nil || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return apperr.New(apperr.NotFound, "No such path.")
	}
	body, err := readBody(r)
	if err != nil || body == nil {
		return err
	}
	if !utf8.Valid(body) {
		return apperr.New(apperr.InvalidJSON, "The request body is not valid UTF-8.")
	}
	if !bytes.Contains(body, []byte(`\u0000`)) && bytes.IndexByte(body, 0) < 0 {
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil // the validator reports malformed JSON
	}
	if ptr, ok := findNUL(v, ""); ok {
		return apperr.Field(ptr, "invalid_text", "Text must not contain NUL characters.")
	}
	return nil
}

// checkOneValue rejects a body with anything but white space after its JSON
// value: the validator and the handlers decode the first value and would
// ignore the rest (`{"body":"x"}0` published a post).
func checkOneValue(r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
		return apperr.New(apperr.InvalidJSON, "The request body is not valid JSON: it must be one JSON value.")
	}
	return nil
}

// readBody reads r's body and puts it back for the next reader; nil when
// there is none.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil, classify(err)
	}
	return body, nil
}

// findNUL returns the JSON pointer of the first string (or key) holding a NUL.
func findNUL(v any, at string) (string, bool) {
	switch x := v.(type) {
	case string:
		return at, strings.ContainsRune(x, 0)
	case map[string]any:
		for k, c := range x {
			p := at + "/" + escapePointer(k)
			if strings.ContainsRune(k, 0) {
				return p, true
			}
			if ptr, ok := findNUL(c, p); ok {
				return ptr, true
			}
		}
	case []any:
		for i, c := range x {
			if ptr, ok := findNUL(c, at+"/"+itoa(i)); ok {
				return ptr, true
			}
		}
	}
	return "", false
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
