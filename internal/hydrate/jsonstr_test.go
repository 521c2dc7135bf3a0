package hydrate

import (
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString: every string is escaped byte for byte as
// encoding/json escapes it, whole or given in parts.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\ <b>&amp;</b>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"émoji 🎉 \u2028\u2029 \ufffd", "\xff\xfe bad \xe2\x80 utf-8 \xed\xa0\x80", "日本語", "a\u00a0b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got[1:]) != string(want) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got[1:], want)
		}
		// Split anywhere, even inside a UTF-8 sequence, in two and three.
		for i := 0; i <= len(s); i++ {
			if got := appendJSONParts(nil, s[:i], s[i:]); string(got) != string(want) {
				t.Fatalf("appendJSONParts(%q, %q) = %s, want %s", s[:i], s[i:], got, want)
			}
			for j := i; j <= len(s) && j < i+5; j++ {
				if got := appendJSONParts(nil, s[:i], s[i:j], s[j:]); string(got) != string(want) {
					t.Fatalf("appendJSONParts(%q, %q, %q) = %s, want %s", s[:i], s[i:j], s[j:], got, want)
				}
			}
		}
	})
}
