#!/usr/bin/env bash
# growth.sh: `make bench-growth`. Runs bench.sh on the default data set and on a larger one
# (BENCH_GROWTH_SCALE, default 3x: three times the members, follows, posts, reactions and comments),
# the same scenarios on each, keeps both reports in bench/out-growth/ and writes the comparison
# bench/out-growth/growth.md (go run ./bench/growth): per request, PostgreSQL time, buffers and CPU at
# each size, and the ratio, a read above 1.25x marked.
#
#   BENCH_GROWTH_SCALE=3x     the larger data set (2x to 20x)
#   BENCH_ONLY=a,b            the scenarios (default: the home feed, its deep page, single post, search,
#                             create post and the mix)
# Other BENCH_* settings pass through to bench.sh (BENCH_SERVER_BIN, BENCH_PG_PORT, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
BIG=${BENCH_GROWTH_SCALE:-3x}
export BENCH_ONLY=${BENCH_ONLY:-feed_home,feed_home_deep,post,search,create_post,mix}
export BENCH_WRK=${BENCH_WRK:-0} BENCH_PPROF=${BENCH_PPROF:-0}
DEST=bench/out-growth
mkdir -p "$DEST"
for scale in default "$BIG"; do
  BENCH_SCALE=$scale bench/bench.sh
  cp bench/out/report.json "$DEST/$scale.json"
  cp bench/out/report.md "$DEST/$scale.md"
done
go run ./bench/growth "$DEST/default.json" "$DEST/$BIG.json" | tee "$DEST/growth.md"
