// Package apitime is the timestamp type of the API: RFC 3339 in UTC with a
// numeric offset and second precision ("2026-03-04T12:00:00+00:00"), never
// "Z" and never fractions. oapi-codegen maps every `format: date-time` to it.
package apitime

import (
	"database/sql/driver"
	"fmt"
	"time"
)

// Layout renders UTC as +00:00 (Go's "Z07:00" would print Z).
const Layout = "2006-01-02T15:04:05-07:00"

// Time is a time.Time that marshals in the API's format.
type Time struct{ time.Time }

// New returns t in UTC, truncated to whole seconds.
func New(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// Ptr returns a pointer to New(t), or nil when t is nil.
func Ptr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	v := New(*t)
	return &v
}

// String formats t in the API layout.
func (t Time) String() string { return t.UTC().Format(Layout) }

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.String() + `"`), nil
}

// MarshalText implements encoding.TextMarshaler.
func (t Time) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalJSON accepts any RFC 3339 timestamp.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("apitime: timestamp must be a JSON string")
	}
	return t.UnmarshalText(b[1 : len(b)-1])
}

// UnmarshalText accepts any RFC 3339 timestamp.
func (t *Time) UnmarshalText(b []byte) error {
	p, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return fmt.Errorf("apitime: %w", err)
	}
	t.Time = p.UTC()
	return nil
}

// Bind lets oapi-codegen's runtime bind query parameters of this type (without
// it the runtime parses the struct as a date).
func (t *Time) Bind(src string) error {
	if src == "" {
		return nil
	}
	return t.UnmarshalText([]byte(src))
}

// Scan implements sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		t.Time = v.UTC()
		return nil
	case nil:
		t.Time = time.Time{}
		return nil
	}
	return fmt.Errorf("apitime: cannot scan %T", src)
}

// Value implements driver.Valuer.
func (t Time) Value() (driver.Value, error) { return t.Time, nil }
