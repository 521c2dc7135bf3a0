#!/usr/bin/env bash
# tools/vendor-redoc.sh: vendor Redoc's standalone bundle into internal/docs, where go:embed puts it
# into the binary (GET /docs loads nothing from a CDN). The version and the npm tarball's integrity
# are pinned here; to upgrade, change both (npm view redoc@X dist.integrity) and re-run.
set -euo pipefail
version=2.5.4
integrity=sha512-M6jWhG1qoBnH6TFmzJnstyCZ87HmOY/UzDm78mHiYihEdlV/YcS9ogOo1NlElnJMeLsyxHFe2yFc4sNjHTrABQ==

root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/internal/docs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "redoc@$version" --json --silent >pack.json)
got=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[0].integrity)' "$tmp/pack.json")
if [[ "$got" != "$integrity" ]]; then
  echo "vendor-redoc: integrity of redoc@$version is $got, pinned $integrity" >&2
  exit 1
fi
tar -xzf "$tmp/redoc-$version.tgz" -C "$tmp" package/bundles/redoc.standalone.js package/LICENSE
# The one thing the bundle loads from the network is the "API docs by Redocly" logo in the sidebar
# (cdn.redoc.ly); point it at an empty data: URL instead (the component hides a failed image).
logo='src:"https://cdn.redoc.ly/redoc/logo-mini.svg"'
if [[ $(grep -o "$logo" "$tmp/package/bundles/redoc.standalone.js" | wc -l) -ne 1 ]]; then
  echo "vendor-redoc: expected the logo URL exactly once in the bundle" >&2
  exit 1
fi
sed "s|$logo|src:\"data:,\"|" "$tmp/package/bundles/redoc.standalone.js" >"$dest/redoc.standalone.js"
cp "$tmp/package/LICENSE" "$dest/redoc.LICENSE"
echo "$version" >"$dest/redoc.version"
echo "vendored redoc@$version into ${dest#"$root"/}"
