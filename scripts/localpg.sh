#!/usr/bin/env bash
# localpg.sh: a project-local PostgreSQL cluster for development and tests.
#
#   scripts/localpg.sh start DIR PORT [fast]   create (if needed) and start a cluster in DIR on 127.0.0.1:PORT;
#                                              "fast" turns off fsync (throwaway test clusters only)
#   scripts/localpg.sh stop DIR                stop it
#   scripts/localpg.sh createdb PORT DBNAME    create database DBNAME if it does not exist
#   scripts/localpg.sh url PORT [DBNAME]       print the DATABASE_URL for it
#   scripts/localpg.sh standby PRIMARY_PORT DIR PORT [DELAY]
#                                              create (if needed, with pg_basebackup -R: streaming from the
#                                              cluster on PRIMARY_PORT through the replication slot
#                                              standby_PORT) and start a hot standby in DIR on PORT;
#                                              DELAY (e.g. 250ms) sets recovery_min_apply_delay, for tests
#   scripts/localpg.sh delay DIR DELAY         change a running standby's recovery_min_apply_delay (0: none)
#   scripts/localpg.sh hugepages DIR           (cluster stopped) reserve enough 2 MiB huge pages for its shared
#                                              memory when this user may (root); prints how many it needs
#   scripts/localpg.sh onhuge DIR              (cluster running) exit 0 if its shared memory is on huge pages
#
# Finds the server binaries under /usr/lib/postgresql/*/bin (or PG_BIN). When they are missing on
# Debian/Ubuntu it installs them with apt, if running as root (or with passwordless sudo) and
# PG_NO_APT is unset; otherwise it says exactly what to install. initdb refuses to run as root, so
# as root the cluster runs as the unprivileged "postgres" user (created by the Debian package).
set -euo pipefail

die() { echo "localpg: $*" >&2; exit 1; }

find_bin() {
  if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/initdb" ]]; then echo "$PG_BIN"; return 0; fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [[ -n "$d" && -x "$d/initdb" ]]; then echo "$d"; return 0; fi
  d=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")
  if [[ -x "$d/initdb" ]]; then echo "$d"; return 0; fi
  return 1
}

install_pg() {
  [[ -z "${PG_NO_APT:-}" ]] || die "PostgreSQL server binaries not found and PG_NO_APT is set. Install them: apt-get install -y postgresql (or set PG_BIN, or DATABASE_URL/TEST_DATABASE_URL)."
  command -v apt-get >/dev/null || die "PostgreSQL server binaries not found. Install PostgreSQL 14+ (initdb, pg_ctl, postgres), or set PG_BIN, or DATABASE_URL/TEST_DATABASE_URL."
  local sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    if sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      die "PostgreSQL server binaries not found. Run: sudo apt-get install -y postgresql"
    fi
  fi
  echo "localpg: installing PostgreSQL with apt-get (once)..." >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || true
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  # The Debian package starts a system cluster on 5432; we do not need it.
  $sudo pg_ctlcluster --help >/dev/null 2>&1 && $sudo sh -c 'for c in $(pg_lsclusters -h | awk "{print \$1\"/\"\$2}"); do pg_ctlcluster ${c%/*} ${c#*/} stop || true; done' >/dev/null 2>&1 || true
}

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# pg_start BIN DIR PORT WHAT starts the cluster in DIR/data on PORT and exits 0 once it runs. The
# port lies in the kernel's ephemeral range, so a client socket of some other process may hold it
# for a moment: a bind failure is retried a few times before giving up, unless another PostgreSQL
# listens on the port (a cluster of another checkout, say), which the error then names.
pg_start() {
  local bin=$1 dir=$2 port=$3 what=$4 try logged holder=""
  for try in 1 2 3 4 5 6; do
    logged=$(stat -c %s "$dir/server.log" 2>/dev/null || echo 0)
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "-p $port" start >/dev/null; then
      exit 0
    fi
    tail -c +"$((logged + 1))" "$dir/server.log" 2>/dev/null | grep -q "Address already in use" || break
    holder=$(port_holder "$port")
    # Another cluster holding the port will not free it by waiting.
    [[ -z "$holder" && $try -lt 6 ]] || break
    echo "localpg: port $port busy, retrying" >&2
    sleep 2
  done
  tail -n 30 "$dir/server.log" >&2
  if [[ -n "$holder" && "$holder" != "$dir/data" ]]; then
    die "could not start $what: port $port is held by the PostgreSQL of $holder (another checkout's cluster?). Stop it first: scripts/localpg.sh stop ${holder%/data} (make db-stop in that checkout stops all of its clusters)"
  fi
  die "could not start $what (see $dir/server.log)"
}

# port_holder PORT prints the data directory of the PostgreSQL listening on 127.0.0.1:PORT, if a
# postgres process holds it and ss can tell which (nothing otherwise).
port_holder() {
  local pid arg prev=""
  pid=$(ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2)
  [[ -n "$pid" && -r /proc/$pid/cmdline ]] || return 0
  while IFS= read -r -d '' arg; do
    [[ "$prev" == -D ]] && { echo "$arg"; return 0; }
    prev=$arg
  done </proc/"$pid"/cmdline
}

