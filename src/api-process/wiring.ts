/**
 * The API's collaborators, built from the configuration without listening: the chain indexes (opened
 * read-only and lazily, so an index the indexer has not created yet answers CHAIN_UNAVAILABLE until it
 * exists; a SQLite file here, PostgreSQL through remote-chain.ts), the keys database, the limiter and the metrics. main.ts serves the result; tests build it
 * in-process.
 */
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import { createApp, type LiveWiring } from '../api/app.js';
import { LiveHub } from '../api/live/hub.js';
import { workerMetrics } from './cluster-metrics.js';
import { systemClock, type Clock } from '../serving/clock.js';
import { type AppDeps } from '../api/deps.js';
import { type ChainHandle } from '../serving/chain-handle.js';
import { chainNode } from '../serving/chain-node.js';
import { nodeViews, type NodeViews } from '../serving/node-views.js';
import { readiness } from '../api/routes/ops.js';
import { ServingError } from '../serving/errors.js';
import { foreignIndex, warnForeignIndexAtStart, type Built } from './index-network.js';
import { WatchedFile } from '../serving/watched-file.js';
import { createLimiter } from '../serving/shared-limiter.js';
import { TokenBucketLimiter } from '../serving/token-bucket.js';
import { chainParams, CHAIN_CODES, type ChainCode, type ChainParams, type NetworkName } from '../chain/params.js';
import { isChainServed, keysDbPath, type Config } from '../config.js';
import { KeyCache } from '../store/sqlite/key-cache.js';
import type { KeyVerifier } from '../store/keys/key-verifier.js';
import type { Logger } from '../logger.js';
import { createApiMetrics, type ApiMetrics } from '../api/metrics.js';
import { ownCommand } from '../command-hint.js';
import { perTurn } from './per-turn.js';
import { openSqliteReader, type SqliteIndexReader } from '../store/sqlite/engine.js';
import { openPostgresKeyMirror, openPostgresReader, postgresReadFailure } from '../store/postgres/engine.js';
import { redactUrl } from '../redact.js';
import { isBusy, isUnusableDatabase } from '../store/errors.js';
import { truncationProblem } from '../store/sqlite/file-header.js';
import { walMismatch } from '../store/sqlite/wal-match.js';
import { fileIdentity } from '../file-identity.js';
import { indexLocation } from '../store/paths.js';
import { remoteChain, type RemoteIndex } from '../serving/remote-chain.js';
import { DerivationCache } from '../api/derivation-cache.js';
import { DerivationPool } from '../api/derivation-pool.js';

export interface WiredApi {
  readonly app: Express;
  readonly deps: AppDeps;
  readonly metrics: ApiMetrics;
  /** Live pushes: main.ts attaches the WebSocket endpoint with it. */
  readonly live: LiveWiring;
  /** Closes the chain indexes, the keys database and the limiter's connection. */
  close(): void;
}

interface Closable<T> {
  readonly value: T;
  close(): void;
}

/** Builds the API without listening: main.ts serves it, tests call it to check the wiring in-process. */
export function wireApi(config: Config, logger: Logger): WiredApi {
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
    const where = indexLocation(config.dataDir, chain, config.chains[chain].indexUrl);
    if (where.engine === 'postgres') {
      const index: RemoteIndex = {
        open: () => openPostgresReader(where.url, { chain, network: params.network }),
        readFailure: postgresReadFailure,
        where: redactUrl(where.url),
      };
      const handle = remoteChain(index, chain, params, log);
      closers.push(() => void handle.close());
      chains.set(chain, handle.value);
      continue;
    }
    warnForeignIndexAtStart(where.file, chain, params.network, log, builtFor);
    const handle = servedChain(where.file, chain, params, clock, log);
    closers.push(handle.close);
    chains.set(chain, handle.value);
  }

  const nodes = new Map<ChainCode, NodeViews>();
  for (const chain of CHAIN_CODES) {
    const node = isChainServed(config, chain) ? chainNode(config, chain) : null;
    if (node === null) continue;
    const views = nodeViews(chain, node);
    nodes.set(chain, views);
    closers.push(() => views.close());
  }

  const keys = keyChecker(config, log);
  closers.push(keys.close);
  const metrics = createApiMetrics({ defaultMetrics: true });
  const limits = createLimiter(config.api, logger, metrics.registry);
  closers.push(() => limits.close());

  // What /ready checks besides the chains: a keyed request would get 503 KEYS_UNAVAILABLE or LIMITS_UNAVAILABLE.
  const keyedProblems = (): string[] => [
    ...(keys.unreadable() ? ['the keys database cannot be read'] : []),
    ...(limits.refusing() ? ['limits are fail-closed and Redis is unreachable'] : []),
  ];
  const pool = new DerivationPool({ threads: config.api.walletThreads, maxWaitSeconds: config.api.walletMaxWaitSeconds });
  closers.push(() => void pool.close());
  const deps: AppDeps = {
    chains,
    nodeViews: nodes,
    derivations: new DerivationCache(pool),
    keys: keys.value,
    settings: config.api,
    logger,
    clock,
    metrics,
    // One in-process limiter for the app and the WebSocket endpoint alike (Redis, when set, is shared anyway).
    limiter: limits.limiter ?? new TokenBucketLimiter(() => clock.now()),
    keyedProblems,
  };
  // One of several workers: a scrape answers for all of them (cluster-metrics.ts).
  const clusterMetrics = cluster.isWorker
    ? workerMetrics(async () => {
        await readiness(deps, metrics, clock);
        return metrics.registry.getMetricsAsJSON();
      })
    : undefined;
  const { subscriptionsPerConnection: perConnection, subscriptionsPerKey: perKey, ...liveRest } = config.api.live;
  const liveLimits = { ...liveRest, perConnection, perKey };
  const live: LiveWiring = { hub: new LiveHub(deps, liveLimits, log), limits: liveLimits };
  closers.unshift(() => live.hub.close());
  return {
    app: createApp({ ...deps, clusterMetrics }, live),
    deps,
    metrics,
    live,
    close: () => {
      for (const close of closers) close();
    },
  };
}

