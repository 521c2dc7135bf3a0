// Package gen holds the code oapi-codegen generates from ../openapi.yaml:
// models, the Echo server interface, the strict server and the embedded spec.
// Never edit api.gen.go; change the spec or oapi-codegen.yaml and run
// `make generate`.
package gen

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config oapi-codegen.yaml ../openapi.yaml
