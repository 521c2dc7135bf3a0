#!/usr/bin/env bash
# cores.sh: `make bench-cores`. Runs bench.sh's read scenarios with the API server limited to
# GOMAXPROCS=1, then 2 (BENCH_CORES), nothing else changed: every concurrency default follows
# GOMAXPROCS (docs/configuration.md, "Tuning"), and the server logs the values it derived. Keeps each
# report in bench/out-cores/ and writes bench/out-cores/cores.md: the derived values, and per scenario
# req/s and the cost of a request at each setting (go run ./bench/growth).
#
#   BENCH_CORES="1 2"         the GOMAXPROCS values (two)
#   BENCH_ONLY=a,b            the scenarios (default: the reads)
# Other BENCH_* settings pass through to bench.sh; BENCH_SERVER_ENV gains GOMAXPROCS.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a CORES <<<"${BENCH_CORES:-1 2}"
[[ ${#CORES[@]} == 2 ]] || { echo "cores.sh: BENCH_CORES takes two values" >&2; exit 2; }
export BENCH_ONLY=${BENCH_ONLY:-feed_home,feed_home_deep,discover,post,user_posts,comments,notifications,search,profile}
export BENCH_WRK=${BENCH_WRK:-0} BENCH_PPROF=${BENCH_PPROF:-0}
DEST=bench/out-cores
mkdir -p "$DEST"
ENV0=${BENCH_SERVER_ENV:-}
for n in "${CORES[@]}"; do
  BENCH_SERVER_ENV="$ENV0 GOMAXPROCS=$n" bench/bench.sh
  cp bench/out/report.json "$DEST/gomaxprocs-$n.json"
  cp bench/out/report.md "$DEST/gomaxprocs-$n.md"
  grep -m1 '"msg":"concurrency"' bench/out/server.log >"$DEST/gomaxprocs-$n.concurrency" || true
done
{
  go run ./bench/growth -target 0 -gen=false -a "GOMAXPROCS=${CORES[0]}" -b "GOMAXPROCS=${CORES[1]}" \
    -title "The same data set served with GOMAXPROCS=${CORES[0]} and ${CORES[1]}" \
    "$DEST/gomaxprocs-${CORES[0]}.json" "$DEST/gomaxprocs-${CORES[1]}.json"
  echo
  echo "Concurrency the server derived (its start-up log line):"
  echo
  for n in "${CORES[@]}"; do echo "- GOMAXPROCS=$n: \`$(cat "$DEST/gomaxprocs-$n.concurrency")\`"; done
} | tee "$DEST/cores.md"
