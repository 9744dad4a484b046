/**
 * `npm run api`: the HTTP API process. Loads the configuration (a bad value: one line on stderr, exit 1),
 * opens the chain indexes read-only (lazily: an index the indexer has not created yet answers
 * CHAIN_UNAVAILABLE until it exists; a deleted, replaced or damaged one is closed and reopened, see
 * watched-file.ts), the keys database read-only, and listens.
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish (idle keep-alive connections are closed
 * at once, busy ones after 10 s at most), close the databases, exit 0.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chainParams, CHAIN_CODES, type ChainCode, type NetworkName } from '../chain/params.js';
import { isChainServed, keysDbPath, loadConfigOrExit } from '../config.js';
import { KeyStore } from '../keys/key-store.js';
import { StoreKeyVerifier } from '../keys/key-verifier.js';
import { createLogger } from '../logger.js';
import { createApiMetrics } from '../metrics.js';
import { ChainReader } from '../store/chain-reader.js';
import { isBusy, isUnusableDatabase } from '../store/errors.js';
import { truncationProblem } from '../store/file-header.js';
import { fileIdentity } from '../store/file-identity.js';
import { chainDbPath } from '../store/paths.js';
import { createApp } from './app.js';
import { systemClock, type ChainHandle } from './deps.js';
import { ApiError } from './errors.js';
import { createHttpServer } from './http-server.js';
import { WatchedFile } from './watched-file.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** An index built for another chain or network would answer wrongly for every address: refuse it. */
function openChecked(file: string, chain: ChainCode, network: NetworkName): ChainReader {
  const reader = ChainReader.open(file);
  if (reader.chain !== chain || reader.network !== network) {
    reader.close();
    throw new Error(`${file} indexes ${reader.chain} ${reader.network}, but this service is configured for ${chain} ${network}`);
  }
  return reader;
}

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel });
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
  const reader = new WatchedFile(file, () => openChecked(file, chain, params.network), clock, isUnusableDatabase, {
    onOpenError: (err) => log.warn({ chain, file, err: err instanceof Error ? err.message : String(err) }, 'chain index not available'),
    onReplaced: (what) => log.warn({ chain, file, what }, 'chain index file was deleted or replaced: closed the old one'),
  }, 1000, truncationProblem);
  closers.push(() => reader.close());
  chains.set(chain, {
    params,
    configured: true,
    acquire: () => {
      const got = reader.get();
      if (got.ok) return { ok: true, source: got.value };
      // Answers name the file, not where it lives on this server (the log has the full path).
      const why = got.reason.replaceAll(file, path.basename(file));
      if (got.damaged) return { ok: false, reason: `its index cannot be read: ${why}`, damaged: true };
      return { ok: false, reason: fileIdentity(file) === null ? 'its index does not exist yet (is the indexer running?)' : why };
    },
    failed: (err) => {
      if (isBusy(err)) return { reason: 'its index is busy (recovering after an indexer crash?); retry shortly', damaged: false };
      if (!isUnusableDatabase(err)) return null;
      const reason = `its index cannot be read (${(err as { code?: string }).code ?? 'error'}): restore it or re-index`;
      log.error({ chain, file, err: (err as Error).message }, 'chain index read failed: closed it, reopening once it is usable');
      reader.drop(reason);
      return { reason, damaged: true };
    },
  });
}

const keysFile = keysDbPath(config);
const keyStore = new WatchedFile(keysFile, () => KeyStore.openReadonly(keysFile), clock, isUnusableDatabase, {
  onOpenError: () => log.warn({ file: keysFile }, 'no readable keys database; create a key with: npm run keys -- create'),
}, 1000, truncationProblem);
closers.push(() => keyStore.close());
const keyVerifier = new StoreKeyVerifier(() => {
  const got = keyStore.get();
  if (got.ok) return got.value;
  if (got.damaged) throw new ApiError('KEYS_UNAVAILABLE', 'the key database cannot be read; try again later', undefined, { 'Retry-After': '5' });
  return null;
});

const app = createApp({
  chains,
  keys: {
    verify: (presented) => {
      try {
        return keyVerifier.verify(presented);
      } catch (err) {
        if (!isUnusableDatabase(err)) throw err;
        log.error({ file: keysFile, err: (err as Error).message }, 'keys database read failed: closed it, reopening once it is usable');
        keyStore.drop(String((err as Error).message));
        throw new ApiError('KEYS_UNAVAILABLE', 'the key database cannot be read; try again later', undefined, { 'Retry-After': '5' });
      }
    },
  },
  settings: config.api,
  logger,
  clock,
  metrics: createApiMetrics({ defaultMetrics: true }),
});
const server = createHttpServer(app, logger, { maxConnections: config.api.maxConnections, requestTimeoutMs: config.api.requestTimeoutMs });

server.on('error', (err) => {
  log.fatal({ err }, 'cannot listen');
  logger.flush(() => process.exit(1));
});

server.listen(config.api.port, config.api.host, () => {
  const { address, port } = server.address() as AddressInfo;
  const served = CHAIN_CODES.filter((c) => isChainServed(config, c));
  log.info({ address, port, chains: served, allowAnonymous: config.api.allowAnonymous }, 'listening');
  if (served.length === 0) log.warn('no chain is configured: set ADDRSUM_BTC_RPC_URL and/or ADDRSUM_LTC_RPC_URL');
});

let stopping = false;
function stop(signal: NodeJS.Signals): void {
  if (stopping) {
    log.warn({ signal }, 'second signal: exiting now');
    process.exit(1);
  }
  stopping = true;
  log.info({ signal }, 'stopping: finishing in-flight requests');
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  force.unref();
  server.close(() => {
    clearTimeout(force);
    for (const close of closers) close();
    log.info('stopped');
    logger.flush(() => process.exit(0));
  });
  server.closeIdleConnections();
}

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
