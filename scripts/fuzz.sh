#!/usr/bin/env bash
# fuzz.sh: run every `go test -fuzz` target of the module for a bounded time each.
#
#   scripts/fuzz.sh [FUZZTIME]     FUZZTIME defaults to $FUZZTIME or 10s
#
# Targets are found by their declaration (func FuzzXxx(f *testing.F)) in *_test.go files. Inputs
# that crash a target are written to that package's testdata/fuzz/FuzzXxx/ by Go: commit them, and
# they run as regression tests in every `go test`. Targets that reach the API need PostgreSQL
# (TEST_DATABASE_URL, provided by `make fuzz`).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-${FUZZTIME:-10s}}
go=${GO:-go}
passed=0; failed=0; failures=()
while IFS=: read -r file _ decl; do
  name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"$decl")
  pkg=./$(dirname "$file")
  echo "==> $name ($pkg, $fuzztime)"
  if $go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failures+=("$pkg $name")
  fi
done < <(grep -rnE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' --exclude-dir=.data --exclude-dir=node_modules . | sed 's|^\./||' | sort)
echo "fuzz: $passed passed, $failed failed"
for f in "${failures[@]}"; do echo "  FAILED: $f"; done
[[ $failed -eq 0 ]]
