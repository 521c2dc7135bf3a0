#!/usr/bin/env bash
# bench.sh: `make bench`. Provisions its own PostgreSQL (scripts/localpg.sh, .data/pgbench, port 54350),
# generates the synthetic data set once per scale and seed (kept as a template database and reused while
# the migrations and the generator are unchanged), clones it for the run, starts the API server with rate
# limits raised by configuration, the bare Echo ceiling server and (default scale) a profiling copy, then
# runs bench/driver, which drives everything with vegeta on loopback and writes bench/out/report.{md,json}
# and one SVG chart per scenario. Everything it starts is stopped on exit.
#
#   BENCH_SCALE=default|small|3x|N  data set (default: default); small also fails on unexpected statuses; 3x (2x-20x)
#                                 multiplies every count of default and runs as long as default
#   BENCH_SEED=1                  generator seed (it also derives every member's tokens)
#   BENCH_PPROF=0|1               profile the feed (default: 1 at default scale, 0 otherwise)
#   BENCH_PPROF_SCENARIO=name     profile this scenario instead of feed_home
#   BENCH_WRK=0|1                 a second opinion from wrk on the ceiling and the main reads (default: 1 at default scale)
#   BENCH_CHECK=0|1               run `socialapi check` on the database after the load (default 1)
#   BENCH_ONLY=a,b                only these scenarios, in this order
#   BENCH_AUTOVACUUM=0|1          let autovacuum run during the measurements (default 0: paused while the driver
#                                 runs, the tables a run changed vacuumed and analysed before each measurement)
#   BENCH_KEEP_PG=1               leave the benchmark PostgreSQL running (and its standby, with BENCH_REPLICA=1)
#   BENCH_REPLICA=0|1             one read replica (default 0): a streaming hot standby of the benchmark cluster
#                                 (.data/pgbench-standby, port BENCH_PG_PORT + 1, made afresh with pg_basebackup each
#                                 run, with the primary's settings and as much memory again), which the API server
#                                 reads from (DATABASE_REPLICA_URLS); the primary then runs with wal_level = replica.
#                                 The report adds "Primary and replica": each run's CPU and statements on both and
#                                 the reads routed to the replica. Both clusters share this machine: it shows the
#                                 routing, not what a replica adds to capacity
#   BENCH_HUGE_PAGES=0|1          PostgreSQL on huge pages, reserved when run as root (default 1; see below)
#   BENCH_DB_PARAMS=k=v&...       extra DATABASE_URL parameters for the server (e.g. binary_parameters=yes)
#   BENCH_TRIM_INTERVAL=5s        the API server's TIMELINE_TRIM_INTERVAL (default 5s: trims land in the write runs)
#   BENCH_SERVER_ENV="K=v ..."    extra environment for the API server only (e.g. VIEWS_FLUSH_INTERVAL=1s DB_COALESCE_SLOTS=0)
#   BENCH_SERVER_BIN=path         serve the API from this prebuilt binary (e.g. the last commit's, for a paired A/B);
#                                 the data set, ceilings and driver still come from this tree
#   BENCH_PG_PORT, BENCH_API_PORT override the ports (54350, 18080; 18081-18084 follow the API port: 18084 is
#                                 the API server's metrics listener, which the mix_streams scenario reads)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SCALE=${BENCH_SCALE:-default}
SEED=${BENCH_SEED:-1}
PGDIR=.data/pgbench
PGPORT=${BENCH_PG_PORT:-54350}
REPLICA=${BENCH_REPLICA:-0}
SBDIR=.data/pgbench-standby
SBPORT=$((PGPORT + 1))
SLOT=standby_$SBPORT   # scripts/localpg.sh standby's replication slot
APIPORT=${BENCH_API_PORT:-18080}
HELLOPORT=$((APIPORT + 1)); PPROFPORT=$((APIPORT + 2)); DEBUGPORT=$((APIPORT + 3)); METRICSPORT=$((APIPORT + 4))
OUT=bench/out
BIN=bench/bin
GO=${GO:-go}
case "$SCALE" in
  small) WARMUP=1s; CLOSED=2s; OPEN=2s; PGB_TIME=3s; PGB_SCALE=10; DEEP=60; FAIL=--fail-on-errors; PPROF=${BENCH_PPROF:-0}; WRK=${BENCH_WRK:-0} ;;
  default) WARMUP=3s; MIXWARMUP=25s; CLOSED=10s; OPEN=10s; PGB_TIME=12s; PGB_SCALE=50; DEEP=300; FAIL=${BENCH_FAIL:-}; PPROF=${BENCH_PPROF:-1}; WRK=${BENCH_WRK:-1} ;;
  [0-9]*x) WARMUP=3s; MIXWARMUP=25s; CLOSED=10s; OPEN=10s; PGB_TIME=12s; PGB_SCALE=50; DEEP=300; FAIL=${BENCH_FAIL:-}; PPROF=${BENCH_PPROF:-0}; WRK=${BENCH_WRK:-0} ;;
  *) WARMUP=2s; CLOSED=6s; OPEN=6s; PGB_TIME=8s; PGB_SCALE=20; DEEP=200; FAIL=${BENCH_FAIL:-}; PPROF=${BENCH_PPROF:-0}; WRK=${BENCH_WRK:-0} ;;
