/**
 * `npm run api`: the HTTP API process. Loads the configuration (a bad value: one line on stderr, exit 1),
 * opens the chain indexes read-only (lazily: an index the indexer has not created yet answers
 * CHAIN_UNAVAILABLE until it exists), the keys database read-only, and listens.
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish (idle keep-alive connections are closed
 * at once, busy ones after 10 s at most), close the databases, exit 0.
 * With api.workers > 1 this process only supervises that many copies of itself (cluster-supervisor.ts).
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chainParams, CHAIN_CODES, type ChainCode, type NetworkName } from '../chain/params.js';
import { isChainServed, keysDbPath, loadConfigOrExit } from '../config.js';
import { KeyCache } from '../keys/key-cache.js';
import { createLogger } from '../logger.js';
import { createApiMetrics } from '../metrics.js';
import { ChainReader } from '../store/chain-reader.js';
import { chainDbPath } from '../store/paths.js';
import { createApp } from './app.js';
import { isSupervisor, onSupervisorStop, superviseWorkers, workerLogger } from './cluster-supervisor.js';
import { systemClock, type ChainHandle } from './deps.js';
import { createHttpServer } from './http-server.js';
import { LazyOpen } from './lazy-open.js';
import { createLimiter } from './shared-limiter.js';

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
if (isSupervisor(config.api.workers)) await superviseWorkers(config.api.workers, createLogger({ level: config.logLevel }));
const logger = workerLogger(createLogger({ level: config.logLevel }));
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
  const reader = new LazyOpen(
    () => openChecked(file, chain, params.network),
    clock,
    (err) => log.warn({ chain, file, err: err instanceof Error ? err.message : String(err) }, 'chain index not available yet'),
  );
  closers.push(() => reader.close());
  chains.set(chain, {
    params,
    configured: true,
    acquire: () => {
      const source = reader.get();
      return source ? { ok: true, source } : { ok: false, reason: 'its index does not exist yet (is the indexer running?)' };
    },
  });
}

const keysFile = keysDbPath(config);
const keys = new KeyCache(keysFile, {
  onError: (err) => log.warn({ file: keysFile, err: err instanceof Error ? err.message : String(err) }, 'cannot read the keys database'),
  onLoad: (count, why) => log.info({ file: keysFile, keys: count, why }, 'keys loaded'),
});
closers.push(() => keys.close());
if (!existsSync(keysFile)) log.warn({ file: keysFile }, 'no keys database yet; create a key with: npm run keys -- create');

const metrics = createApiMetrics({ defaultMetrics: true });
const limits = createLimiter(config.api, logger, metrics.registry);
closers.push(() => limits.close());

const app = createApp({ chains, keys, settings: config.api, logger, clock, metrics, limiter: limits.limiter });
const server = createHttpServer(app, logger);

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
onSupervisorStop(server, () => {
  if (!stopping) stop('SIGTERM');
});
