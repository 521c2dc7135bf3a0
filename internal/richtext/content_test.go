package richtext

import (
	"strconv"
	"testing"
)

func TestHasContent(t *testing.T) {
	t.Parallel()
	blank := []string{
		"",
		" ",
		"\t\n\r\v\f",
		"\u0085",                   // next line
		"\u00a0",                   // no-break space
		"\u1680",                   // ogham space mark
		"\u2000\u2001\u2002\u2003", // en quad … em space
		"\u2004\u2005\u2006\u2007\u2008\u2009\u200a",
		"\u2028\u2029",             // line and paragraph separators
		"\u202f",                   // narrow no-break space
		"\u205f",                   // medium mathematical space
		"\u3000",                   // ideographic space
		"\u200b",                   // zero width space
		"\u200c\u200d",             // zero width non-joiner, joiner
		"\u2060",                   // word joiner
		"\ufeff",                   // byte order mark
		"\u180e",                   // Mongolian vowel separator
		"\u00ad",                   // soft hyphen
		"\u034f",                   // combining grapheme joiner
		"\u115f\u1160",             // Hangul choseong and jungseong fillers
		"\u3164",                   // Hangul filler
		"\uffa0",                   // halfwidth Hangul filler
		"\u2800",                   // braille pattern blank
		"\ufe0f",                   // variation selector 16
		"\U000e0020",               // tag space
		"\u202e\u2066\u200e\u061c", // bidi controls
		"\x00\x1b\x7f",
		" \u00a0\u200b\u3164\t",
	}
	for _, s := range blank {
		t.Run(strconv.Quote(s), func(t *testing.T) {
			if HasContent(s) {
				t.Errorf("HasContent(%q) = true, want false", s)
			}
		})
	}
	visible := []string{"a", " a ", ".", "\u00a0é\u00a0", "東", "🎉", "\u200b#go", "\u0600", "\u2801"}
	for _, s := range visible {
		t.Run(strconv.Quote(s), func(t *testing.T) {
			if !HasContent(s) {
				t.Errorf("HasContent(%q) = false, want true", s)
			}
		})
	}
}
