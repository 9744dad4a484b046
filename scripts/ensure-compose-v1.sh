#!/usr/bin/env bash
# Installs Debian's Compose v1 (`docker-compose`, 1.29) so test/unit/compose.test.ts can check that
# docker-compose.yml parses there too. Only the parser is needed: no Docker engine is started.
set -euo pipefail

if command -v docker-compose >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-compose-v1: installing docker-compose (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends docker-compose >&2
else
  echo "ensure-compose-v1: docker-compose is missing; install it with: sudo apt-get install -y docker-compose" >&2
  exit 1
fi
