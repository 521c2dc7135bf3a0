//go:build tools

// This file pins the code generator in go.mod so `go run` uses that version.
package main

import _ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
