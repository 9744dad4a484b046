# The addrsum image: one image for the API and the indexers; the command picks the process
# (see docker-compose.yml). The build stage compiles TypeScript to dist/ with tsc; the runtime stage holds
# the compiled JavaScript, production dependencies only, and runs plain `node` (no tsx).
#
# Node 24 is the active LTS line (Node 20 reached end of life in April 2026). The tag names the major
# line and the Debian release; pin a digest (node:24-bookworm-slim@sha256:...) for byte-identical rebuilds.

# ---- build: every dependency (tsc is a dev dependency), then `npm run build` ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Native modules: zeromq ships prebuilt addons for linux x64/arm64 (glibc) inside its package;
# better-sqlite3 downloads a prebuilt binary, or compiles with node-gyp, which needs this toolchain.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Install scripts must run (better-sqlite3, zeromq and esbuild need theirs: package.json `allowScripts`;
# secp256k1 ships prebuilds for linux x64 only, and compiles libsecp256k1 elsewhere, e.g. on arm64).
RUN npm ci --no-audit --no-fund
COPY tsconfig*.json ./
COPY src ./src
COPY indexer ./indexer
RUN npm run build

# ---- runtime: production dependencies and dist/ ----
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    ADDRSUM_DATA_DIR=/data \
    ADDRSUM_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
# The toolchain is installed, used and removed in one step, so no layer of the image keeps it.
# typescript is an optional peer of valibot (under bitcoinjs-lib), which npm keeps with --omit=dev
# because the dev tools also need it; nothing at run time imports it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && npm ci --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
 && npm cache clean --force \
 && apt-get purge -y --auto-remove python3 make g++ \
 && rm -rf /var/lib/apt/lists/* /root/.cache /tmp/*
COPY --from=build /app/dist ./dist
# Found at run time relative to the package root (/app), beside dist/.
COPY config ./config
COPY migrations ./migrations
# A new named volume mounted on /data takes this directory's owner, so the non-root user can write it.
RUN mkdir -p /data && chown node:node /data
# The `node` user (uid 1000) of the base image; the application files stay root-owned (read-only to it).
USER node
EXPOSE 8080 9410 9411
# The API's probe (ADDRSUM_PORT, default 8080). Slim images have no curl: Node's fetch does it. The
# indexer services override it with their metrics port (docker-compose.yml).
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.ADDRSUM_PORT || '8080') + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/api-process/addrsum-api.js"]
