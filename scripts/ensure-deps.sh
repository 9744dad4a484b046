#!/usr/bin/env bash
# Installs what `npm test` and `npm run demo` need on a bare machine: npm packages, litecoind and redis-server.
set -euo pipefail
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

if ! command -v litecoind >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    echo "ensure-deps: installing litecoind (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq litecoind >&2
  else
    echo "ensure-deps: litecoind is missing; install it with: sudo apt-get install -y litecoind" >&2
    exit 1
  fi
fi

# redis-server: the shared-limits tests run the API against Redis (their own instances, and the one at
# 127.0.0.1:6379 when it answers; they start that one themselves when nothing does).
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    echo "ensure-deps: installing redis-server (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq redis-server >&2
  else
    echo "ensure-deps: redis-server is missing; install it with: sudo apt-get install -y redis-server" >&2
    exit 1
  fi
fi
