#!/usr/bin/env bash
# Installs what `npm test` (`ensure-deps.sh`, or `ensure-deps.sh test`) or `npm run demo`
# (`ensure-deps.sh demo`) needs on a bare machine. Both: the npm packages and Debian's litecoind. Tests
# also: redis-server (shared limits), prometheus (promtool, for the alert rules), docker-compose (Compose
# v1's parser, for docker-compose.yml), python3 (Bitcoin Core's snapshot reader), chromium (the status
# page's browser tests, driven by playwright-core; no browser is ever downloaded), python3-electrum (a
# real Electrum client syncing against the Electrum port) and postgresql (the server binaries that
# harness/postgres.ts runs; no cluster of the package's own). Packages come from
# apt-get when run as root; otherwise a missing one stops here with the command that installs it.
set -euo pipefail
purpose="${1:-test}"
case "$purpose" in test | demo) ;; *) echo "usage: ensure-deps.sh [test|demo]" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."

# Installed packages match the lock file when the lock's digest, stored after the last install, is the
# same. Content, not dates: a fresh clone's lock file is always newer than anything installed before it.
lock_digest="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp=node_modules/.addrsum-lock.sha256
if [ ! -x node_modules/.bin/vitest ] || [ "$(cat "$stamp" 2>/dev/null)" != "$lock_digest" ]; then
  echo "ensure-deps: installing npm packages" >&2
  npm ci --no-audit --no-fund >&2
  echo "$lock_digest" > "$stamp"
fi

apt_updated=no
# install_package WHAT PACKAGE: installs PACKAGE (for WHAT) with apt-get when root, else stops with the command.
install_package() {
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deps: $1 is missing; install it with: sudo apt-get install -y --no-install-recommends $2" >&2
    exit 1
  fi
  echo "ensure-deps: installing $2 (apt-get) for $1" >&2
  export DEBIAN_FRONTEND=noninteractive
  if [ "$apt_updated" = no ]; then
    apt-get update -qq >&2
    apt_updated=yes
  fi
  # --no-install-recommends: only the command is used (no services are started by the tests' setup).
  apt-get install -y -qq --no-install-recommends "$2" >&2
}

# ensure_command COMMAND PACKAGE: installs PACKAGE when COMMAND is missing.
ensure_command() {
  command -v "$1" >/dev/null 2>&1 || install_package "$1" "$2"
}

# ensure_python_module MODULE PACKAGE: installs PACKAGE when Debian's python3 cannot import MODULE. That
# interpreter, not a python3 first on PATH (pyenv, a venv): Debian's python3-* packages install for it.
ensure_python_module() {
  /usr/bin/python3 -c "import $1" >/dev/null 2>&1 || install_package "Python module $1" "$2"
}

ensure_command litecoind litecoind
[ "$purpose" = demo ] && exit 0
ensure_command redis-server redis-server
ensure_command promtool prometheus
ensure_command docker-compose docker-compose
ensure_command python3 python3
ensure_command chromium chromium
# Electrum's Python module (4.3.4 on bookworm), for the real-client sync test: a wrapper in test/support
# runs its CLI on a Litecoin regtest network class; the package's /usr/bin script is not needed.
ensure_python_module electrum python3-electrum

# PostgreSQL's server binaries (initdb, postgres, pg_basebackup), for harness/postgres.ts: tests start
# throwaway clusters on free loopback ports. Debian keeps them off PATH, in /usr/lib/postgresql/<major>/bin.
# Installing the package would also create and start a cluster on 5432: createcluster.conf says not to.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    conf=/etc/postgresql-common/createcluster.conf
    mkdir -p "$(dirname "$conf")"
    if grep -qsE '^[#[:space:]]*create_main_cluster' "$conf"; then
      sed -ri 's/^[#[:space:]]*create_main_cluster.*/create_main_cluster = false/' "$conf"
    else
      echo 'create_main_cluster = false' >> "$conf"
    fi
  fi
  install_package "PostgreSQL's initdb (/usr/lib/postgresql/<major>/bin)" postgresql
fi
