package gen_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/socialnet/socialapi/gen"
)

// TestSpecValid validates openapi.yaml (examples included) and the embedded
// copy the server runs with.
func TestSpecValid(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.yaml is invalid: %v", err)
	}
	embedded, err := gen.GetSpec()
	if err != nil {
		t.Fatalf("embedded spec: %v", err)
	}
	if err := embedded.Validate(context.Background()); err != nil {
		t.Fatalf("embedded spec is invalid: %v", err)
	}
	if embedded.Info.Version != doc.Info.Version || len(embedded.Paths.Map()) != len(doc.Paths.Map()) {
		t.Errorf("embedded spec differs from openapi.yaml: run make generate")
	}
}

var verbNoun = regexp.MustCompile(`^(get|list|create|delete|react|toggle|search|mark|block|unblock|mute|unmute)[A-Z][A-Za-z]*$`)

// TestOperationConventions checks what docs/design.md asks of every
// operation: a verbNoun operationId, tag, summary, description, a scoped
// security requirement, a rate-limit policy matching the method, and the
// statuses every operation can return. The scope is x-required-scope: a
// security requirement of an http scheme lists no scopes (OpenAPI 3.0.3).
func TestOperationConventions(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			name := method + " " + path
			if !verbNoun.MatchString(op.OperationID) {
				t.Errorf("%s: operationId %q is not verbNoun", name, op.OperationID)
			}
			if len(op.Tags) != 1 || op.Summary == "" || op.Description == "" {
				t.Errorf("%s: needs one tag, a summary and a description", name)
			}
			want := "read"
			if method != "GET" {
				want = "write"
			}
			if p, _ := op.Extensions["x-rate-limit-policy"].(string); p != want {
				t.Errorf("%s: x-rate-limit-policy %q, want %q", name, p, want)
			}
			if op.Security == nil || len(*op.Security) != 1 || len((*op.Security)[0]) != 1 ||
				(*op.Security)[0]["bearerAuth"] == nil || len((*op.Security)[0]["bearerAuth"]) != 0 {
				t.Errorf("%s: security must be bearerAuth []", name)
			}
			if s, _ := op.Extensions["x-required-scope"].(string); s != want {
				t.Errorf("%s: x-required-scope %q, want %q", name, s, want)
			}
			for _, status := range []string{"400", "401", "429", "500", "503"} {
				if op.Responses.Value(status) == nil {
					t.Errorf("%s: status %s not documented", name, status)
				}
			}
			if method != "GET" && op.Responses.Value("403") == nil {
				t.Errorf("%s: write operation without 403", name)
			}
			if strings.Contains(path, "{") && op.Responses.Value("404") == nil {
				t.Errorf("%s: path parameter without 404", name)
			}
			if method == "POST" {
				hasKey := false
				for _, p := range op.Parameters {
					hasKey = hasKey || (p.Value.In == "header" && p.Value.Name == "Idempotency-Key")
				}
				if !hasKey || op.Responses.Value("409") == nil || op.Responses.Value("422") == nil {
					t.Errorf("%s: POST without Idempotency-Key, 409 and 422", name)
				}
			}
			if op.RequestBody != nil {
				for _, status := range []string{"413", "415", "422"} {
					if op.Responses.Value(status) == nil {
						t.Errorf("%s: body operation without %s", name, status)
					}
				}
			}
		}
	}
	if n != 30 {
		t.Errorf("spec has %d operations, want 30", n)
	}
}

// TestTimestampsForbidZ checks that every date-time in a response schema
// carries the offset pattern, so a "Z" fails the contract tests.
func TestTimestampsForbidZ(t *testing.T) {
	b, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*openapi3.Schema]bool{}
	n := 0
	for name, ref := range doc.Components.Schemas {
		n += walkSchema(t, name, ref.Value, seen)
	}
	if n < 10 {
		t.Errorf("found %d date-time schemas, want the API's timestamps", n)
	}
}

func walkSchema(t *testing.T, at string, s *openapi3.Schema, seen map[*openapi3.Schema]bool) (n int) {
	if s == nil || seen[s] {
		return 0
	}
	seen[s] = true
	if s.Format == "date-time" {
		n++
		if !strings.HasSuffix(s.Pattern, "[+-][0-9]{2}:[0-9]{2}$") {
			t.Errorf("%s: date-time without the offset pattern (got %q)", at, s.Pattern)
		}
	}
	for k, p := range s.Properties {
		n += walkSchema(t, at+"."+k, p.Value, seen)
	}
	if s.Items != nil {
		n += walkSchema(t, at+"[]", s.Items.Value, seen)
	}
	for _, a := range s.AllOf {
		n += walkSchema(t, at, a.Value, seen)
	}
	return n
}

// reservedNames are schema names that generators reserve or that collide
// with what they generate beside the models: `index` barrels
// (models/index.ts), the language's own types (Error, Object, Date, File,
// Map…) and the HTTP types of generated clients (Request, Response).
var reservedNames = []string{
	"index", "error", "object", "date", "datetime", "file", "blob", "response", "request", "type",
	"string", "number", "boolean", "integer", "array", "map", "list", "set", "record", "promise",
	"symbol", "function", "class", "interface", "enum", "client", "model", "models", "api",
	"configuration", "default", "any", "unknown", "never", "void", "null", "undefined",
}

// TestSchemaNamesNotReserved keeps every generator able to use the schema
// names as they are: none is reserved, and no two differ only in case (one
// file each on a case-insensitive file system).
func TestSchemaNamesNotReserved(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for name := range doc.Components.Schemas {
		low := strings.ToLower(name)
		for _, r := range reservedNames {
			if low == r {
				t.Errorf("schema %s: a name generators reserve; rename it", name)
			}
		}
		if other, ok := seen[low]; ok {
			t.Errorf("schemas %s and %s differ only in case", name, other)
		}
		seen[low] = name
	}
}

// TestSecurityRequirementsListNoScopes holds every security requirement,
// the document's and each operation's, to OpenAPI 3.0.3: scopes are listed
// only for oauth2 and openIdConnect schemes, which this API has none of.
func TestSecurityRequirementsListNoScopes(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	check := func(at string, reqs openapi3.SecurityRequirements) {
		for _, r := range reqs {
			for scheme, scopes := range r {
				ref := doc.Components.SecuritySchemes[scheme]
				if ref == nil || ref.Value == nil {
					t.Errorf("%s: unknown security scheme %s", at, scheme)
					continue
				}
				if typ := ref.Value.Type; typ != "oauth2" && typ != "openIdConnect" && len(scopes) != 0 {
					t.Errorf("%s: %s is a %s scheme and lists scopes %v: name the scope in x-required-scope", at, scheme, typ, scopes)
				}
			}
		}
	}
	check("document", doc.Security)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil {
				check(method+" "+path, *op.Security)
			}
		}
	}
}
