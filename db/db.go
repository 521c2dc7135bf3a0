// Package db embeds the SQL migrations and the demo dataset so the binary
// carries everything it needs to build and fill its schema.
package db

import "embed"

// Migrations holds the numbered up/down migrations (golang-migrate layout:
// NNNNNN_verb_object.up.sql / .down.sql) under the folder "migrations".
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Demo is the demo dataset that `make run` loads (the fixture format of the
// seed command, documented in README.md).
//
//go:embed demo.json
var Demo []byte

// FixtureSchema is the JSON Schema of the fixture format (db/FIXTURES.md).
//
//go:embed fixture.schema.json
var FixtureSchema []byte