cmd=${1:-}; shift || true
case "$cmd" in
  start)
    dir=${1:?DIR}; port=${2:?PORT}; mode=${3:-}
    bin=$(find_bin) || { install_pg; bin=$(find_bin) || die "PostgreSQL installed but initdb not found"; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then
      id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user (created by the postgresql package)"
      chown postgres: "$dir"
      # the postgres user must be able to reach DIR
      p=$dir; while [[ "$p" != "/" ]]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
    fi
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
      as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
      {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir'"
        echo "max_connections = 300"
        echo "shared_buffers = 256MB"
        echo "timezone = 'UTC'"
        echo "log_timezone = 'UTC'"
        echo "jit = off"
        if [[ "$mode" == fast ]]; then
          echo "fsync = off"; echo "synchronous_commit = off"; echo "full_page_writes = off"
        fi
      } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
    fi
    if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      exit 0
    fi
    pg_start "$bin" "$dir" "$port" PostgreSQL
    ;;
  stop)
    dir=${1:?DIR}
    bin=$(find_bin) || exit 0
    [[ -f "$dir/data/PG_VERSION" ]] || exit 0
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  createdb)
    port=${1:?PORT}; name=${2:?DBNAME}
    bin=$(find_bin) || die "PostgreSQL binaries not found"
    if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
      "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$name"
    fi
    ;;
  hugepages)
    # PostgreSQL starts on huge pages by itself (huge_pages = try) when the kernel has enough reserved.
    # Only the reservation needs privileges; without them this says so and changes nothing.
    dir=${1:?DIR}
    bin=$(find_bin) || die "PostgreSQL binaries not found"
    need=$(as_owner "$bin/postgres" -D "$dir/data" -C shared_memory_size_in_huge_pages 2>/dev/null || echo 0)
    [[ "$need" =~ ^[0-9]+$ && "$need" -gt 0 ]] || die "cannot tell how many huge pages $dir needs (is it running?)"
    # Free pages that other mappings have reserved (HugePages_Rsvd) are not ours to take; a few to spare.
    avail() { awk '/^HugePages_Free:/ {f=$2} /^HugePages_Rsvd:/ {r=$2} END {print f - r}' /proc/meminfo; }
    need=$((need + 8))
    free=$(avail)
    total=$(cat /proc/sys/vm/nr_hugepages)
    if (( free < need )); then
      if [[ -w /proc/sys/vm/nr_hugepages ]]; then
        echo $((total + need - free)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
      fi
    fi
    echo "needs $need huge pages, $(avail) free"
    ;;
  onhuge)
    dir=${1:?DIR}
    pid=$(head -n1 "$dir/data/postmaster.pid" 2>/dev/null) || exit 1
    grep -q '^KernelPageSize: *2048 kB' "/proc/$pid/smaps" 2>/dev/null
    ;;
  standby)
    # A physical standby replicates the whole cluster: every database the primary creates later
    # (the tests' per-test databases included) appears on it once replayed.
    pport=${1:?PRIMARY_PORT}; dir=${2:?DIR}; port=${3:?PORT}; delay=${4:-0}
    slot=standby_$port
    bin=$(find_bin) || die "PostgreSQL binaries not found"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then
      chown postgres: "$dir"
      p=$dir; while [[ "$p" != "/" ]]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
    fi
    if [[ -f "$dir/data/PG_VERSION" ]]; then
      # A standby of an earlier cluster in the primary's place (recreated since) cannot stream
      # from it: made again.
      want=$("$bin/psql" -h 127.0.0.1 -p "$pport" -U postgres -d postgres -tAc "SELECT system_identifier FROM pg_control_system()")
      have=$(as_owner "$bin/pg_controldata" -D "$dir/data" | awk -F': *' '/^Database system identifier/ {print $2}')
      if [[ "$want" != "$have" ]]; then
        echo "localpg: $dir is a standby of another cluster: making it again" >&2
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
        rm -rf "$dir/data"
      fi
    fi
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
      rm -rf "$dir/data"
      # The standby streams through a replication slot, so the primary keeps the WAL it has not
      # received yet (tests write WAL fast: without a slot a standby that starts late finds it
      # recycled); max_slot_wal_keep_size bounds what an abandoned slot may keep.
      psql_p() { "$bin/psql" -h 127.0.0.1 -p "$pport" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAc "$1" >/dev/null; }
      psql_p "ALTER SYSTEM SET max_slot_wal_keep_size = '4GB'"
      psql_p "SELECT pg_reload_conf()"
      psql_p "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '$slot' AND NOT active"
      # -R writes standby.signal, primary_conninfo and primary_slot_name; -C -S creates the slot.
      as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$pport" -U postgres -D "$dir/data" -R -C -S "$slot" -X stream -c fast >"$dir/basebackup.log" 2>&1 \
        || { cat "$dir/basebackup.log" >&2; rm -rf "$dir/data"; die "pg_basebackup from port $pport failed"; }
      {
        echo "port = $port"
        echo "unix_socket_directories = '$dir'"
        echo "hot_standby = on"
        echo "hot_standby_feedback = on"
        # The feedback (the standby's oldest snapshot, which holds back the primary's vacuum)
        # follows replay within a second rather than the default ten.
        echo "wal_receiver_status_interval = 1s"
        echo "include_if_exists = 'delay.conf'"
      } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
    fi
    echo "recovery_min_apply_delay = '$delay'" | as_owner tee "$dir/data/delay.conf" >/dev/null
    if as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir/data" reload >/dev/null
      exit 0
    fi
    pg_start "$bin" "$dir" "$port" "the standby"
    ;;
  delay)
    dir=${1:?DIR}; delay=${2:?DELAY}
    bin=$(find_bin) || die "PostgreSQL binaries not found"
    [[ -f "$dir/data/standby.signal" ]] || die "$dir is not a standby"
    echo "recovery_min_apply_delay = '$delay'" | as_owner tee "$dir/data/delay.conf" >/dev/null
    as_owner "$bin/pg_ctl" -D "$dir/data" reload >/dev/null
    ;;
  url)
    port=${1:?PORT}; name=${2:-postgres}
    echo "postgres://postgres@127.0.0.1:$port/$name?sslmode=disable"
    ;;
  *)
    sed -n '2,23p' "$0" >&2; exit 2 ;;
esac
