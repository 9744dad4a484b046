#!/usr/bin/env bash
# Runs the test suite N times (default 2) with CPU load beside it, to show the tests wait for conditions
# rather than for time: a suite that is green only on an idle machine is flaky somewhere.
#   bash scripts/load-test.sh [N]
# The load is Debian's stress-ng (installed with apt-get when missing, as ensure-deps.sh does for the
# test tools) with one busy worker per core, started before each run and stopped after it.
# ADDRSUM_LOAD_TEST_CMD replaces `npm test` (for checking this script with a trivial command).
# Exits non-zero when any run failed; every run is made even after a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${1:-2}"
case "$runs" in '' | *[!0-9]* | 0) echo "load-test: N must be a positive whole number (got '$runs')" >&2; exit 2 ;; esac
test_cmd="${ADDRSUM_LOAD_TEST_CMD:-npm test}"
workers="$(nproc 2>/dev/null || echo 2)"

if ! command -v stress-ng >/dev/null 2>&1; then
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "load-test: stress-ng is missing; install it with: sudo apt-get install -y --no-install-recommends stress-ng" >&2
    exit 1
  fi
  echo "load-test: installing stress-ng (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends stress-ng >&2
fi

stress_pid=""
stop_stress() {
  if [ -n "$stress_pid" ]; then
    kill "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
    stress_pid=""
  fi
}
trap stop_stress EXIT
trap 'stop_stress; exit 130' INT TERM

failed=0
for i in $(seq 1 "$runs"); do
  # --timeout 0: until stopped; the suite's own length decides how long the load lasts.
  stress-ng --cpu "$workers" --timeout 0 --quiet &
  stress_pid=$!
  echo "load-test: run $i of $runs: $test_cmd, beside stress-ng --cpu $workers" >&2
  if bash -c "$test_cmd"; then
    echo "load-test: run $i passed" >&2
  else
    echo "load-test: run $i FAILED" >&2
    failed=$((failed + 1))
  fi
  stop_stress
done

echo "load-test: $((runs - failed)) of $runs runs passed under load" >&2
[ "$failed" -eq 0 ]
