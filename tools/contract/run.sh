#!/usr/bin/env bash
# tools/contract/run.sh (make contract): prove that what integrators do with openapi.yaml works.
#
#   1. SDK drift: sdk/go (oapi-codegen, client mode) and sdk/ts/src/schema.ts (openapi-typescript)
#      are regenerated from openapi.yaml into a scratch dir and must equal the committed files;
#      both SDKs and their session programs must build (go vet, tsc).
#   2. A live server: a fresh PostgreSQL cluster (scripts/localpg.sh, .data/pgcontract), migrated,
#      seeded with the demo data (`socialapi seed`), `socialapi serve` on a free loopback port.
#   3. The Go SDK session and 4. the TypeScript SDK session against it (index, /me, create a post,
#      read it and get a 304, page the feed to the end, react, comment, a poll (publish, vote, read
#      the vote back, a second vote refused), follow and unfollow, a 404
#      and a 422 with typed problem bodies).
#   5. The Go session again through `prism proxy --errors` (tools/npm) in front of the server: any
#      request or response that violates openapi.yaml fails it.
#   6. GET /docs in headless Chromium, offline: every operation is listed (tools/contract/docs-check.sh).
#
# Against a deployment instead of a local server (steps 2 skipped; the session creates and then
# deletes two posts, one with a poll it votes in, toggles one follow twice):
#   BASE_URL=https://api.example.com/api/v1 TOKEN=snw_... [FOLLOW=handle] tools/contract/run.sh
# CONTRACT_SPEC=file gives Prism another contract than openapi.yaml (to see the gate fail).
# Every step prints its duration; the last line is "contract: N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$root/.data/contract
mkdir -p "$work"
spec=${CONTRACT_SPEC:-$root/openapi.yaml}
export REDOCLY_TELEMETRY=off
failed_steps=()
total_passed=0
total_failed=0

