// Command prismspec writes openapi.yaml as JSON for Prism, with one
// rewrite: nullable references. The contract spells a nullable reference
// `{type: T, nullable: true, allOf: [{$ref: X}]}`, which kin-openapi (the
// server's validator) and oapi-codegen read as "X or null", but which Prism
// reads strictly (OpenAPI 3.0.3: allOf still applies to null) and so rejects
// every null (stoplightio/prism#1294). Prism gets the same meaning spelled
// `{anyOf: [{$ref: X}, {enum: [null]}]}`; nothing else changes.
//
//	go run ./tools/contract/prismspec openapi.yaml > openapi.prism.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: prismspec openapi.yaml > openapi.prism.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "prismspec:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	doc, err := openapi3.NewLoader().LoadFromFile(path)
	if err != nil {
		return err
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	n := rewrite(v)
	fmt.Fprintf(os.Stderr, "prismspec: %d nullable references rewritten\n", n)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(v)
}

// rewrite turns every {nullable: true, allOf: [{$ref}]} into
// {anyOf: [{$ref}, {enum: [null]}]} (keeping description, example, ...),
// and returns how many it changed.
func rewrite(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		if all, ok := x["allOf"].([]any); ok && x["nullable"] == true && len(all) == 1 {
			if ref, ok := all[0].(map[string]any); ok && ref["$ref"] != nil {
				delete(x, "allOf")
				delete(x, "nullable")
				delete(x, "type")
				x["anyOf"] = []any{ref, map[string]any{"enum": []any{nil}}}
				n++
			}
		}
		for _, c := range x {
			n += rewrite(c)
		}
	case []any:
		for _, c := range x {
			n += rewrite(c)
		}
	}
	return n
}