/** Which chain and network the index at `file` was built for; throws when it cannot be opened. */
function builtFor(file: string): Built {
  const reader = openSqliteReader(file);
  reader.close().catch(() => undefined);
  return { chain: reader.chain, network: reader.network };
}

/** An index built for another chain or network would answer wrongly for every address: refuse it. */
function openChecked(file: string, chain: ChainCode, network: NetworkName): SqliteIndexReader {
  const reader = openSqliteReader(file);
  const foreign = foreignIndex(file, reader, chain, network);
  if (foreign !== null) {
    reader.close().catch(() => undefined);
    throw new Error(foreign);
  }
  return reader;
}

/** One served chain: its index file, watched so that a deleted, replaced or damaged index is never served stale. */
function servedChain(file: string, chain: ChainCode, params: ChainParams, clock: Clock, log: Logger): Closable<ChainHandle> {
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
    (p) => truncationProblem(p) ?? walMismatch(p),
  );
  let held: { ok: true; source: SqliteIndexReader } | null = null;
  // The file's identity is checked once per event-loop turn, not once per request (per-turn.ts).
  const current = perTurn(() => reader.get());
  const handle: ChainHandle = {
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
      if (got.damaged) return { ok: false, reason: why.startsWith('its index') ? why : `its index cannot be read: ${why}`, damaged: true };
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
  };
  return { value: handle, close: () => reader.close() };
}

/** The keys held in memory, from the store the configuration names: keys.sqlite, or PostgreSQL (keysUrl). */
interface HeldKeys extends KeyVerifier {
  readonly unreadable: boolean;
  close(): void | Promise<void>;
}

/** keys.sqlite, reloaded when the file changes. */
function keysFile(keysFile: string, log: Logger): HeldKeys {
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
  if (!existsSync(keysFile)) log.warn({ file: keysFile }, `no keys database yet; create a key with: ${ownCommand('keys', 'create')}`);
  return keys;
}

/** Keys in PostgreSQL, reloaded when any machine changes them. */
function keysDatabase(url: string, log: Logger): HeldKeys {
  const where = redactUrl(url);
  return openPostgresKeyMirror(url, {
    onError: (err) => log.warn({ keysUrl: where, err: err instanceof Error ? err.message : String(err) }, 'cannot read the keys database'),
    onLoad: (count, why) => log.info({ keysUrl: where, keys: count, why }, 'keys loaded'),
  });
}

/** The configured keys; a store that cannot be read answers KEYS_UNAVAILABLE, not 401. */
function keyChecker(config: Config, log: Logger): Closable<KeyVerifier> & { unreadable(): boolean } {
  const keys = config.keysUrl === undefined ? keysFile(keysDbPath(config), log) : keysDatabase(config.keysUrl, log);
  const verifier: KeyVerifier = {
    verify: (presented) => {
      const check = keys.verify(presented);
      if (!check.ok && keys.unreadable) {
        throw new ServingError('KEYS_UNAVAILABLE', 'the key database cannot be read; try again later', undefined, { 'Retry-After': '5' });
      }
      return check;
    },
  };
  return { value: verifier, close: () => void keys.close(), unreadable: () => keys.unreadable };
}
