/**
 * The HTTP API process, as a function: opens the chain indexes read-only (lazily: an index the indexer
 * has not created yet answers CHAIN_UNAVAILABLE until it exists) and the keys database, then listens.
 * `stop()` stops accepting, lets in-flight requests finish (idle keep-alive connections are closed at
 * once, busy ones after 10 s at most) and closes the databases.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app.js';
import { systemClock, type ChainHandle } from '../api/deps.js';
import { createHttpServer } from '../api/http-server.js';
import { LazyOpen } from '../api/lazy-open.js';
import { createLimiter } from '../api/shared-limiter.js';
import { chainParams, CHAIN_CODES, type ChainCode, type NetworkName } from '../chain/params.js';
import { isChainServed, keysDbPath, type Config } from '../config.js';
import { KeyCache } from '../keys/key-cache.js';
import type { Logger } from '../logger.js';
import { createApiMetrics } from '../metrics.js';
import { ChainReader } from '../store/chain-reader.js';
import { chainDbPath } from '../store/paths.js';

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
  if (served.length === 0) log.warn("no chain is configured: set ADDRSUM_SERVE_CHAINS (e.g. BTC,LTC) or a chain's RPC URL");

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
