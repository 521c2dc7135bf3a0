package httpapi

import (
	"encoding/base64"
	"encoding/binary"
	"regexp"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/socialnet/socialapi/gen"
)

// TestEntityTagBlanksVolatileFields checks the scan against the rule it
// implements, a regular expression: views and /me's rate limits never
// change the tag, anything else does.
func TestEntityTagBlanksVolatileFields(t *testing.T) {
	views := regexp.MustCompile(`"views":[0-9]+`)
	reference := func(body string) string {
		b := views.ReplaceAll(rateLimits.ReplaceAll([]byte(body), []byte(`"rate_limits":null`)), []byte(`"views":0`))
		sum := xxhash.Sum64(b)
		return `"` + base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint64(nil, sum)) + `"`
	}
	bodies := []string{
		``, `{}`, `{"views":}`, `{"views":7}`, `{"views":123,"x":"\"views\":9"}`,
		`{"data":[{"counts":{"views":1}},{"counts":{"views":22}}],"views":"text"}`,
		`{"rate_limits":{"read":{"limit":1,"remaining":0},"write":{"limit":2,"remaining":1}},"views":3}`,
		`"views":`, `"views":5`,
	}
	for _, b := range bodies {
		t.Run(b, func(t *testing.T) {
			if got, want := entityTag([]byte(b), false, true), reference(b); got != want {
				t.Errorf("entityTag(%s) = %s, want %s", b, got, want)
			}
		})
	}
	if entityTag([]byte(`{"views":1}`), false, false) != entityTag([]byte(`{"views":999}`), false, false) {
		t.Error("views change the tag")
	}
	if entityTag([]byte(`{"likes":1}`), false, false) == entityTag([]byte(`{"likes":2}`), false, false) {
		t.Error("other fields do not change the tag")
	}
	if w := entityTag([]byte(`{}`), true, false); w[:2] != "W/" {
		t.Errorf("weak tag %s", w)
	}
}

// TestETagBudgetOperations: the bodies searched for rate_limits are those of
// /me alone, found in the spec (its data is an allOf).
func TestETagBudgetOperations(t *testing.T) {
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	got := newETags(spec).budget
	if len(got) != 1 || !got["getMe"] {
		t.Errorf("operations whose ETag blanks rate_limits: %v, want getMe alone", got)
	}
}
