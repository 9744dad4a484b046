/**
 * The HTTP API process, as a function: wires the app (wiring.ts) and listens. `stop()` stops
 * accepting, lets in-flight requests finish (idle keep-alive connections are closed at once, busy ones
 * after SHUTDOWN_GRACE_MS at most) and closes the databases.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHAIN_CODES } from '../chain/params.js';
import { isChainServed, type Config } from '../config.js';
import { explainListenError } from '../listen-error.js';
import type { Logger } from '../logger.js';
import { connectionMetrics } from '../api/metrics.js';
import { createHttpServer } from '../api/http-server.js';
import { wireApi } from './wiring.js';
import { attachLiveSockets } from '../api/live/ws-server.js';
import { blockbookDoor } from '../api/blockbook/blockbook-socket.js';
import { electrumService, type ElectrumService } from '../electrum/service.js';

const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningApi {
  readonly server: Server;
  /** `http://host:port` as bound (port 0 in the config becomes the real port). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function main(config: Config, logger: Logger): Promise<RunningApi> {
  const log = logger.child({ component: 'server' });
  const wired = wireApi(config, logger);
  const server = createHttpServer(wired.app, logger, {
    onGuard: (guard) => connectionMetrics(wired.metrics.registry, guard),
    maxConnections: config.api.maxConnections,
    requestTimeoutMs: config.api.requestTimeoutMs,
  });
  const socketDeps = { deps: wired.deps, ...wired.live, limiter: wired.deps.limiter!, metrics: wired.metrics };
  const sockets = attachLiveSockets(server, { ...socketDeps, doors: [blockbookDoor(socketDeps)] });
  let electrum: ElectrumService;
  try {
    electrum = electrumService(config, {
      registry: wired.metrics.registry,
      logger,
      chains: wired.deps.chains,
      ...(wired.deps.nodeViews && { nodeViews: wired.deps.nodeViews }),
      feed: wired.live.hub,
    });
  } catch (err) {
    wired.close();
    throw err;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      wired.close();
      reject(explainListenError(err, { who: 'the API', setting: 'api.port', host: config.api.host, port: config.api.port }));
    });
    server.listen(config.api.port, config.api.host, resolve);
  });
  // After the HTTP port (electrumService says why), before the `listening` line: once it is logged, every
  // listener of the process accepts.
  await electrum.listen().catch(async (err: unknown) => {
    await new Promise((resolve) => server.close(resolve));
    wired.close();
    throw err;
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
        // Live streams never finish on their own: end them first.
        sockets.close();
        wired.live.hub.close();
        void electrum.close();
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          wired.close();
          log.info('stopped');
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
