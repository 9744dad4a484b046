#!/usr/bin/env bash
# Installs promtool (Debian's `prometheus` package) for test/unit/alerts.test.ts, the way ensure-deps.sh
# installs litecoind: apt-get when root, otherwise a clear message and exit 1 (the test then skips loudly).
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-promtool: installing promtool (apt-get install prometheus)" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package's postinst would start a Prometheus server where an init system runs; promtool is all we use.
  apt-get install -y -qq --no-install-recommends prometheus >&2 || { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends prometheus >&2; }
  command -v promtool >/dev/null 2>&1 && exit 0
fi
echo "ensure-promtool: promtool is missing; install it with: sudo apt-get install -y prometheus" >&2
exit 1
