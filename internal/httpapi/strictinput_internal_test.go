package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDuplicateMember(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ body, want string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":1}`, "/a"},
		{`{"a":{"b":1},"a":2}`, "/a"},
		{`{"a":{"b":1,"c":{"d":[1,{"e":1,"e":2}]}}}`, "/a/c/d/1/e"},
		{`[{"a":1},{"a":1},{"b":1,"b":1}]`, "/2/b"},
		{`{"a":[{"x":1}],"b":{"x":1},"x":1}`, ""}, // the same name in different objects
		{`{"a":{"a":{"a":1}}}`, ""},
		{`{"":1,"":2}`, "/"},
		{`{"a/b":1,"a~b":2,"a/b":3}`, "/a~1b"},
		{`{"~0":1,"~0":2}`, "/~00"},
		{`{"\u00e9":1,"é":2}`, "/é"}, // equal once unescaped
		{`{"a":[[],[[]],{}],"b":[],"b":{}}`, "/b"},
		{`{"a":1,"a":2`, "/a"}, // reported before the end is read
		{`{"a":1,`, ""},        // not JSON: the validator's to report
		{``, ""},
		{`"a"`, ""},
		{`{"a":1}{"a":2}`, ""}, // one value: trailing data is checkOneValue's
	} {
		t.Run(tt.body, func(t *testing.T) {
			if got := duplicateMember([]byte(tt.body)); got != tt.want {
				t.Errorf("duplicateMember(%s) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// The body put back after validation keeps the value the validator decoded,
// so the handler binds what was validated, not a second decode of the bytes.
func TestValidatedValueKept(t *testing.T) {
	t.Parallel()
	_, ct := specContract(t)
	r := httptest.NewRequest("POST", BasePath+"/posts", strings.NewReader(`{"body":"x","visibility":"private"}`))
	r.Header.Set("Content-Type", "application/json")
	m := ct.matchSpec(r)
	if err := ct.validate(t.Context(), r, m); err != nil {
		t.Fatal(err)
	}
	if err := checkOneValue(r); err != nil {
		t.Fatal(err)
	}
	vb, ok := r.Body.(validated)
	if !ok {
		t.Fatalf("the body lost its validated value: %T", r.Body)
	}
	if v, _ := vb.ValidatedValue().(map[string]any); v["visibility"] != "private" || v["body"] != "x" {
		t.Errorf("validated value = %v", vb.ValidatedValue())
	}
}