# Steps run in subshells (their output is teed), so background processes are tracked in pid files.
cleanup() {
  local f
  for f in "$work"/*.pid; do
    [[ -f "$f" ]] && kill "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
  done
  if [[ -z "${BASE_URL_GIVEN:-}" ]]; then scripts/localpg.sh stop "$work/pg" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

step() {
  local name=$1; shift
  local start=$SECONDS
  echo "--> $name"
  if "$@" 2>&1 | tee "$work/step.log"; then
    echo "<-- $name: ok ($((SECONDS - start))s)"
  else
    echo "<-- $name: FAILED ($((SECONDS - start))s)"
    failed_steps+=("$name")
  fi
  # Count the checks of the session programs ("<name>: N passed, N failed").
  local line
  line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed$' "$work/step.log" | tail -n 1 || true)
  if [[ -n "$line" ]]; then
    total_passed=$((total_passed + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
    total_failed=$((total_failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")))
  fi
}

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

wait_for() { # SECONDS COMMAND...: until COMMAND succeeds
  local i limit=$(($1 * 4)); shift
  for ((i = 0; i < limit; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.25
  done
  echo "timed out waiting for: $*" >&2
  return 1
}

# ---------------------------------------------------------------- 1. SDKs
sdk_go() {
  local tmp=$work/sdk-go
  rm -rf "$tmp"; mkdir -p "$tmp"
  sed "s|^output: .*|output: $tmp/socialapi.gen.go|" sdk/go/oapi-codegen.yaml >"$tmp/config.yaml"
  go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config "$tmp/config.yaml" openapi.yaml
  if ! cmp -s "$tmp/socialapi.gen.go" sdk/go/socialapi.gen.go; then
    diff -u sdk/go/socialapi.gen.go "$tmp/socialapi.gen.go" | head -n 40
    echo "sdk/go/socialapi.gen.go is stale: run make sdk"
    return 1
  fi
  echo "sdk/go/socialapi.gen.go matches openapi.yaml"
  (cd sdk/go && go vet ./... && go build -o "$work/go-session" ./session)
}

sdk_ts() {
  (cd sdk/ts && { [[ -d node_modules ]] || npm ci --no-audit --no-fund --loglevel=error; } &&
    npm run -s check-generate && npx --no-install tsc -p tsconfig.json && echo "sdk/ts compiles")
}

tools_npm() {
  [[ -d tools/npm/node_modules ]] || npm ci --prefix tools/npm --no-audit --no-fund --loglevel=error
  go run ./tools/contract/prismspec "$spec" >"$work/openapi.prism.json"
}

# ---------------------------------------------------------------- 2. server
serve() {
  local pgport=54337
  scripts/localpg.sh stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work/pg"
  scripts/localpg.sh start "$work/pg" "$pgport" fast
  scripts/localpg.sh createdb "$pgport" contract
  go build -o "$work/socialapi" .
  local db port
  db=$(scripts/localpg.sh url "$pgport" contract)
  port=$(free_port)
  DATABASE_URL=$db "$work/socialapi" migrate >/dev/null
  DATABASE_URL=$db "$work/socialapi" seed
  DATABASE_URL=$db ADDR=127.0.0.1:$port PUBLIC_URL=http://127.0.0.1:$port METRICS_ADDR=off \
    RATE_LIMIT_READ=2000 RATE_LIMIT_WRITE=1000 "$work/socialapi" serve >"$work/server.log" 2>&1 &
  echo $! >"$work/server.pid"
  echo "http://127.0.0.1:$port/api/v1" >"$work/base_url"
  wait_for 30 curl -fs "http://127.0.0.1:$port/healthz"
  echo "serving on 127.0.0.1:$port (log: ${work#"$root"/}/server.log)"
}

prism_session() {
  local port upstream=$1
  port=$(free_port)
  tools/npm/node_modules/.bin/prism proxy --errors -h 127.0.0.1 -p "$port" "$work/openapi.prism.json" "$upstream" \
    >"$work/prism.log" 2>&1 &
  echo $! >"$work/prism.pid"
  wait_for 60 grep -q "Prism is listening" "$work/prism.log"
  local status=0
  BASE_URL=http://127.0.0.1:$port "$work/go-session" || status=1
  kill "$(cat "$work/prism.pid")" 2>/dev/null || true
  rm -f "$work/prism.pid"
  if grep -E 'Violation|VIOLATIONS|✖' "$work/prism.log"; then
    echo "prism: the contract was violated (above; full log: ${work#"$root"/}/prism.log)"
    status=1
  fi
  return $status
}

# ---------------------------------------------------------------- run
step "Go SDK: regenerate and compare, vet, build" sdk_go
step "TypeScript SDK: openapi-typescript --check, tsc" sdk_ts
step "contract tools (Prism) and Prism's view of the spec" tools_npm

if [[ -n "${BASE_URL:-}" ]]; then
  BASE_URL_GIVEN=1
  : "${TOKEN:?TOKEN: a write token of a member of that deployment}"
  base=${BASE_URL%/}
else
  step "live server on a fresh database" serve
  base=$(cat "$work/base_url")
  export TOKEN=snw_demoAliceWrite000000000000000000000000000004PZ6uC FOLLOW=bob
fi

if ((${#failed_steps[@]} == 0)); then
  step "Go SDK session" env BASE_URL="$base" "$work/go-session"
  step "TypeScript SDK session" env BASE_URL="$base" node sdk/ts/dist/session.js
  step "Go SDK session through prism proxy --errors" prism_session "$base"
  step "reference docs in headless Chromium" tools/contract/docs-check.sh "${base%/api/v1}"
fi

if ((${#failed_steps[@]} > 0)); then
  echo "contract: failed steps: ${failed_steps[*]}"
  total_failed=$((total_failed + ${#failed_steps[@]}))
fi
echo "contract: $total_passed passed, $total_failed failed"
((${#failed_steps[@]} == 0))