esac

log() { printf 'bench: %s\n' "$*" >&2; }
t0=$SECONDS

# 1. Binaries (vegeta is pinned in bench/tools/go.mod and built once).
mkdir -p "$BIN" "$OUT"
rm -rf "${OUT:?}"/*
log "building"
if [[ -n "${BENCH_SERVER_BIN:-}" ]]; then
  cp "$BENCH_SERVER_BIN" "$BIN/socialapi.under-test"   # the API server measured (an A/B's other side)
else
  "$GO" build -o "$BIN/socialapi.under-test" .
fi
"$GO" build -o "$BIN/socialapi" .
"$GO" build -o "$BIN/hello" ./bench/hello
"$GO" build -o "$BIN/socialbench" ./bench/driver
[[ "$PPROF" == 1 ]] && "$GO" build -o "$BIN/pprofserve" ./bench/pprofserve
if [[ ! -x "$BIN/vegeta" || bench/tools/go.mod -nt "$BIN/vegeta" || bench/tools/go.sum -nt "$BIN/vegeta" ]]; then
  log "building vegeta (pinned in bench/tools/go.mod; once)"
  (cd bench/tools && "$GO" build -o "$ROOT/$BIN/vegeta" github.com/tsenart/vegeta/v12)
fi

# wrk (Debian's package) for the second opinion on the ceiling and the main reads (bench/driver/wrk.go);
# installed with apt-get when missing and possible, else left out (the report says so).
WRKBIN=""
if [[ "$WRK" == 1 ]]; then
  if ! command -v wrk >/dev/null && command -v apt-get >/dev/null && [[ $(id -u) -eq 0 ]]; then
    log "installing wrk with apt-get (once)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >&2 \
      || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wrk >&2; } \
      || log "could not install wrk: the report has no second opinion"
  fi
  WRKBIN=$(command -v wrk || true)
  [[ -n "$WRKBIN" ]] && log "wrk: $(dpkg-query -W -f '${Version}' wrk 2>/dev/null || echo "$WRKBIN")"
fi

# 2. PostgreSQL: its own cluster, tuned on every run (pg_stat_statements, memory, WAL), restarted when a
# setting needs it.
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [[ -z "${BENCH_KEEP_PG:-}" ]]; then
    drop_standby
    scripts/localpg.sh stop "$PGDIR"
  fi
}
# The standby is made afresh every run (it cannot follow the primary through a run at wal_level = minimal)
# and removed with its replication slot: a slot keeps WAL on the primary, and a physical slot stops a
# cluster at wal_level = minimal from starting.
drop_standby() {
  scripts/localpg.sh stop "$SBDIR"
  psql -h 127.0.0.1 -p "$PGPORT" -U postgres -qAt -d postgres \
    -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" >/dev/null 2>&1 || true
  rm -rf "$SBDIR"
}
trap cleanup EXIT
scripts/localpg.sh start "$PGDIR" "$PGPORT"
PSQL=(psql -h 127.0.0.1 -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
drop_standby   # one left by BENCH_KEEP_PG or an interrupted run
# A standby needs the primary's WAL to describe every change (wal_level = replica) and a WAL sender;
# without one, minimal WAL (bulk loads and CREATE INDEX skip it), as before.
WAL=("wal_level = 'minimal'" "max_wal_senders = 0")
[[ "$REPLICA" == 1 ]] && WAL=("wal_level = 'replica'" "max_wal_senders = 4")
# shared_buffers: a quarter of the machine's memory (PostgreSQL's usual advice for a dedicated server; 6 GiB
# on a 24 GiB machine), so the default data set (about 3 GB) stays in PostgreSQL's own cache, as a
# long-running server's working set would; BENCH_SHARED_BUFFERS overrides it (e.g. 2GB).
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-$(( mem_mb / 4 < 1024 ? 1024 : mem_mb / 4 ))MB}
for kv in "shared_buffers = '$SHARED_BUFFERS'" "effective_cache_size = '$(( mem_mb * 3 / 4 ))MB'" "work_mem = '16MB'" \
          "maintenance_work_mem = '1GB'" "max_wal_size = '8GB'" "checkpoint_timeout = '15min'" "${WAL[@]}" \
          "random_page_cost = 1.1" "effective_io_concurrency = 200" "track_io_timing = on" \
          "shared_preload_libraries = 'pg_stat_statements'"; do
  "${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET $kv"
done
"${PSQL[@]}" -d postgres -c "SELECT pg_reload_conf()" >/dev/null
if [[ "$("${PSQL[@]}" -d postgres -c "SELECT count(*) FROM pg_settings WHERE pending_restart")" != 0 ]]; then
  log "restarting the benchmark cluster for its settings (shared_buffers $SHARED_BUFFERS)"
  scripts/localpg.sh stop "$PGDIR"
  scripts/localpg.sh start "$PGDIR" "$PGPORT"
fi
# Huge pages: on this VM a page fault is expensive, and every backend faults in each 4 KiB page of
# shared_buffers it touches, so fresh connections ran pgbench -S at c=16 at ~4-6k tps, rising slowly as
# they warmed; on 2 MiB pages the same run gave 18-22k. PostgreSQL's docs recommend huge pages for a
# large shared_buffers; the cluster takes them by itself (huge_pages = try) once the kernel has them
# reserved, which needs root. BENCH_HUGE_PAGES=0 runs without them; the report says which it was.
if [[ "${BENCH_HUGE_PAGES:-1}" == 1 ]]; then
  if ! scripts/localpg.sh onhuge "$PGDIR"; then
    "${PSQL[@]}" -d postgres -c "ALTER SYSTEM RESET huge_pages"
    scripts/localpg.sh stop "$PGDIR"
    log "huge pages: $(scripts/localpg.sh hugepages "$PGDIR" 2>&1)"
    scripts/localpg.sh start "$PGDIR" "$PGPORT"
  fi
elif scripts/localpg.sh onhuge "$PGDIR"; then
  "${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET huge_pages = off"
  scripts/localpg.sh stop "$PGDIR"
  scripts/localpg.sh start "$PGDIR" "$PGPORT"
fi
HUGE=no
scripts/localpg.sh onhuge "$PGDIR" && HUGE=yes
log "PostgreSQL shared memory on huge pages: $HUGE"
# Planning counted too, so the report shows statements that PostgreSQL plans on every execution.
"${PSQL[@]}" -d postgres -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" -c "SELECT pg_reload_conf()" >/dev/null
url() { scripts/localpg.sh url "$PGPORT" "$1"; }
exists() { [[ "$("${PSQL[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$1'")" == 1 ]]; }

# 3. The data set: generated once per scale, seed, schema and generator, kept as a template.
TEMPLATE="synth_${SCALE}_s${SEED}"
RUNDB="bench_${SCALE}"
stamp=$(cat db/migrations/*.sql $(ls internal/synth/*.go | grep -v _test.go) | sha256sum | cut -c1-16)
STAMPFILE="$PGDIR/$TEMPLATE.stamp"
if exists "$TEMPLATE" && [[ -f "$STAMPFILE" && "$(head -n1 "$STAMPFILE")" == "$stamp" ]]; then
  GENERATED=$(tail -n1 "$STAMPFILE")
  log "reusing data set $TEMPLATE ($GENERATED)"
else
  log "generating the $SCALE data set (seed $SEED)"
  "${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $TEMPLATE WITH (FORCE)"
  "${PSQL[@]}" -d postgres -c "CREATE DATABASE $TEMPLATE"
  DATABASE_URL=$(url "$TEMPLATE") "$BIN/socialapi" migrate >/dev/null
  g0=$SECONDS
  summary=$(DATABASE_URL=$(url "$TEMPLATE") "$BIN/socialapi" generate --scale "$SCALE" --seed "$SEED")
  GENERATED="generated by \`socialapi generate --scale $SCALE --seed $SEED\` in $((SECONDS - g0)) s on this machine (${summary#generated in *: })"
  log "$summary"
  DATABASE_URL=$(url "$TEMPLATE") "$BIN/socialapi" check >&2
  printf '%s\n%s\n' "$stamp" "$GENERATED" >"$STAMPFILE"
fi
log "cloning $TEMPLATE into $RUNDB"
"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $RUNDB WITH (FORCE)"
# The standby, made before the clone so that its base backup does not copy the last run's database: it
# replays the clone (and everything after) from the WAL. It inherits the primary's settings
# (postgresql.auto.conf: shared_buffers, pg_stat_statements with track_planning, huge_pages) and takes
# huge pages the same way.
SBHUGE=no
if [[ "$REPLICA" == 1 ]]; then
  "${PSQL[@]}" -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"   # replayed: the driver reads it there
  log "starting a streaming standby in $SBDIR on port $SBPORT (pg_basebackup of the benchmark cluster)"
  b0=$SECONDS
  scripts/localpg.sh standby "$PGPORT" "$SBDIR" "$SBPORT"
  log "standby made in $((SECONDS - b0)) s"
  if [[ "$HUGE" == yes ]] && ! scripts/localpg.sh onhuge "$SBDIR"; then
    scripts/localpg.sh stop "$SBDIR"
    log "standby huge pages: $(scripts/localpg.sh hugepages "$SBDIR" 2>&1)"
    scripts/localpg.sh standby "$PGPORT" "$SBDIR" "$SBPORT"
  fi
  scripts/localpg.sh onhuge "$SBDIR" && SBHUGE=yes
  log "standby shared memory on huge pages: $SBHUGE"
fi
"${PSQL[@]}" -d postgres -c "CREATE DATABASE $RUNDB TEMPLATE $TEMPLATE STRATEGY FILE_COPY"
# Warm: the run database is a fresh copy, so without this the first scenarios would read it from the
# operating system's cache (or disk) while later ones find it in shared_buffers. A server that has been
# up a while has its working set cached; pg_prewarm loads the whole copy when it fits in a bit over
# half of shared_buffers, and the report says whether it did.
PREWARMED=no
# Every table, index and TOAST table of the run database, into shared_buffers (the standby's too, below).
PREWARM_SQL="SELECT sum(pg_prewarm(c.oid)) FROM pg_class c WHERE c.relkind IN ('r', 'i', 't', 'm') AND c.relpersistence = 'p' AND pg_relation_size(c.oid) > 0 AND c.relnamespace IN ('public'::regnamespace, 'pg_toast'::regnamespace)"
db_mb=$("${PSQL[@]}" -d postgres -c "SELECT pg_database_size('$RUNDB') / 1048576")
sb_mb=$("${PSQL[@]}" -d postgres -c "SELECT setting::bigint * 8 / 1024 FROM pg_settings WHERE name = 'shared_buffers'")
if (( db_mb * 10 < sb_mb * 6 )); then
  w0=$SECONDS
  "${PSQL[@]}" -d "$RUNDB" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" \
    -c "$PREWARM_SQL" >/dev/null
  PREWARMED="yes ($db_mb MB in $((SECONDS - w0)) s, shared_buffers $sb_mb MB)"
else
  PREWARMED="no ($db_mb MB does not fit in shared_buffers $sb_mb MB)"
fi
log "prewarmed: $PREWARMED"
# The standby must have replayed the clone before the server starts reading it: wait for the primary's
# WAL position after it (and after the prewarm), then load the copy into its cache as the primary's.
if [[ "$REPLICA" == 1 ]]; then
  SBPSQL=(psql -h 127.0.0.1 -p "$SBPORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
  lsn=$("${PSQL[@]}" -d postgres -c "SELECT pg_current_wal_lsn()")
  r0=$SECONDS
  until [[ "$("${SBPSQL[@]}" -d postgres -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn AND EXISTS (SELECT 1 FROM pg_database WHERE datname = '$RUNDB')" 2>/dev/null)" == t ]]; do
    (( SECONDS - r0 < 600 )) || { tail -n 20 "$SBDIR/server.log" >&2; log "the standby has not replayed $RUNDB in 10 minutes"; exit 1; }
    sleep 0.2
  done
  log "standby: $RUNDB replayed in $((SECONDS - r0)) s"
  SBPREWARMED=no
  if [[ "$PREWARMED" == yes* ]]; then
    w0=$SECONDS
    "${SBPSQL[@]}" -d "$RUNDB" \
      -c "$PREWARM_SQL" >/dev/null
    SBPREWARMED="yes, in $((SECONDS - w0)) s"
  fi
fi
PGBDB="pgbench_s$PGB_SCALE"
if ! exists "$PGBDB"; then
  log "initialising $PGBDB (pgbench -i -s $PGB_SCALE)"
  "${PSQL[@]}" -d postgres -c "CREATE DATABASE $PGBDB"
  pgbench -i -q -s "$PGB_SCALE" -h 127.0.0.1 -p "$PGPORT" -U postgres "$PGBDB" >/dev/null 2>&1
fi
# What pgbench -S reads, loaded too: after a restart the first ceiling otherwise measured a cold cache
# (6.7k tps against 23k after the scenarios, in one run).
if [[ "$PREWARMED" == yes* ]]; then
  "${PSQL[@]}" -d "$PGBDB" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" \
    -c "SELECT pg_prewarm('pgbench_accounts'), pg_prewarm('pgbench_accounts_pkey')" >/dev/null
fi

# 4. The servers.
DBURL=$(url "$RUNDB")${BENCH_DB_PARAMS:+&$BENCH_DB_PARAMS}
REPLICA_ENV=()
REPLICA_ARGS=()
if [[ "$REPLICA" == 1 ]]; then
  SBURL=$(scripts/localpg.sh url "$SBPORT" "$RUNDB")${BENCH_DB_PARAMS:+&$BENCH_DB_PARAMS}
  REPLICA_ENV=(DATABASE_REPLICA_URLS="$SBURL")
  REPLICA_ARGS=(-replica-db "$SBURL" -replica-admin-db "$(scripts/localpg.sh url "$SBPORT" postgres)"
    -replica-postmaster-pid "$(head -n1 "$SBDIR/data/postmaster.pid")"
    -replica-note "One read replica: a streaming hot standby of the benchmark cluster on the same machine (\`pg_basebackup\` through a replication slot, port $SBPORT, \`hot_standby_feedback\` on), with the primary's settings (shared_buffers $SHARED_BUFFERS, pg_stat_statements); its shared memory on huge pages: $SBHUGE; run database loaded into its cache: $SBPREWARMED. The primary runs with \`wal_level = replica\` and a WAL sender for it (\`minimal\` without a replica), and \`REPLICA_MAX_LAG\` is the server's default unless \`BENCH_SERVER_ENV\` sets it.")
fi
env -u REDIS_URL DATABASE_URL="$DBURL" "${REPLICA_ENV[@]}" ADDR="127.0.0.1:$APIPORT" PUBLIC_URL="http://127.0.0.1:$APIPORT" \
  RATE_LIMIT_READ=1000000 RATE_LIMIT_WRITE=1000000 METRICS_ADDR="127.0.0.1:$METRICSPORT" LOG_FORMAT=json LOG_LEVEL="${BENCH_LOG_LEVEL:-info}" \
  TIMELINE_TRIM_INTERVAL="${BENCH_TRIM_INTERVAL:-5s}" ${BENCH_SERVER_ENV:-} "$BIN/socialapi.under-test" serve >"$OUT/server.log" 2>&1 &
SERVER=$!; pids+=("$SERVER")
"$BIN/hello" -addr "127.0.0.1:$HELLOPORT" -db "$(url "$PGBDB")" >"$OUT/hello.log" 2>&1 &
pids+=("$!")
PPROF_ARGS=()
if [[ "$PPROF" == 1 ]]; then
  env -u REDIS_URL DATABASE_URL="$DBURL" RATE_LIMIT_READ=1000000 RATE_LIMIT_WRITE=1000000 \
    "$BIN/pprofserve" -addr "127.0.0.1:$PPROFPORT" -debug "127.0.0.1:$DEBUGPORT" -spec openapi.yaml >"$OUT/pprofserve.log" 2>&1 &
  PPROF_PID=$!; pids+=("$PPROF_PID")
  PPROF_ARGS=(-pprof-api "http://127.0.0.1:$PPROFPORT" -pprof-debug "http://127.0.0.1:$DEBUGPORT" -pprof-server-pid "$PPROF_PID" -pprof-scenario "${BENCH_PPROF_SCENARIO:-feed_home}")
fi
for _ in $(seq 1 150); do
  if curl -fsS "http://127.0.0.1:$APIPORT/readyz" >/dev/null 2>&1 && curl -fsS "http://127.0.0.1:$HELLOPORT/read" >/dev/null 2>&1; then
    break
  fi
  kill -0 "$SERVER" 2>/dev/null || { tail -n 20 "$OUT/server.log" >&2; log "the API server exited"; exit 1; }
  sleep 0.2
done
curl -fsS "http://127.0.0.1:$APIPORT/readyz" >/dev/null || { tail -n 20 "$OUT/server.log" >&2; log "the API server is not ready"; exit 1; }
if [[ "$REPLICA" == 1 ]]; then
  # The server polls the replica before it sends it reads: wait until it serves.
  for _ in $(seq 1 150); do
    curl -fsS "http://127.0.0.1:$METRICSPORT/metrics" 2>/dev/null | grep -q '^socialapi_replica_serving{.*} 1$' && break
    sleep 0.2
  done
  curl -fsS "http://127.0.0.1:$METRICSPORT/metrics" 2>/dev/null | grep -q '^socialapi_replica_serving{.*} 1$' \
    || log "warning: the API server does not use the replica yet ($(curl -fsS "http://127.0.0.1:$APIPORT/readyz" 2>/dev/null | head -c 300))"
fi

# 5. The load.
set +e
"$BIN/socialbench" -api "http://127.0.0.1:$APIPORT" -hello "http://127.0.0.1:$HELLOPORT" \
  -db "$DBURL" -admin-db "$(url postgres)" -pg-port "$PGPORT" -pgbench-db "$PGBDB" -pgbench-time "$PGB_TIME" \
  -postmaster-pid "$(head -n1 "$PGDIR/data/postmaster.pid")" -server-pid "$SERVER" -seed "$SEED" -scale "$SCALE" \
  -vegeta "$BIN/vegeta" -out "$OUT" -warmup "$WARMUP" -mix-warmup "${MIXWARMUP:-0s}" -closed "$CLOSED" -open "$OPEN" -only "${BENCH_ONLY:-}" -autovacuum="$([[ "${BENCH_AUTOVACUUM:-0}" == 1 ]] && echo true || echo false)" \
  -metrics "http://127.0.0.1:$METRICSPORT/metrics" -generated "${GENERATED:-}" -pg-huge-pages "$HUGE" -pg-prewarmed "$PREWARMED" -deep-members "$DEEP" -wrk "$WRKBIN" $FAIL "${PPROF_ARGS[@]}" "${REPLICA_ARGS[@]}"
rc=$?
set -e
if [[ "${BENCH_CHECK:-1}" == 1 ]]; then
  log "checking that every counter still equals its rows after the load"
  if ! DATABASE_URL="$DBURL" "$BIN/socialapi" check >"$OUT/check.txt" 2>&1; then
    head -n 20 "$OUT/check.txt" >&2
    log "FAILED: counters differ from their rows after the load (bench/out/check.txt)"
    rc=1
  fi
fi
log "done in $((SECONDS - t0)) s: $OUT/report.md"
exit $rc
