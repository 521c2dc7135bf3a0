package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"testing"
)

// TestEntityTagBlanksVolatileFields checks the scan against the rule it
// implements, a regular expression: views and /me's rate limits never
// change the tag, anything else does.
func TestEntityTagBlanksVolatileFields(t *testing.T) {
	views := regexp.MustCompile(`"views":[0-9]+`)
	reference := func(body string) string {
		b := views.ReplaceAll(rateLimits.ReplaceAll([]byte(body), []byte(`"rate_limits":null`)), []byte(`"views":0`))
		sum := sha256.Sum256(b)
		return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	}
	bodies := []string{
		``, `{}`, `{"views":}`, `{"views":7}`, `{"views":123,"x":"\"views\":9"}`,
		`{"data":[{"counts":{"views":1}},{"counts":{"views":22}}],"views":"text"}`,
		`{"rate_limits":{"read":{"limit":1,"remaining":0},"write":{"limit":2,"remaining":1}},"views":3}`,
		`"views":`, `"views":5`,
	}
	for _, b := range bodies {
		if got, want := entityTag([]byte(b), false), reference(b); got != want {
			t.Errorf("entityTag(%s) = %s, want %s", b, got, want)
		}
	}
	if entityTag([]byte(`{"views":1}`), false) != entityTag([]byte(`{"views":999}`), false) {
		t.Error("views change the tag")
	}
	if entityTag([]byte(`{"likes":1}`), false) == entityTag([]byte(`{"likes":2}`), false) {
		t.Error("other fields do not change the tag")
	}
	if w := entityTag([]byte(`{}`), true); w[:2] != "W/" {
		t.Errorf("weak tag %s", w)
	}
}
