#!/usr/bin/env bash
# Installs what `npm test` and `npm run demo` need on a bare machine: npm packages, litecoind and (optional) promtool.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x node_modules/.bin/vitest ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "ensure-deps: installing npm packages" >&2
  npm ci --no-audit --no-fund >&2
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

# promtool (Debian's prometheus package) checks and unit-tests config/alerts.yml; optional: without it
# test/unit/alerts.test.ts skips its promtool case and says so.
bash scripts/ensure-promtool.sh || echo "ensure-deps: promtool unavailable; the alert-rule test will skip" >&2
