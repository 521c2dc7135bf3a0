package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// guardedStatements names, for each guarded write, the statements of its
// store that write and check the token (auth.GuardSQL), as package.name.
var guardedStatements = map[string][]string{
	"createPost":                {"posts.createSQL"},
	"reactToPost":               {"reactions.setSQL"},
	"deletePostReaction":        {"reactions.removeSQL"},
	"createPostComment":         {"comments.createSQL"},
	"toggleFollow":              {"follows.writeSQL", "follows.toggleProfileSQL"},
	"createConversationMessage": {"conversations.sendSQL"},
}

// guardedWrites lists exactly the operations whose statements write and
// check the token: each statement named above, read from the source of its
// package, embeds auth.GuardSQL and writes, and every package-level
// statement of internal/ that does both is named above.
func TestGuardedWritesAreTheGuardedStatements(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(guardedWrites)), slices.Sorted(maps.Keys(guardedStatements)); !slices.Equal(got, want) {
		t.Errorf("guardedWrites = %v, want the operations of guardedStatements, %v", got, want)
	}
	found := guardedWriteStatements(t)
	named := map[string]bool{}
	for op, stmts := range guardedStatements {
		for _, s := range stmts {
			named[s] = true
			if !found[s] {
				t.Errorf("%s: %s is not a package-level statement that writes and embeds auth.GuardSQL", op, s)
			}
		}
	}
	for s := range found {
		if !named[s] {
			t.Errorf("%s writes and embeds auth.GuardSQL, but no guarded write names it: add its operation to guardedWrites and guardedStatements", s)
		}
	}
}

// writes matches SQL that changes rows (FOR UPDATE only locks them).
var writes = regexp.MustCompile(`(?i)\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+(\s+(AS\s+)?\w+)?\s+SET)\b`)

// guardedWriteStatements returns the package-level variables and constants
// of the packages under internal/ (as package.name) whose value, with the
// package-level declarations it uses, embeds auth.GuardSQL and holds SQL
// that writes.
func guardedWriteStatements(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	byPkg := map[string][]*ast.File{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Base(filepath.Dir(name))
		byPkg[pkg] = append(byPkg[pkg], f)
	}
	found := map[string]bool{}
	for pkg, files := range byPkg {
		decls, values := map[string]ast.Node{}, map[string]ast.Node{}
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Body != nil {
						decls[d.Name.Name] = d.Body
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						vs, ok := spec.(*ast.ValueSpec)
						if !ok || len(vs.Values) == 0 {
							continue
						}
						for i, n := range vs.Names {
							v := vs.Values[0] // several names, one call
							if len(vs.Values) == len(vs.Names) {
								v = vs.Values[i]
							}
							decls[n.Name], values[n.Name] = v, v
						}
					}
				}
			}
		}
		for name, v := range values {
			var sql strings.Builder
			if embedsGuard(v, decls, map[string]bool{name: true}, &sql) && writes.MatchString(sql.String()) {
				found[pkg+"."+name] = true
			}
		}
	}
	return found
}

// embedsGuard reports whether n, or a package-level declaration of decls it
// names (each followed once), calls auth.GuardSQL, and writes the string
// literals it meets to sql in source order.
func embedsGuard(n ast.Node, decls map[string]ast.Node, seen map[string]bool, sql *strings.Builder) bool {
	guarded := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "auth" && n.Sel.Name == "GuardSQL" {
				guarded = true
			}
			if embedsGuard(n.X, decls, seen, sql) {
				guarded = true
			}
			return false
		case *ast.Ident:
			if d, ok := decls[n.Name]; ok && !seen[n.Name] {
				seen[n.Name] = true
				if embedsGuard(d, decls, seen, sql) {
					guarded = true
				}
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				s, _ := strconv.Unquote(n.Value)
				sql.WriteString(s + " ")
			}
		}
		return true
	})
	return guarded
}
