package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
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
				if name == "cursor" { // a malformed cursor (isCursor)
					return &apperr.Error{Code: apperr.InvalidCursor, Detail: "The cursor is not valid.",
						Fields: []apperr.FieldError{{Parameter: name, Code: apperr.FieldInvalidCursor, Detail: "The cursor is not valid."}}}
				}
				return &apperr.Error{Code: apperr.InvalidParameter, Detail: "Parameters must be UTF-8 text without NUL characters.",
					Fields: []apperr.FieldError{{Parameter: name, Code: apperr.FieldInvalidText, Detail: "must be UTF-8 text without NUL characters"}}}
			}
		}
	}
	// The path's parameters were checked with the route (checkPathText: 400).
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
		return apperr.Field(ptr, apperr.FieldInvalidText, "Text must not contain NUL characters.")
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
// there is none. A body the validator left its value on keeps it, so the
// handler binds exactly what was validated (gen's strict wrappers) instead
// of decoding the bytes again.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	next := io.NopCloser(bytes.NewReader(body))
	if vb, ok := r.Body.(validated); ok {
		next = keptValue{next, vb.ValidatedValue()}
	}
	r.Body = next
	if err != nil {
		return nil, classify(err)
	}
	return body, nil
}

// validated is a body that carries the value the validator decoded from it
// (openapi3filter.Options.KeepValidatedValue).
type validated interface{ ValidatedValue() any }

// keptValue is a body put back by readBody with its validated value.
type keptValue struct {
	io.ReadCloser
	value any
}

func (b keptValue) ValidatedValue() any { return b.value }

// duplicateMember returns the JSON pointer of the first member that an
// object in body names twice, at any depth; "" when there is none or body
// is not JSON (the validator reports that). Decoders keep one of the two
// values without a word, so `{"visibility":"public","visibility":"private"}`
// would be read as private by one and may be read as public by another.
// One pass over the tokens, each object's names in a set while it is open.
func duplicateMember(body []byte) string {
	type frame struct {
		names map[string]struct{} // nil: an array
		seg   string              // the current member or index, escaped
		next  int                 // an array's next index
		value bool                // an object awaits its member's value
	}
	var stack []frame
	pointer := func(last string) string {
		var b strings.Builder
		for _, f := range stack[:len(stack)-1] {
			b.WriteString("/" + f.seg)
		}
		return b.String() + "/" + last
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
				stack = stack[:n-1]
				if len(stack) == 0 {
					return ""
				}
				stack[len(stack)-1].value = false
				continue
			}
			switch {
			case top.names != nil && !top.value:
				name := tok.(string) // the decoder allows only a name here
				if _, dup := top.names[name]; dup {
					return pointer(escapePointer(name))
				}
				top.names[name] = struct{}{}
				top.seg, top.value = escapePointer(name), true
				continue
			case top.names == nil:
				top.seg = strconv.Itoa(top.next)
				top.next++
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{names: map[string]struct{}{}})
		case json.Delim('['):
			stack = append(stack, frame{})
		default: // a scalar
			if len(stack) == 0 {
				return ""
			}
			stack[len(stack)-1].value = false
		}
	}
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
