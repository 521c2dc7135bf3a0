package apperr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/socialnet/socialapi/gen"
	"github.com/socialnet/socialapi/internal/apperr"
)

// TestFieldCodesAreTheSpecEnum holds the closed list of field codes equal,
// in order, to the enum of ProblemFieldCode in openapi.yaml, each code
// described there. FieldCode values can only be made in package apperr, so
// this list is every code the server can send.
func TestFieldCodesAreTheSpecEnum(t *testing.T) {
	spec, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ref := spec.Components.Schemas["ProblemFieldCode"]
	if ref == nil || ref.Value == nil {
		t.Fatal("openapi.yaml has no schema ProblemFieldCode")
	}
	var enum []string
	for _, v := range ref.Value.Enum {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("ProblemFieldCode enum value %v is not a string", v)
		}
		enum = append(enum, s)
	}
	var codes []string
	for _, c := range apperr.FieldCodes {
		codes = append(codes, c.String())
	}
	if !slices.Equal(codes, enum) {
		t.Errorf("apperr.FieldCodes = %v,\nProblemFieldCode enum = %v: keep them equal", codes, enum)
	}
	for _, c := range codes {
		if !strings.Contains(ref.Value.Description, "`"+c+"`") {
			t.Errorf("ProblemFieldCode's description does not describe `%s`", c)
		}
	}
	field := spec.Components.Schemas["ProblemField"].Value.Properties["code"].Value
	if len(field.AllOf) != 1 || field.AllOf[0].Ref != "#/components/schemas/ProblemFieldCode" {
		t.Errorf("ProblemField.code is not ProblemFieldCode")
	}
}

// TestFieldCodesListsEveryFieldCode holds every FieldCode the package
// makes, read from its source, in FieldCodes, once.
func TestFieldCodesListsEveryFieldCode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "apperr.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var made []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "FieldCode" {
			return true
		}
		if len(lit.Elts) != 1 {
			t.Errorf("FieldCode literal with %d elements", len(lit.Elts))
			return true
		}
		b, ok := lit.Elts[0].(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			t.Errorf("FieldCode made from a non-constant: every code is a literal of this file")
			return true
		}
		s, _ := strconv.Unquote(b.Value)
		made = append(made, s)
		return true
	})
	var listed []string
	for _, c := range apperr.FieldCodes {
		listed = append(listed, c.String())
	}
	slices.Sort(made)
	if len(slices.Compact(slices.Clone(made))) != len(made) {
		t.Errorf("a field code is made twice: %v", made)
	}
	slices.Sort(listed)
	if !slices.Equal(made, listed) {
		t.Errorf("codes made in apperr.go = %v,\nFieldCodes = %v: list every code once", made, listed)
	}
}
