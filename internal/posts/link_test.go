package posts

import (
	"errors"
	"strings"
	"testing"

	"github.com/socialnet/socialapi/internal/apperr"
)

func TestNormalizeLink(t *testing.T) {
	t.Parallel()
	ok := []struct{ in, want string }{
		{"https://example.com", "https://example.com"},
		{"http://example.com/", "http://example.com/"},
		{"https://example.com:8443/a/b?c=d&e=%2F#frag?x/y", "https://example.com:8443/a/b?c=d&e=%2F#frag?x/y"},
		{"https://example.com:1/", "https://example.com:1/"},
		{"https://example.com:65535/", "https://example.com:65535/"},
		{"https://Sub.Example.COM/Path", "https://Sub.Example.COM/Path"},
		{"https://XN--CAF-DMA.example/", "https://XN--CAF-DMA.example/"},
		{"https://example.com./", "https://example.com./"},
		{"https://a-b.c9.example/~u/!$&'()*+,;=:@-._", "https://a-b.c9.example/~u/!$&'()*+,;=:@-._"},
		{"https://192.0.2.1:8080/x", "https://192.0.2.1:8080/x"},
		{"https://[2001:db8::1]/x", "https://[2001:db8::1]/x"},
		{"https://[2001:DB8:0::1]:443", "https://[2001:DB8:0::1]:443"},
		{"https://" + strings.Repeat("a", 63) + ".example/", "https://" + strings.Repeat("a", 63) + ".example/"},
		// IRIs are stored as their URIs (RFC 3987 §3.1).
		{"https://café.example/", "https://xn--caf-dma.example/"},
		{"https://CAFÉ.example/", "https://xn--caf-dma.example/"},
		{"https://bücher.example/straße?q=ö#ü", "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%B6#%C3%BC"},
		{"https://例え.テスト/パス", "https://xn--r8jz45g.xn--zckzah/%E3%83%91%E3%82%B9"},
		{"https://xn--caf-dma.example/", "https://xn--caf-dma.example/"},
	}
	for _, tt := range ok {
		t.Run(tt.in, func(t *testing.T) {
			got, err := normalizeLink(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("normalizeLink(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
	bad := []struct{ name, in, code string }{
		{"space in path", "https://example.com/a b", "bad_format"},
		{"tab", "https://example.com/a\tb", "bad_format"},
		{"newline", "https://example.com/\n", "bad_format"},
		{"no-break space", "https://example.com/a\u00a0b", "bad_format"},
		{"ideographic space", "https://example.com/a\u3000b", "bad_format"},
		{"NUL", "https://example.com/\x00", "bad_format"},
		{"DEL", "https://example.com/\x7f", "bad_format"},
		{"C1 control", "https://example.com/\u0085", "bad_format"},
		{"port too big", "https://e.example:99999/", "bad_format"},
		{"port zero", "https://e.example:0/", "bad_format"},
		{"port empty", "https://e.example:/", "bad_format"},
		{"port signed", "https://e.example:+80/", "bad_format"},
		{"port not numeric", "https://e.example:http/", "bad_format"},
		{"port huge", "https://e.example:99999999999999999999/", "bad_format"},
		{"host a hyphen", "https://-/", "bad_format"},
		{"label starts with hyphen", "https://-a.example/", "bad_format"},
		{"label ends with hyphen", "https://a-.example/", "bad_format"},
		{"empty label", "https://a..example/", "bad_format"},
		{"label too long", "https://" + strings.Repeat("a", 64) + ".example/", "bad_format"},
		{"name too long", "https://" + strings.Repeat(strings.Repeat("a", 63)+".", 4) + "example/", "bad_format"},
		{"underscore in host", "https://a_b.example/", "bad_format"},
		{"percent in host", "https://exam%70le.com/", "bad_format"},
		{"empty host", "https:///path", "bad_format"},
		{"only a port", "https://:80/", "bad_format"},
		{"numeric last label", "https://1.2.3/", "bad_format"},
		{"bad IPv4", "https://256.1.1.1/", "bad_format"},
		{"bad IPv6", "https://[2001:db8::g]/", "bad_format"},
		{"IPv4 in brackets", "https://[192.0.2.1]/", "bad_format"},
		{"IPv6 zone", "https://[fe80::1%25eth0]/", "bad_format"},
		{"unclosed bracket", "https://[::1/", "bad_format"},
		{"junk after bracket", "https://[::1]x/", "bad_format"},
		{"credentials", "http://good.example@127.0.0.1/", "bad_format"},
		{"user only", "https://user@example.com/", "bad_format"},
		{"quotes and angles", `<x>"y"`, "bad_format"},
		{"quotes and angles in path", `https://example.com/<x>"y"`, "bad_format"},
		{"brace", "https://example.com/{x}", "bad_format"},
		{"pipe", "https://example.com/a|b", "bad_format"},
		{"backslash", `https://example.com\@evil.example/`, "bad_format"},
		{"caret", "https://example.com/a^b", "bad_format"},
		{"backtick", "https://example.com/a`b", "bad_format"},
		{"bracket in path", "https://example.com/a[0]", "bad_format"},
		{"second #", "https://example.com/#a#b", "bad_format"},
		{"lone %", "https://example.com/100%", "bad_format"},
		{"bad %XX", "https://example.com/%zz", "bad_format"},
		{"RLO in path", "https://example.com/\u202Egnp.exe", "bad_format"},
		{"RLO in host", "https://exa\u202Emple.com/", "bad_format"},
		{"LRE", "https://example.com/\u202A", "bad_format"},
		{"isolate", "https://example.com/\u2066x\u2069", "bad_format"},
		{"LRM", "https://example.com/\u200E", "bad_format"},
		{"ALM", "https://example.com/\u061C", "bad_format"},
		{"zero width space", "https://exam\u200Bple.com/", "bad_format"},
		{"BOM", "https://example.com/\uFEFF", "bad_format"},
		{"replacement character", "https://example.com/\uFFFD", "bad_format"},
		{"private use", "https://example.com/\uE000", "bad_format"},
		{"invalid IDN", "https://xn--a.example/", "bad_format"},
		{"no scheme", "example.com/", "bad_format"},
		{"relative", "/path", "bad_format"},
		{"ftp", "ftp://example.com/", "bad_format"},
		{"javascript", "javascript:alert(1)", "bad_format"},
		{"scheme without //", "https:example.com", "bad_format"},
		{"too long once encoded", "https://example.com/" + strings.Repeat("é", 1000), "too_long"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got, err := normalizeLink(tt.in)
			var e *apperr.Error
			if !errors.As(err, &e) || e.Code != apperr.ValidationFailed || len(e.Fields) != 1 ||
				e.Fields[0].Pointer != "/link" || e.Fields[0].Code.String() != tt.code {
				t.Errorf("%s: normalizeLink(%q) = %q, %v, want a %s error at /link", tt.name, tt.in, got, err, tt.code)
			}
		})
	}
}

// FuzzNormalizeLink: an accepted link is stored as a URI (only the
// characters RFC 3986 allows), that URI is accepted as it is, and a URI is
// stored exactly as given.
func FuzzNormalizeLink(f *testing.F) {
	for _, s := range []string{"https://example.com/a?b#c", "http://[::1]:80/", "https://café.example/ü", "https://-/",
		"https://e.example:99999/", "https://example.com/a b", "https://exa\u202Emple.com/"} {
		f.Add(s)
	}
	const uri = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"
	f.Fuzz(func(t *testing.T, in string) {
		out, err := normalizeLink(in)
		if err != nil {
			return
		}
		if strings.Trim(out, uri) != "" {
			t.Fatalf("normalizeLink(%q) = %q, not a URI", in, out)
		}
		again, err := normalizeLink(out)
		if err != nil || again != out {
			t.Fatalf("normalizeLink(%q) = %q, %v; want the URI %q as given", out, again, err, out)
		}
		if strings.Trim(in, uri) == "" && out != in {
			t.Fatalf("normalizeLink(%q) = %q, want the URI as given", in, out)
		}
	})
}
