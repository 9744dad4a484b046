/**
 * The HTTP API process, as a function: opens the chain indexes read-only (lazily: an index the indexer
 * has not created yet answers CHAIN_UNAVAILABLE until it exists) and the keys database, then listens.
 * `stop()` stops accepting, lets in-flight requests finish (idle keep-alive connections are closed at
 * once, busy ones after 10 s at most) and closes the databases.
 */
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../api/app.js';
import { workerMetrics } from '../api/cluster-metrics.js';
import { systemClock, type AppDeps, type ChainHandle } from '../api/deps.js';
import { createHttpServer } from '../api/http-server.js';
import { readiness } from '../api/routes/ops.js';
import { ApiError } from '../api/errors.js';
import { WatchedFile } from '../api/watched-file.js';
import { createLimiter } from '../api/shared-limiter.js';
import { chainParams, CHAIN_CODES, type ChainCode, type NetworkName } from '../chain/params.js';
import { isChainServed, keysDbPath, type Config } from '../config.js';
import { KeyCache } from '../keys/key-cache.js';
import type { Logger } from '../logger.js';
import { connectionMetrics, createApiMetrics } from '../metrics.js';
import { perTurn } from '../api/per-turn.js';
import { ChainReader } from '../store/chain-reader.js';
import { isBusy, isUnusableDatabase } from '../store/errors.js';
import { truncationProblem } from '../store/file-header.js';
import { fileIdentity } from '../store/file-identity.js';
import { chainDbPath } from '../store/paths.js';
import { ownCommand } from '../command-hint.js';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningApi {
  readonly server: Server;
  /** `http://host:port` as bound (port 0 in the config becomes the real port). */
  readonly url: string;
  stop(): Promise<void>;
}

/** An index built for another chain or network would answer wrongly for every address: refuse it. */
function openChecked(file: string, chain: ChainCode, network: NetworkName): ChainReader {
  const reader = ChainReader.open(file);
  if (reader.chain !== chain || reader.network !== network) {
    reader.close();
    throw new Error(`${file} indexes ${reader.chain} ${reader.network}, but this service is configured for ${chain} ${network}`);
  }
  return reader;
}

export async function main(config: Config, logger: Logger): Promise<RunningApi> {
  const log = logger.child({ component: 'server' });
  const clock = systemClock;
  const closers: Array<() => void> = [];

  const chains = new Map<ChainCode, ChainHandle>();
  for (const chain of CHAIN_CODES) {
    const params = chainParams(chain, config.chains[chain].network);
    if (!isChainServed(config, chain)) {
      chains.set(chain, { params, configured: false, acquire: () => ({ ok: false, reason: 'this service is not configured for it' }) });
      continue;
    }
    const file = chainDbPath(config.dataDir, chain);
    // A deleted, replaced or damaged index is closed and reopened (watched-file.ts): never served stale.
    const reader = new WatchedFile(
      file,
      () => openChecked(file, chain, params.network),
      clock,
      isUnusableDatabase,
      {
        onOpenError: (err) => log.warn({ chain, file, err: err instanceof Error ? err.message : String(err) }, 'chain index not available'),
        onReplaced: (what) => log.warn({ chain, file, what }, 'chain index file was deleted or replaced: closed the old one'),
      },
      1000,
      truncationProblem,
    );
    closers.push(() => reader.close());
    let held: { ok: true; source: ChainReader } | null = null;
    // The file's identity is checked once per event-loop turn, not once per request (per-turn.ts).
    const current = perTurn(() => reader.get());
    chains.set(chain, {
      params,
      configured: true,
      acquire: () => {
        const got = current.get();
        if (got.ok) {
          // One answer object per opened reader, not one per request.
          if (held?.source !== got.value) held = { ok: true, source: got.value };
          return held;
        }
        // Answers name the file, not where it lives on this server (the log has the full path).
        const why = got.reason.replaceAll(file, path.basename(file));
        // A read failure already says so (failed() below); a file found damaged on a check does not yet.
        if (got.damaged)
          return { ok: false, reason: why.startsWith('its index') ? why : `its index cannot be read: ${why}`, damaged: true };
        return { ok: false, reason: fileIdentity(file) === null ? 'its index does not exist yet (is the indexer running?)' : why };
      },
      failed: (err) => {
        if (isBusy(err)) return { reason: 'its index is busy (recovering after an indexer crash?); retry shortly', damaged: false };
        if (!isUnusableDatabase(err)) return null;
        const reason = `its index cannot be read (${(err as { code?: string }).code ?? 'error'}): restore it or re-index`;
        log.error({ chain, file, err: (err as Error).message }, 'chain index read failed: closed it, reopening once it is usable');
        reader.drop(reason);
        current.forget();
        return { reason, damaged: true };
      },
    });
  }

  const keysFile = keysDbPath(config);
  const keys = new KeyCache(
    keysFile,
    {
      onError: (err) =>
        log.warn({ file: keysFile, err: err instanceof Error ? err.message : String(err) }, 'cannot read the keys database'),
      onLoad: (count, why) => log.info({ file: keysFile, keys: count, why }, 'keys loaded'),
    },
    Date.now,
    (check) => {
      const once = perTurn(check);
      return () => once.get();
    },
  );
  closers.push(() => keys.close());
  if (!existsSync(keysFile)) log.warn({ file: keysFile }, `no keys database yet; create a key with: ${ownCommand('keys', 'create')}`);

  const metrics = createApiMetrics({ defaultMetrics: true });
  const limits = createLimiter(config.api, logger, metrics.registry);
  closers.push(() => limits.close());

  const keyCheck = {
    verify: (presented: string) => {
      const check = keys.verify(presented);
      if (!check.ok && keys.unreadable) {
        throw new ApiError('KEYS_UNAVAILABLE', 'the key database cannot be read; try again later', undefined, { 'Retry-After': '5' });
      }
      return check;
    },
  };
  // What /ready checks besides the chains: a keyed request would get 503 KEYS_UNAVAILABLE or LIMITS_UNAVAILABLE.
  const keyedProblems = (): string[] => [
    ...(keys.unreadable ? ['the keys database cannot be read'] : []),
    ...(limits.refusing() ? ['limits are fail-closed and Redis is unreachable'] : []),
  ];
  const deps: AppDeps = { chains, keys: keyCheck, settings: config.api, logger, clock, metrics, limiter: limits.limiter, keyedProblems };
  // One of several workers: a scrape answers for all of them (cluster-metrics.ts).
  const clusterMetrics = cluster.isWorker
    ? workerMetrics(() => {
        readiness(deps, metrics, clock);
        return metrics.registry.getMetricsAsJSON();
      })
    : undefined;
  const app = createApp({ ...deps, clusterMetrics });
  const server = createHttpServer(app, logger, {
    onGuard: (guard) => connectionMetrics(metrics.registry, guard),
    maxConnections: config.api.maxConnections,
    requestTimeoutMs: config.api.requestTimeoutMs,
  });
  const closeStores = () => {
    for (const close of closers) close();
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      closeStores();
      reject(err);
    });
    server.listen(config.api.port, config.api.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const served = CHAIN_CODES.filter((c) => isChainServed(config, c));
  log.info({ address, port, chains: served, allowAnonymous: config.api.allowAnonymous }, 'listening');
  if (served.length === 0)
    log.warn(`no chain is configured: set ADDRSUM_SERVE_CHAINS (e.g. ${CHAIN_CODES.join(',')}) or a chain's RPC URL`);

  let stopped: Promise<void> | undefined;
  return {
    server,
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        log.info('stopping: finishing in-flight requests');
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          closeStores();
          log.info('stopped');
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
