#!/usr/bin/env bash
# Runs a command with Node 24 LTS first on PATH, in this checkout: bash scripts/with-node24.sh npx vitest run test/unit
#
# Node 24 comes from the npm registry: the `node` package (`npx -p node@24`) installs the platform
# package node-<platform>-<arch>, installed here directly into .cache/ (ignored by git) so that it is
# fetched once and needs no install script. The installed node_modules serve both Node versions: the
# native addons on Node 24 are Node-API builds (src/store/sqlite/sqlite-driver.ts says which SQLite driver).
# That driver, better-sqlite3-node22, is an optional dependency that npm skips on Node 20; when the
# checkout was installed on Node 20 it is installed here by Node 24's npm and found through NODE_PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="$root/.cache/node24"
platform_pkg="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
runtime="$prefix/node_modules/$platform_pkg"

if [ ! -x "$runtime/bin/node" ]; then
  echo "with-node24: installing $platform_pkg@24" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund "$platform_pkg@24" >&2
fi
version="$("$runtime/bin/node" --version)"
case "$version" in v24.*) ;; *) echo "with-node24: expected Node 24, got $version" >&2; exit 1 ;; esac
echo "with-node24: Node $version" >&2

sqlite_pkg="better-sqlite3-node22"
sqlite_spec="$(node -p "require('$root/package.json').optionalDependencies['$sqlite_pkg']")"
extra_path=""
if [ ! -d "$root/node_modules/$sqlite_pkg" ]; then
  if [ ! -d "$prefix/node_modules/$sqlite_pkg" ]; then
    echo "with-node24: installing $sqlite_pkg ($sqlite_spec) for Node 24" >&2
    PATH="$runtime/bin:$PATH" npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund \
      "$platform_pkg@24" "$sqlite_pkg@$sqlite_spec" >&2
  fi
  extra_path="$prefix/node_modules"
fi

cd "$root"
NODE_PATH="${extra_path}${NODE_PATH:+:$NODE_PATH}" PATH="$runtime/bin:$PATH" exec "$@"
