#!/usr/bin/env bash
# tools/breaking.sh [baseline] [spec]: fail when spec (default openapi.yaml) breaks clients of the
# baseline (default: the committed contract of the last release, api/baseline/openapi.yaml),
# unless info.version's major part changed. oasdiff is pinned in tools/go/go.mod and built once
# into tools/go/bin. api/breaking-ignore.txt lists the changes oasdiff calls breaking that break no
# client, each with why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=$(realpath "${1:-$root/api/baseline/openapi.yaml}")
spec=$(realpath "${2:-$root/openapi.yaml}")
bin=$root/tools/go/bin/oasdiff
if [[ ! -x "$bin" ]]; then
  echo "building oasdiff (pinned in tools/go/go.mod; once)..." >&2
  (cd "$root/tools/go" && go build -o bin/oasdiff github.com/oasdiff/oasdiff)
fi
major() { sed -n 's/^  version: *["'\'']*\([0-9]*\)\..*/\1/p' "$1" | head -n 1; }
if [[ "$(major "$base")" != "$(major "$spec")" ]]; then
  echo "breaking-change check: major version changed ($(major "$base") -> $(major "$spec")); breaking changes allowed"
  exit 0
fi
echo "== oasdiff breaking $(basename "$base") -> $(basename "$spec")"
"$bin" breaking "$base" "$spec" --fail-on ERR --err-ignore "$root/api/breaking-ignore.txt"
echo "breaking-change check: OK"
