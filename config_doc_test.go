package main

import (
	"flag"
	"os"
	"sort"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/configuration.md's table from envVars")

const (
	tableBegin = "<!-- envVars: generated from config.go by `go test -run TestConfigurationDoc -update-docs .` -->\n"
	tableEnd   = "<!-- end of envVars -->\n"
)

// The configuration reference is envVars, word for word, and envVars names
// exactly the variables loadConfig reads: neither can drift from the code.
func TestConfigurationDoc(t *testing.T) {
	asked := map[string]bool{}
	if _, err := loadConfig(func(name string) string { asked[name] = true; return "" }); err != nil {
		t.Fatalf("loadConfig with an empty environment: %v", err)
	}
	listed := map[string]bool{}
	for _, v := range envVars {
		if listed[v.Name] {
			t.Errorf("envVars lists %s twice", v.Name)
		}
		listed[v.Name] = true
		if v.Default == "" || v.Meaning == "" {
			t.Errorf("envVars: %s needs a default and a meaning", v.Name)
		}
	}
	for _, n := range sorted(asked) {
		if !listed[n] {
			t.Errorf("loadConfig reads %s, which envVars does not document", n)
		}
	}
	for _, n := range sorted(listed) {
		if !asked[n] {
			t.Errorf("envVars documents %s, which loadConfig never reads", n)
		}
	}

	const path = "docs/configuration.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), tableBegin)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated table between %q and %q", path, tableBegin, tableEnd)
	}
	want := before + tableBegin + configurationTable() + tableEnd + after
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(doc) != want {
		t.Errorf("%s's table differs from envVars in config.go: run go test -run TestConfigurationDoc -update-docs .", path)
	}
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
