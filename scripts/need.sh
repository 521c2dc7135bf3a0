#!/usr/bin/env bash
# need.sh COMMAND PACKAGE: make sure COMMAND is on PATH, installing the Debian PACKAGE with apt-get
# when it is missing and that is allowed (root or passwordless sudo, NO_APT unset); otherwise say
# exactly what to install and fail.
set -euo pipefail
cmd=${1:?COMMAND}; pkg=${2:?PACKAGE}
command -v "$cmd" >/dev/null 2>&1 && exit 0
if [[ -n "${NO_APT:-}" ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "need.sh: $cmd not found; install the $pkg package" >&2; exit 1
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  sudo -n true 2>/dev/null || { echo "need.sh: $cmd not found; run: sudo apt-get install -y $pkg" >&2; exit 1; }
  sudo="sudo -n"
fi
echo "need.sh: installing $pkg with apt-get (once)..." >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2 \
  || { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && \
       $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$pkg" >&2; }
# Debian starts a system service for some packages; the tests run their own servers.
if [[ "$pkg" == redis-server ]]; then $sudo service redis-server stop >/dev/null 2>&1 || true; fi
command -v "$cmd" >/dev/null 2>&1 || { echo "need.sh: $pkg installed but $cmd still not found" >&2; exit 1; }
