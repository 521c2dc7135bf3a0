// Package richtext finds the #hashtags and @mentions in the text of posts and
// comments, and tells whether a text has anything to show (HasContent).
//
// A hashtag is '#' followed by 1 to 100 letters, digits or underscores
// (Unicode letters and digits: #café, #東京) and not preceded by a word
// character (so "a#b" and "C#" are not tags); a longer run is not a tag. Tags
// are returned lower-cased, without '#', once each, in order of first
// appearance.
//
// A mention is '@' followed by a handle ([A-Za-z0-9_]{1,30}), not preceded by
// a word character, '@' or '.' (so e-mail addresses are not mentions) and not
// followed by a letter, digit or '@' (so "@bobé" and "@bob@example.org" do not
// mention bob). Mentions are returned as written, once each compared
// case-insensitively, in order of first appearance. Whether a handle names a
// member is for the caller to decide.
package richtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the two token kinds.
const (
	MaxTagLen    = 100 // runes after '#'
	MaxHandleLen = 30  // bytes after '@'
)

// Parsed is what Parse found.
type Parsed struct {
	Tags     []string // lower case, without '#'
	Mentions []string // handles as first written, without '@'
}

// Parse returns the hashtags and mentions of text. Both slices are non-nil.
func Parse(text string) Parsed {
	p := Parsed{Tags: []string{}, Mentions: []string{}}
	seenTag := map[string]bool{}
	seenMention := map[string]bool{}
	prev := rune(-1) // the rune before i; -1 at the start of the text
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '#' && !isWord(prev):
			n, end := run(text, i+size, isTagRune)
			if n >= 1 && n <= MaxTagLen {
				tag := strings.ToLower(text[i+size : end])
				if !seenTag[tag] {
					seenTag[tag] = true
					p.Tags = append(p.Tags, tag)
				}
			}
		case r == '@' && !isWord(prev) && prev != '@' && prev != '.':
			n, end := run(text, i+size, isHandleRune)
			next, _ := utf8.DecodeRuneInString(text[end:])
			if n >= 1 && n <= MaxHandleLen && (end == len(text) || (!isWord(next) && next != '@')) {
				h := text[i+size : end]
				if k := strings.ToLower(h); !seenMention[k] {
					seenMention[k] = true
					p.Mentions = append(p.Mentions, h)
				}
			}
		}
		prev = r
		i += size
	}
	return p
}

// run measures the run of runes satisfying ok that starts at byte i: its
// length in runes and the byte offset just after it.
func run(text string, i int, ok func(rune) bool) (n, end int) {
	for end = i; end < len(text); {
		r, size := utf8.DecodeRuneInString(text[end:])
		if !ok(r) {
			break
		}
		n++
		end += size
	}
	return n, end
}

func isTagRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func isHandleRune(r rune) bool {
	return r == '_' || r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// isWord reports whether r continues a word: letters, digits, combining marks
// and '_'.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// HasContent reports whether text has at least one visible character: one
// that is not white space (Unicode White_Space: spaces of every width,
// no-break spaces, line and paragraph separators), a control or format
// character (zero-width spaces and joiners, word joiner, byte order mark,
// bidi controls, soft hyphen), a default-ignorable filler (the Hangul
// fillers U+115F, U+1160, U+3164, U+FFA0, the combining grapheme joiner)
// or variation selector, or U+2800 BRAILLE PATTERN BLANK. A text of only
// these shows as nothing, so it says nothing.
func HasContent(text string) bool {
	for _, r := range text {
		if !invisible(r) {
			return true
		}
	}
	return false
}

// invisible is the rune test of HasContent. Prepended concatenation marks
// (U+0600 ARABIC NUMBER SIGN) are format characters that do show.
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2800' ||
		unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}
