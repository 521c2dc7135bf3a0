package posts

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/socialnet/socialapi/internal/apperr"
)

// MaxLinkLen bounds a stored link, in characters (posts_link_check).
const MaxLinkLen = 2048

// normalizeLink returns link as it is stored, or a validation error at
// /link. A link is an absolute http or https URI (RFC 3986) whose host is a
// DNS name (labels of 1 to 63 letters, digits and hyphens, not starting or
// ending with a hyphen, 253 characters at most) or an IP literal, with a port
// of 1 to 65535 if any and no user:password@ part, which disguises the real
// host (http://good.example@127.0.0.1/). Net/url accepts far more (spaces,
// quotes, out-of-range ports, any host), hence this parser.
//
// A link that is a URI is stored exactly as given. One written as an IRI
// (RFC 3987) is stored as its URI: a host in Unicode becomes its IDNA ASCII
// form (UTS 46, xn--, lower case), so a look-alike host shows as what it
// is, and every other non-ASCII character is percent-encoded as UTF-8. White space,
// control and format characters (bidi overrides, zero-width characters) are
// refused wherever they appear: they make a link read as something else.
// The server never fetches links; this keeps clients that show or follow
// them from being misled.
func normalizeLink(link string) (string, error) {
	rest, scheme, ok := cutScheme(link)
	if !ok {
		return "", linkErr(apperr.FieldBadFormat, "link must be an absolute http or https URL")
	}
	for _, r := range rest {
		if !linkRune(r) {
			return "", linkErr(apperr.FieldBadFormat, "link must not contain white space, control characters, or any of <>\"{}|\\^`")
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host, err := normalizeAuthority(rest[:end])
	if err != nil {
		return "", err
	}
	tail, ok := encodeTail(rest[end:])
	if !ok {
		return "", linkErr(apperr.FieldBadFormat, "link must use % only as %XX, [ ] only around an IP address and # at most once")
	}
	out := scheme + host + tail
	if len(out) > MaxLinkLen { // all ASCII now
		return "", linkErr(apperr.FieldTooLong, "link must be at most "+strconv.Itoa(MaxLinkLen)+" characters once written in ASCII")
	}
	return out, nil
}

func linkErr(code apperr.FieldCode, detail string) error { return apperr.Field("/link", code, detail) }

// cutScheme splits "http://" or "https://" (as the spec's pattern, in
// lower case) off link.
func cutScheme(link string) (rest, scheme string, ok bool) {
	for _, s := range []string{"https://", "http://"} {
		if r, found := strings.CutPrefix(link, s); found {
			return r, s, true
		}
	}
	return "", "", false
}

// linkRune reports whether r may appear in a link: a printable ASCII
// character RFC 3986 allows, or a graphic non-ASCII character that is not a
// space (mapped to the URI by percent-encoding or IDNA).
func linkRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r > ' ' && r < 0x7f && !strings.ContainsRune("<>\"{}|\\^`", r)
	}
	return r != utf8.RuneError && unicode.IsGraphic(r) && !unicode.IsSpace(r)
}

// normalizeAuthority checks host[:port] and returns it with the host in
// ASCII.
func normalizeAuthority(auth string) (string, error) {
	if strings.Contains(auth, "@") {
		return "", linkErr(apperr.FieldBadFormat, "link must not carry a user name or password")
	}
	host, port := auth, ""
	if strings.HasPrefix(auth, "[") {
		i := strings.IndexByte(auth, ']')
		if i < 0 {
			return "", linkErr(apperr.FieldBadFormat, "link has an unclosed [ in its host")
		}
		host, port = auth[:i+1], auth[i+1:]
		if port != "" && port[0] != ':' {
			return "", linkErr(apperr.FieldBadFormat, "link has characters after its IP address")
		}
		a, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", linkErr(apperr.FieldBadFormat, "link's host in [ ] must be an IPv6 address")
		}
	} else {
		if i := strings.LastIndexByte(auth, ':'); i >= 0 {
			host, port = auth[:i], auth[i:]
		}
		var ok bool
		if host, ok = normalizeHost(host); !ok {
			return "", linkErr(apperr.FieldBadFormat, "link's host must be a domain name or an IP address")
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port[1:])
		if len(port) > 6 || err != nil || port[1] == '+' || port[1] == '-' || n < 1 || n > 65535 {
			return "", linkErr(apperr.FieldBadFormat, "link's port must be from 1 to 65535")
		}
	}
	return host + port, nil
}

// normalizeHost returns an IPv4 address or a DNS name (one trailing dot
// allowed) in ASCII, as given if it is, or false.
func normalizeHost(host string) (string, bool) {
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return host, true
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", false
	}
	name := strings.TrimSuffix(ascii, ".")
	if name == "" || len(name) > 253 {
		return "", false
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", false
			}
		}
	}
	// A numeric last label is a malformed IPv4 address (1.2.3, 300.1.1.1),
	// never a top-level domain.
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", false
	}
	if ascii == strings.ToLower(host) {
		return host, true // IDNA only lower-cased it
	}
	return ascii, true
}

// encodeTail checks the path, query and fragment and percent-encodes their
// non-ASCII characters.
func encodeTail(tail string) (string, bool) {
	if strings.Count(tail, "#") > 1 || strings.ContainsAny(tail, "[]") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(tail); i++ {
		c := tail[i]
		switch {
		case c == '%':
			if i+2 >= len(tail) || !isHex(tail[i+1]) || !isHex(tail[i+2]) {
				return "", false
			}
			b.WriteByte(c)
		case c >= utf8.RuneSelf:
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
