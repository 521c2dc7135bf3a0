#!/usr/bin/env bash
# tools/contract/docs-check.sh BASE: load BASE/docs in headless Chromium with every host name but
# BASE's own (and 127.0.0.1/localhost) unresolvable, so nothing can come from a CDN, and check that
# the rendered page lists every operation of the served contract (its operationId anchor and its
# summary) and that nothing was blocked or failed to load.
set -euo pipefail
base=${1:?BASE (e.g. http://127.0.0.1:8080)}
here=$(cd "$(dirname "$0")" && pwd)
"$here/../../scripts/need.sh" chromium chromium
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsS "$base/api/v1/openapi.json" -o "$tmp/spec.json"
host=$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$base")
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
  --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE $host" \
  --virtual-time-budget=20000 --enable-logging=stderr --v=0 \
  --dump-dom "$base/docs" >"$tmp/dom.html" 2>"$tmp/chromium.log" || {
  grep -v dbus "$tmp/chromium.log" | tail -n 20 >&2; echo "docs: chromium failed" >&2; exit 1; }
node "$here/docs-check.mjs" "$tmp/dom.html" "$tmp/spec.json" "$tmp/chromium.log"
