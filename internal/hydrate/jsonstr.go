package hydrate

import (
	"strings"
	"unicode/utf8"
)

// appendJSONString appends s as a JSON string, escaped exactly as
// encoding/json escapes it by default (HTML-safe: <, > and & as \u003c,
// \u003e and \u0026; U+2028 and U+2029 escaped; invalid UTF-8 as \ufffd),
// so a hand-rendered body is byte for byte what json.Marshal writes
// (FuzzAppendJSONString holds it to that).
func appendJSONString(b []byte, s string) []byte {
	return append(appendJSONChars(append(b, '"'), s), '"')
}

// appendJSONParts appends the concatenation of parts as appendJSONString
// does, without building it.
func appendJSONParts(b []byte, parts ...string) []byte {
	// Escaping the parts one after the other gives the concatenation's
	// bytes unless a part ends inside a UTF-8 sequence that the next one
	// completes, which no valid part does.
	for _, p := range parts[:len(parts)-1] {
		if !utf8.ValidString(p) {
			return appendJSONString(b, strings.Join(parts, ""))
		}
	}
	b = append(b, '"')
	for _, p := range parts {
		b = appendJSONChars(b, p)
	}
	return append(b, '"')
}

// jsonSafe holds whether an ASCII byte stands for itself in a JSON string
// as encoding/json writes it: not a control character, quote, backslash,
// <, > or &.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONChars appends s escaped as appendJSONString does, without the
// quotes.
func appendJSONChars(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// appendJSONStringPtr appends s as appendJSONString does, or null.
func appendJSONStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, *s)
}
