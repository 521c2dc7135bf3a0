package cursor_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/cursor"
)

var (
	benchFilters = url.Values{"tab": {"home"}, "per_page": {"20"}}
	benchPos     = cursor.Position{Time: time.Date(2026, 3, 4, 9, 0, 0, 123456000, time.UTC), ID: 987654}
)

func BenchmarkFingerprint(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		cursor.Fingerprint("feed", benchFilters)
	}
}

func BenchmarkEncode(b *testing.B) {
	fp := cursor.Fingerprint("feed", benchFilters)
	b.ReportAllocs()
	for b.Loop() {
		cursor.Encode(fp, benchPos)
	}
}

func BenchmarkDecode(b *testing.B) {
	fp := cursor.Fingerprint("feed", benchFilters)
	c := cursor.Encode(fp, benchPos)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cursor.Decode(fp, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewPage is the metadata of one list page: a cursor, next_url and
// the Link header.
func BenchmarkNewPage(b *testing.B) {
	fp := cursor.Fingerprint("feed", benchFilters)
	b.ReportAllocs()
	for b.Loop() {
		p := cursor.NewPage(20, "https://social.example/api/v1/feed", benchFilters, fp, &benchPos)
		_ = p.Link()
	}
}
