package cursor

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/socialnet/socialapi/internal/apperr"
)

func TestRoundTrip(t *testing.T) {
	fp := Fingerprint("feed", url.Values{"tab": {"home"}, "per_page": {"5"}})
	in := Position{Time: time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC), ID: 42}
	got, err := Decode(fp, Encode(fp, in))
	if err != nil || got == nil || !got.Time.Equal(in.Time) || got.ID != in.ID {
		t.Fatalf("Decode(Encode(%v)) = %v, %v", in, got, err)
	}
	// A cursor issued while sort times had fractions names its item where
	// the item is now: at the whole second.
	old := Position{Time: in.Time.Add(123456 * time.Microsecond), ID: 42}
	if got, err := Decode(fp, Encode(fp, old)); err != nil || !got.Time.Equal(in.Time) || got.ID != in.ID {
		t.Fatalf("Decode(Encode(%v)) = %v, %v, want %v", old, got, err, in)
	}
	// per_page does not change the fingerprint; filters do.
	if fp != Fingerprint("feed", url.Values{"tab": {"home"}, "per_page": {"50"}, "cursor": {"x"}}) {
		t.Error("per_page or cursor changed the fingerprint")
	}
	other := Fingerprint("feed", url.Values{"tab": {"discover"}})
	if _, err := Decode(other, Encode(fp, in)); !apperr.Is(err, apperr.InvalidCursor) {
		t.Errorf("cursor reused with other filters: err = %v, want invalid_cursor", err)
	}
}

func TestDecodeRejects(t *testing.T) {
	fp := Fingerprint("x", nil)
	for _, s := range []string{"!!!", "e30", "eyJpIjowLCJxIjoiIn0", string(make([]byte, 600))} {
		t.Run(fmt.Sprintf("%.20q", s), func(t *testing.T) {
			if _, err := Decode(fp, s); !apperr.Is(err, apperr.InvalidCursor) {
				t.Errorf("Decode(%q) err = %v, want invalid_cursor", s, err)
			}
		})
	}
	if p, err := Decode(fp, ""); p != nil || err != nil {
		t.Errorf("Decode(\"\") = %v, %v, want nil, nil", p, err)
	}
}

func FuzzDecode(f *testing.F) {
	fp := Fingerprint("x", nil)
	f.Add(Encode(fp, Position{ID: 1, Time: time.Unix(1, 0)}))
	f.Add("")
	f.Add("eyJpIjoxfQ")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Decode(fp, s)
		if err == nil && p != nil && p.ID < 1 {
			t.Fatalf("Decode(%q) accepted id %d", s, p.ID)
		}
		if err != nil && !apperr.Is(err, apperr.InvalidCursor) {
			t.Fatalf("Decode(%q) error of another kind: %v", s, err)
		}
	})
}

func TestNewPage(t *testing.T) {
	q := url.Values{"tab": {"discover"}}
	fp := Fingerprint("feed", q)
	p := NewPage(2, "https://x.example/api/v1/feed", q, fp, &Position{ID: 7, Time: time.Unix(100, 0)})
	if !p.HasMore || p.NextCursor == nil || p.NextURL == nil || p.Link() == nil {
		t.Fatalf("page = %+v", p)
	}
	u, _ := url.Parse(*p.NextURL)
	if u.Query().Get("tab") != "discover" || u.Query().Get("per_page") != "2" || u.Query().Get("cursor") != *p.NextCursor {
		t.Errorf("next_url = %s", *p.NextURL)
	}
	last := NewPage(2, "https://x.example/api/v1/feed", q, fp, nil)
	if last.HasMore || last.NextCursor != nil || last.NextURL != nil || last.Link() != nil {
		t.Errorf("last page = %+v", last)
	}
}
