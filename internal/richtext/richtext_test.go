package richtext

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", MaxTagLen)
	tests := []struct {
		name string
		text string
		want Parsed
	}{
		{"empty", "", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"plain", "hello world", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"tags and mentions", "Trying #golang with @bob and #Go", Parsed{Tags: []string{"golang", "go"}, Mentions: []string{"bob"}}},
		{"tags lower-cased and unique in order", "#Go #go #GO #rust #Go", Parsed{Tags: []string{"go", "rust"}, Mentions: []string{}}},
		{"unicode tags", "#Café au #東京 and #naïve_2", Parsed{Tags: []string{"café", "東京", "naïve_2"}, Mentions: []string{}}},
		{"tag preceded by word char", "C#sharp a#b _#c 1#d", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"tag after punctuation", "(#one),#two.#three!", Parsed{Tags: []string{"one", "two", "three"}, Mentions: []string{}}},
		{"tag stops at punctuation", "#tag-name #x's", Parsed{Tags: []string{"tag", "x"}, Mentions: []string{}}},
		{"double hash", "##tag", Parsed{Tags: []string{"tag"}, Mentions: []string{}}},
		{"bare hash", "# #  #!", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"tag of max length", "#" + long, Parsed{Tags: []string{long}, Mentions: []string{}}},
		{"tag too long", "#" + long + "b ok #fine", Parsed{Tags: []string{"fine"}, Mentions: []string{}}},
		{"numeric tag", "#2026", Parsed{Tags: []string{"2026"}, Mentions: []string{}}},
		{"mentions unique case-insensitively", "@Alice @alice @ALICE @bob", Parsed{Tags: []string{}, Mentions: []string{"Alice", "bob"}}},
		{"email is not a mention", "mail bob@example.com or .@carol or @@dave", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"mention punctuation", "(@alice), @bob: @carol. @dave's", Parsed{Tags: []string{}, Mentions: []string{"alice", "bob", "carol", "dave"}}},
		{"mention followed by non-ASCII letter", "@bobé", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"remote address", "@bob@example.org", Parsed{Tags: []string{}, Mentions: []string{}}},
		{"handle of max length", "@" + strings.Repeat("h", MaxHandleLen), Parsed{Tags: []string{}, Mentions: []string{strings.Repeat("h", MaxHandleLen)}}},
		{"handle too long", "@" + strings.Repeat("h", MaxHandleLen+1), Parsed{Tags: []string{}, Mentions: []string{}}},
		{"mention stops at hyphen", "@bob-smith", Parsed{Tags: []string{}, Mentions: []string{"bob"}}},
		{"mention and tag adjacent", "@bob#go", Parsed{Tags: []string{}, Mentions: []string{"bob"}}},
		{"invalid utf-8", "\xff#ok \xfe@bob", Parsed{Tags: []string{"ok"}, Mentions: []string{"bob"}}},
		{"emoji before", "🎉#party 🎉@bob", Parsed{Tags: []string{"party"}, Mentions: []string{"bob"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Parse(tt.text)); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

var handleRE = regexp.MustCompile(`^[A-Za-z0-9_]{1,30}$`)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "#go @bob", "Trying #golang with @bob and #Go", "bob@example.com", "#Café #東京", "##x @@y",
		"@bob@example.org", "#" + strings.Repeat("a", 101), "\xff#ok", "C#sharp", "(@alice), @bob.",
		"@" + strings.Repeat("h", 31), "#tag-name", "éa#x @é",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := Parse(text)
		if p.Tags == nil || p.Mentions == nil {
			t.Fatalf("Parse(%q) returned a nil slice", text)
		}
		lower := strings.ToLower(text)
		seen := map[string]bool{}
		for _, tag := range p.Tags {
			if tag == "" || !utf8.ValidString(tag) || tag != strings.ToLower(tag) {
				t.Errorf("Parse(%q): bad tag %q", text, tag)
			}
			if seen[tag] {
				t.Errorf("Parse(%q): duplicate tag %q", text, tag)
			}
			seen[tag] = true
			if !strings.Contains(lower, "#"+tag) {
				t.Errorf("Parse(%q): tag %q not in text", text, tag)
			}
		}
		seen = map[string]bool{}
		for _, m := range p.Mentions {
			if !handleRE.MatchString(m) {
				t.Errorf("Parse(%q): bad mention %q", text, m)
			}
			k := strings.ToLower(m)
			if seen[k] {
				t.Errorf("Parse(%q): duplicate mention %q", text, m)
			}
			seen[k] = true
			if !strings.Contains(text, "@"+m) {
				t.Errorf("Parse(%q): mention %q not in text", text, m)
			}
		}
	})
}
