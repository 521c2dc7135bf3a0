package apitime

import (
	"encoding/json"
	"testing"
	"time"
)

func TestMarshalNeverZ(t *testing.T) {
	in := time.Date(2026, 3, 4, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	b, err := json.Marshal(New(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `"2026-03-04T11:00:00+00:00"`; got != want {
		t.Errorf("Marshal(%v) = %s, want %s", in, got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, s := range []string{"2026-03-04T12:00:00+00:00", "2026-03-04T13:00:00+01:00", "2026-03-04T12:00:00Z"} {
		t.Run(s, func(t *testing.T) {
			var v Time
			if err := v.Bind(s); err != nil {
				t.Fatalf("Bind(%q) = %v", s, err)
			}
			if got, want := v.String(), "2026-03-04T12:00:00+00:00"; got != want {
				t.Errorf("Bind(%q).String() = %s, want %s", s, got, want)
			}
		})
	}
	var v Time
	if err := v.Bind("yesterday"); err == nil {
		t.Error("Bind(yesterday) = nil, want error")
	}
}
