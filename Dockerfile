# The addrsum image: one image for the API and the indexers; the command picks the process
# (see docker-compose.yml). TypeScript runs through tsx: there is no build step.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# Native modules: zeromq ships prebuilt addons for linux x64/arm64 (glibc) inside its package;
# better-sqlite3 downloads a prebuilt binary, or compiles with node-gyp, which needs this toolchain.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Install scripts must run (better-sqlite3, zeromq and esbuild need theirs: package.json `allowScripts`).
# Dev dependencies are kept because tsx, the runtime, is one of them.
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    ADDRSUM_DATA_DIR=/data \
    ADDRSUM_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY config ./config
COPY migrations ./migrations
COPY src ./src
COPY indexer ./indexer
# A new named volume mounted on /data takes this directory's owner, so the non-root user can write it.
RUN mkdir -p /data && chown node:node /data
# The `node` user (uid 1000) of the base image.
USER node
EXPOSE 8080 9410 9411
CMD ["node", "--import", "tsx", "src/bin/addrsum-api.ts"]
