package seed

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/socialnet/socialapi/db"
)

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// validateSchema checks a document against db/fixture.schema.json and names
// the first offending entry the way the importer does ("posts[2].body").
func validateSchema(b []byte) error {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(db.FixtureSchema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("fixture.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("fixture.schema.json")
	})
	if schemaErr != nil {
		return fmt.Errorf("fixture schema: %w", schemaErr)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return &EntryError{Entry: "fixture", Err: fmt.Errorf("not valid JSON: %w", err)}
	}
	err = schema.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	// Report the most specific problem: the deepest cause.
	leaf := deepest(ve)
	msg := leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English))
	return &EntryError{Entry: entryPath(jsonPointer(leaf.InstanceLocation)), Err: errors.New(msg)}
}

func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := ve
	for _, c := range ve.Causes {
		if d := deepest(c); len(d.InstanceLocation) > len(best.InstanceLocation) || best == ve {
			best = d
		}
	}
	return best
}

func jsonPointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	return "/" + strings.Join(tokens, "/")
}

// entryPath turns "/posts/2/body" into "posts[2].body".
func entryPath(ptr string) string {
	if ptr == "" {
		return "fixture"
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~"))
	}
	return b.String()
}
