package main

import (
	"slices"
	"testing"
)

func TestCORSOrigins(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string { return map[string]string{"CORS_ORIGINS": v}[k] }
	}
	for in, want := range map[string][]string{
		"":                                     nil,
		"*":                                    {"*"},
		"https://app.example":                  {"https://app.example"},
		" https://a.example/ , http://b:8080 ": {"https://a.example", "http://b:8080"},
	} {
		t.Run(in, func(t *testing.T) {
			c, err := loadConfig(env(in))
			if err != nil || !slices.Equal(c.CORSOrigins, want) {
				t.Errorf("CORS_ORIGINS=%q: %q, %v; want %q", in, c.CORSOrigins, err, want)
			}
		})
	}
	for _, in := range []string{"app.example", "https://app.example/path", "ftp://x", "https://u:p@x"} {
		t.Run(in, func(t *testing.T) {
			if _, err := loadConfig(env(in)); err == nil {
				t.Errorf("CORS_ORIGINS=%q accepted", in)
			}
		})
	}
}
