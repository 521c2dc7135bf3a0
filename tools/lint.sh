#!/usr/bin/env bash
# Usage: tools/lint.sh [spec]   (default: openapi.yaml)
# Lints the spec with
#   1. kin-openapi (the validator the server uses): document validation plus validation of
#      every example against its schema;
#   2. Redocly CLI (redocly.yaml) and 3. Spectral (.spectral.yaml), pinned in tools/npm, their
#      example validation included (strict OpenAPI 3.0.3 readings of `nullable`);
#   4. bounds and formats (gen/spec_test.go TestSchemasBounded, on openapi.yaml): every integer
#      has format int32/int64, minimum and maximum; every string maxLength and every array
#      maxItems, enums and date-times excepted.
# Installs the linters with `npm ci` when tools/npm/node_modules is missing.
# Exits non-zero on any error or warning from any of them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
spec=$(realpath "${1:-$root/openapi.yaml}")
cd "$root"
npm_dir=tools/npm
bin=$npm_dir/node_modules/.bin
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true

if [ ! -d "$npm_dir/node_modules" ]; then
  npm ci --prefix "$npm_dir" --no-audit --no-fund
fi

status=0

echo "== kin-openapi: validate $spec (examples included)"
tmp=$(mktemp -d tools/tmp-speccheck-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/main.go" <<'EOF'
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	doc, err := openapi3.NewLoader().LoadFromFile(os.Args[1])
	if err == nil {
		err = doc.Validate(context.Background(), openapi3.EnableExamplesValidation())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ok")
}
EOF
if ! go run "./$tmp" "$spec"; then
  status=1
fi

echo "== Redocly CLI"
if ! "$bin/redocly" lint "$spec" --format=stylish; then
  status=1
fi
# Redocly exits 0 on warnings: count them from the JSON report.
warnings=$({ "$bin/redocly" lint "$spec" --format=json 2>/dev/null || true; } |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s).totals;console.log(t.errors+t.warnings)})') || warnings=unknown
if [ "$warnings" != 0 ]; then
  echo "Redocly reported problems: $warnings"
  status=1
fi

echo "== Spectral"
if ! "$bin/spectral" lint "$spec" --ruleset .spectral.yaml --fail-severity=warn; then
  status=1
fi

echo "== bounds and formats (gen/spec_test.go TestSchemasBounded)"
if [ "$spec" = "$(realpath "$root/openapi.yaml")" ]; then
  if ! go test -count=1 -run '^TestSchemasBounded$' ./gen; then
    status=1
  fi
else
  echo "skipped: the test reads openapi.yaml"
fi

if [ "$status" -ne 0 ]; then
  echo "lint: FAILED"
else
  echo "lint: OK"
fi
exit "$status"
