#!/usr/bin/env bash
# ab.sh: `make bench-ab`. A paired A/B of two API servers on the same data set, the way
# docs/performance.md asks a change to be compared on this shared machine: a throwaway first run
# (the first run after the data set is made is slow for whichever server it serves), then pairs in
# the order new old, old new, new old, … (each side first as often as second), every run a full
# bench.sh with BENCH_SERVER_BIN. Keeps each report in bench/out-ab/ (NN-SIDE.json) and writes
# bench/out-ab/ab.md (go run ./bench/ab): per scenario the new ÷ old ratio of each pair, their mean
# with a 95 % confidence interval, the spread of neighbouring runs of one side, and the verdict.
#
#   BENCH_AB_OLD=rev|path     the baseline: a git revision, built here in a temporary worktree, or
#                             a built server binary (default: HEAD)
#   BENCH_AB_NEW=path         the candidate binary (default: this tree, built)
#   BENCH_AB_PAIRS=6          pairs (three leave most intervals wide on this machine)
#   BENCH_AB_WITHIN=a/b       also compare scenario a with scenario b inside each run
#                             (e.g. mix_streams/mix)
#   BENCH_ONLY=a,b            the scenarios (default: feed_home,post,mix)
# Other BENCH_* settings pass through to bench.sh; BENCH_WRK, BENCH_PPROF and BENCH_CHECK default to 0.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PAIRS=${BENCH_AB_PAIRS:-6}
DEST=bench/out-ab
export BENCH_ONLY=${BENCH_ONLY:-feed_home,post,mix}
export BENCH_WRK=${BENCH_WRK:-0} BENCH_PPROF=${BENCH_PPROF:-0} BENCH_CHECK=${BENCH_CHECK:-0}
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] || { echo "ab.sh: BENCH_AB_PAIRS takes a positive count" >&2; exit 2; }

work=$(mktemp -d)
cleanup() {
  [[ -d "$work/old" ]] && git worktree remove --force "$work/old" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

old=${BENCH_AB_OLD:-HEAD}
if [[ -f "$old" && -x "$old" ]]; then
  cp "$old" "$work/old.bin"
else
  rev=$(git rev-parse --verify "$old^{commit}") || { echo "ab.sh: BENCH_AB_OLD=$old is neither a binary nor a revision" >&2; exit 2; }
  git worktree add --detach -q "$work/old" "$rev"
  (cd "$work/old" && "$GO" build -o "$work/old.bin" .)
fi
if [[ -n "${BENCH_AB_NEW:-}" ]]; then
  cp "$BENCH_AB_NEW" "$work/new.bin"
else
  "$GO" build -o "$work/new.bin" .
fi

rm -rf "$DEST"
mkdir -p "$DEST"
order=(warm)
for ((k = 0; k < PAIRS; k++)); do
  if ((k % 2 == 0)); then order+=(new old); else order+=(old new); fi
done
n=0
for side in "${order[@]}"; do
  n=$((n + 1))
  bin=$work/$side.bin
  [[ $side == warm ]] && bin=$work/new.bin
  printf 'ab: run %d of %d (%s)\n' "$n" "${#order[@]}" "$side" >&2
  BENCH_SERVER_BIN=$bin bench/bench.sh >"$DEST/$(printf %02d "$n")-$side.log" 2>&1 ||
    { echo "ab: run $n failed: $DEST/$(printf %02d "$n")-$side.log" >&2; exit 1; }
  cp bench/out/report.json "$DEST/$(printf %02d "$n")-$side.json"
done
"$GO" run ./bench/ab ${BENCH_AB_WITHIN:+-within "$BENCH_AB_WITHIN"} "$DEST" | tee "$DEST/ab.md"
