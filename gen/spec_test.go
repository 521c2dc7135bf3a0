package gen_test

import (
	"context"
	"math"
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

var verbNoun = regexp.MustCompile(`^(get|list|create|delete|react|toggle|search|mark|block|unblock|mute|unmute|vote)[A-Z][A-Za-z]*$`)

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
	if n != 31 {
		t.Errorf("spec has %d operations, want 31", n)
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

// maxSafeInteger is 2^53-1: the largest integer every JSON reader (a
// JavaScript number included) holds exactly, and so the largest id, count
// or amount the API sends or accepts.
const maxSafeInteger = 1<<53 - 1

// TestSchemasBounded holds every schema of the contract (components,
// parameters, headers, request and response bodies) to what docs/design.md
// promises generated clients: an integer names its format (int32 or int64)
// and both bounds, within that format and within 2^53-1; a string has
// maxLength and an array maxItems, the limits the server and the database
// guarantee. A string needs no maxLength when its values are an enum or a
// date-time (whose offset pattern fixes its length).
func TestSchemasBounded(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := boundsChecker{t: t}
	for name, ref := range doc.Components.Schemas {
		c.check("#/components/schemas/"+name, ref.Value)
	}
	for name, ref := range doc.Components.Parameters {
		c.walk("#/components/parameters/"+name, ref.Value.Schema)
	}
	for name, ref := range doc.Components.Headers {
		c.walk("#/components/headers/"+name, ref.Value.Schema)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			at := method + " " + path
			for _, p := range op.Parameters {
				if p.Ref == "" {
					c.walk(at+" parameter "+p.Value.Name, p.Value.Schema)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Ref == "" {
				for mt, m := range op.RequestBody.Value.Content {
					c.walk(at+" request "+mt, m.Schema)
				}
			}
			for status, r := range op.Responses.Map() {
				if r.Ref != "" {
					continue
				}
				for name, h := range r.Value.Headers {
					if h.Ref == "" {
						c.walk(at+" "+status+" header "+name, h.Value.Schema)
					}
				}
				for mt, m := range r.Value.Content {
					if mt == "text/event-stream" {
						c.stream(at+" "+status+" "+mt, m)
						continue
					}
					c.walk(at+" "+status+" "+mt, m.Schema)
				}
			}
		}
	}
	for name, ref := range doc.Components.Responses {
		for hn, h := range ref.Value.Headers {
			if h.Ref == "" {
				c.walk("#/components/responses/"+name+" header "+hn, h.Value.Schema)
			}
		}
		for mt, m := range ref.Value.Content {
			c.walk("#/components/responses/"+name+" "+mt, m.Schema)
		}
	}
	if c.ints < 50 || c.strings < 50 || c.arrays < 10 {
		t.Errorf("checked %d integers, %d strings, %d arrays: the walk missed the contract", c.ints, c.strings, c.arrays)
	}
}

type boundsChecker struct {
	t                     *testing.T
	ints, strings, arrays int
}

// stream checks a text/event-stream body. The stream itself has no length
// (it lasts as long as the connection); what a client must bound is each
// event's data, so every event the body names in x-stream-events must be a
// component schema, which the walk over the components bounds.
func (c *boundsChecker) stream(at string, m *openapi3.MediaType) {
	events, ok := m.Extensions["x-stream-events"].(map[string]any)
	if !ok || len(events) == 0 {
		c.t.Errorf("%s: a stream without x-stream-events naming the schema of each event's data", at)
		return
	}
	for name, v := range events {
		ref, _ := v.(map[string]any)["$ref"].(string)
		if !strings.HasPrefix(ref, "#/components/schemas/") {
			c.t.Errorf("%s: event %s: data is not a $ref to a component schema (%v)", at, name, v)
		}
	}
}

// walk checks an inline schema; a reference to a component is checked
// once, under the component's own name.
func (c *boundsChecker) walk(at string, ref *openapi3.SchemaRef) {
	if ref != nil && ref.Ref == "" {
		c.check(at, ref.Value)
	}
}

func (c *boundsChecker) check(at string, s *openapi3.Schema) {
	switch {
	case s.Type.Is("integer"):
		c.ints++
		limit := float64(maxSafeInteger)
		switch s.Format {
		case "int32":
			limit = math.MaxInt32
		case "int64":
		default:
			c.t.Errorf("%s: integer without format int32 or int64 (format %q)", at, s.Format)
		}
		if s.Min == nil || s.Max == nil {
			c.t.Errorf("%s: integer without minimum and maximum", at)
		} else if *s.Min < -limit || *s.Max > limit || *s.Min > *s.Max {
			c.t.Errorf("%s: bounds %v..%v outside %s (at most %v)", at, *s.Min, *s.Max, s.Format, limit)
		}
	case s.Type.Is("number"):
		c.t.Errorf("%s: a number: amounts are integers of minor units or decimal strings", at)
	case s.Type.Is("string"):
		c.strings++
		if s.MaxLength == nil && len(s.Enum) == 0 && s.Format != "date-time" {
			c.t.Errorf("%s: string without maxLength (nor enum, nor date-time)", at)
		}
	case s.Type.Is("array"):
		c.arrays++
		if s.MaxItems == nil {
			c.t.Errorf("%s: array without maxItems", at)
		}
	}
	for k, p := range s.Properties {
		c.walk(at+"/properties/"+k, p)
	}
	c.walk(at+"/items", s.Items)
	c.walk(at+"/additionalProperties", s.AdditionalProperties.Schema)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, r := range group {
			c.walk(at, r)
		}
	}
}
