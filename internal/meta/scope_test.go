package meta_test

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/meta"
)

// TestScopeOfReadsTheExtension holds the scope an operation needs to its
// x-required-scope, failing closed: no value, or one not read, is write.
// Security requirements list no scopes, so they cannot change the answer.
func TestScopeOfReadsTheExtension(t *testing.T) {
	for _, tc := range []struct {
		ext  any
		want string
	}{
		{"read", "read"},
		{"write", "write"},
		{nil, "write"},
		{"READ", "write"},
		{true, "write"},
	} {
		op := &openapi3.Operation{Extensions: map[string]any{}}
		if tc.ext != nil {
			op.Extensions[meta.RequiredScope] = tc.ext
		}
		if got := meta.ScopeOf(op); got != tc.want {
			t.Errorf("ScopeOf(x-required-scope %v) = %s, want %s", tc.ext, got, tc.want)
		}
	}
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			want := "write"
			if method == "GET" {
				want = "read"
			}
			if got := meta.ScopeOf(op); got != want {
				t.Errorf("%s %s: ScopeOf = %s, want %s", method, path, got, want)
			}
		}
	}
}
