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
#      the vote back, a second vote refused), the event stream (another member's reaction arrives
#      as a notification event, a comment made while disconnected arrives on resume with
#      Last-Event-ID), follow and unfollow, a 404 and a 422 with typed problem bodies).
#      The TypeScript session validates every response body against the served contract with
#      Ajv + ajv-formats at their defaults (sdk/ts/src/validate.ts).
#   5. The Go session again through `prism proxy --errors` (tools/npm) in front of the server, given
#      openapi.yaml as it is: any request or response that violates it fails the step. Its stream
#      is opened on the server itself (STREAM_BASE_URL): prism passes a response on once it has
#      ended, and a stream does not end.
#   6. GET /docs in headless Chromium, offline: every operation is listed (tools/contract/docs-check.sh).
#
# Beside the two SDKs' generators, the contract is read by tools integrators use and the project
# does not tune (versions pinned here and in tools/npm; listed in docs/integrators.md):
#   - a second validator of the OpenAPI 3.0.3 letter, @apidevtools/swagger-parser;
#   - a second Go generator, ogen: generate a client and server, compile them (go vet);
#   - a second TypeScript generator, @hey-api/openapi-ts: generate a client, compile it with
#     tools/contract/typecheck.ts, which also asserts that every nullable reference is typed
#     "the referenced type or null".
#
# Against a deployment instead of a local server (steps 2 skipped; the session creates and then
# deletes two posts, one with a poll it votes in, toggles one follow twice):
#   BASE_URL=https://api.example.com/api/v1 TOKEN=snw_... OTHER_TOKEN=snw_... [FOLLOW=handle] tools/contract/run.sh
# (OTHER_TOKEN: a write token of another member, who reacts to and comments on the session's post
# for the stream step.)
# CONTRACT_SPEC=file reads another contract than openapi.yaml in the steps above that read one
# (to see a gate fail). The bounds and formats of every schema are checked by gen/spec_test.go
# (TestSchemasBounded, run by tools/lint.sh and make test).
# Every step prints its duration; the last line is "contract: N passed, N failed".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$root/.data/contract
mkdir -p "$work"
spec=$(realpath "${CONTRACT_SPEC:-$root/openapi.yaml}")
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
}

# The OpenAPI 3.0.3 letter, read by a validator independent of kin-openapi, Redocly and Spectral.
swagger_parser() {
  (cd tools/npm && node --input-type=module -e '
    import SwaggerParser from "@apidevtools/swagger-parser";
    const api = await SwaggerParser.validate(process.argv[1]);
    console.log(`swagger-parser: OpenAPI ${api.openapi} valid, ${Object.keys(api.paths).length} paths`);
  ' "$spec")
}

# ogen, pinned here: generate, then compile in a scratch module. ogen implements a nullable
# reference (oneOf of a schema and null) only in OpenAPI 3.1's spelling (`type: "null"`), not in
# 3.0's (`nullable: true`, `enum: [null]`), and says so ("discriminator inference" not
# implemented); its documented option ignore_not_implemented skips exactly those operations. The
# step fails if ogen skips any other operation, or for any other reason.
ogen_version=v1.24.0
ogen_skips=12
ogen() {
  local dir=$work/ogen
  rm -rf "$dir"; mkdir -p "$dir"
  printf 'generator:\n  ignore_not_implemented: ["discriminator inference"]\n' >"$dir/ogen.yml"
  go run "github.com/ogen-go/ogen/cmd/ogen@$ogen_version" -config "$dir/ogen.yml" -target "$dir/api" -package api \
    -clean "$spec" >"$dir/ogen.log" 2>&1 || { tail -n 30 "$dir/ogen.log"; return 1; }
  local skipped others
  skipped=$(grep -c 'Skipping operation' "$dir/ogen.log" || true)
  others=$(grep 'Skipping' "$dir/ogen.log" | grep -vc 'discriminator inference not implemented' || true)
  if ((skipped != ogen_skips || others != 0)); then
    grep 'Skipping' "$dir/ogen.log"
    echo "ogen skipped $skipped operations, want $ogen_skips, each for a nullable reference"
    return 1
  fi
  printf 'module ogencheck\n\ngo 1.26\n' >"$dir/go.mod"
  (cd "$dir" && go get "github.com/ogen-go/ogen@$ogen_version" && go mod tidy && go vet ./...) || return 1
  echo "ogen $ogen_version: client and server generated and compiled ($skipped operations skipped: nullable references)"
}

# @hey-api/openapi-ts (tools/npm): generate a client, compile it with the nullable-reference checks.
hey_api() {
  local dir=$work/hey-api
  rm -rf "$dir"; mkdir -p "$dir"
  tools/npm/node_modules/.bin/openapi-ts -i "$spec" -o "$dir/client" >"$dir/generate.log" 2>&1 ||
    { cat "$dir/generate.log"; return 1; }
  cp tools/contract/typecheck.ts tools/contract/typecheck.tsconfig.json "$dir/"
  tools/npm/node_modules/.bin/tsc -p "$dir/typecheck.tsconfig.json" || return 1
  echo "@hey-api/openapi-ts: client generated and compiled; nullable references typed as the referenced type or null"
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
  tools/npm/node_modules/.bin/prism proxy --errors -h 127.0.0.1 -p "$port" "$spec" "$upstream" \
    >"$work/prism.log" 2>&1 &
  echo $! >"$work/prism.pid"
  wait_for 60 grep -q "Prism is listening" "$work/prism.log"
  local status=0
  BASE_URL=http://127.0.0.1:$port STREAM_BASE_URL=$upstream "$work/go-session" || status=1
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
step "contract tools (tools/npm)" tools_npm
step "second OpenAPI validator (@apidevtools/swagger-parser)" swagger_parser
step "second Go generator (ogen $ogen_version): generate, compile" ogen
step "second TypeScript generator (@hey-api/openapi-ts): generate, compile" hey_api

if [[ -n "${BASE_URL:-}" ]]; then
  BASE_URL_GIVEN=1
  : "${TOKEN:?TOKEN: a write token of a member of that deployment}"
  : "${OTHER_TOKEN:?OTHER_TOKEN: a write token of another member of that deployment}"
  base=${BASE_URL%/}
else
  step "live server on a fresh database" serve
  base=$(cat "$work/base_url")
  export TOKEN=snw_demoAliceWrite000000000000000000000000000004PZ6uC FOLLOW=bob
  export OTHER_TOKEN=snw_demoBobWrite00000000000000000000000000000002qO0JZ
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
