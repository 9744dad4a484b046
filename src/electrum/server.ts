/**
 * One chain's Electrum listeners (plain TCP and TLS, each optional) and the sessions they hold. A new
 * connection from a network already holding electrum.connectionsPerNetwork is accepted, told why in
 * one JSON-RPC error line, and closed: a wallet shows the reason instead of retrying a silent refusal.
 *
 * Under node:cluster (api.workers > 1) each worker calls listen() like the HTTP server does and the
 * primary shares the port among them, so Electrum clients are spread over the workers too; the cap per
 * network and the sessions are then per worker.
 */
import net from 'node:net';
import tls from 'node:tls';
import { clientNetwork } from '../serving/caller-buckets.js';
import type { ChainCode } from '../chain/params.js';
import { explainListenError } from '../listen-error.js';
import type { Logger } from '../logger.js';
import type { CauseLog } from './cause-log.js';
import type { CloseReason } from './close-reasons.js';
import type { ElectrumMetrics } from './metrics.js';
import type { MethodRegistry } from './methods/registry.js';
import type { NetworkCounts } from './network-counts.js';
import { Session, type Pay, type SessionLimits } from './session.js';
import { errorAnswer, frame, RpcError } from './wire.js';

/** A TLS client that has not finished its handshake by then is dropped (node's default is 2 minutes). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** A refused connection's error line gets this long to be flushed. */
const REFUSAL_GRACE_MS = 2000;

export interface ElectrumServerOptions {
  readonly chain: ChainCode;
  readonly host: string;
  readonly tcpPort: number | undefined;
  readonly tls: { readonly port: number; readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly registry: MethodRegistry;
  readonly limits: SessionLimits & { readonly connectionsPerNetwork: number };
  /** Hard cap of open connections per listener (api.maxConnections): descriptors are finite. */
  readonly maxConnections: number;
  readonly counts: NetworkCounts;
  readonly payer: (ip: string | undefined) => Pay;
  readonly metrics: ElectrumMetrics;
  readonly causes: CauseLog;
  readonly log: Logger;
}

export interface Listening {
  readonly port: number;
  readonly tls: boolean;
}

export class ElectrumServer {
  private readonly servers: net.Server[] = [];
  private readonly sessions = new Set<Session>();
  private readonly refusing = new Set<net.Socket>();

  constructor(private readonly opts: ElectrumServerOptions) {}

  /** Listens on the configured ports; rejects (closing what did listen) when one cannot. */
  async listen(): Promise<Listening[]> {
    const { tcpPort, tls: secure, chain } = this.opts;
    const wanted: Array<{ server: net.Server; port: number; tls: boolean; setting: string }> = [];
    if (tcpPort !== undefined) {
      wanted.push({ server: net.createServer((s) => this.accept(s)), port: tcpPort, tls: false, setting: `chains.${chain}.electrum.port` });
    }
    if (secure !== undefined) {
      const server = tls.createServer({ cert: secure.cert, key: secure.key, handshakeTimeout: HANDSHAKE_TIMEOUT_MS }, (s) =>
        this.accept(s),
      );
      // A failed handshake (a scanner, a plain-TCP client on the TLS port) only closes that socket.
      server.on('tlsClientError', () => undefined);
      wanted.push({ server, port: secure.port, tls: true, setting: `chains.${chain}.electrum.tlsPort` });
    }
    const listening: Listening[] = [];
    try {
      for (const w of wanted) {
        w.server.maxConnections = this.opts.maxConnections;
        this.servers.push(w.server);
        await listenOn(w.server, this.opts.host, w.port, w.setting, chain);
        const port = (w.server.address() as net.AddressInfo).port;
        this.opts.log.info({ port, tls: w.tls }, 'electrum listening');
        listening.push({ port, tls: w.tls });
      }
    } catch (err) {
      await this.close();
      throw err;
    }
    return listening;
  }

  /** Stops accepting and closes every connection (server shutdown: not counted as a cause). */
  async close(): Promise<void> {
    for (const session of this.sessions) session.shutdown();
    for (const socket of this.refusing) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  }

  private accept(socket: net.Socket): void {
    const { chain, counts, limits, metrics } = this.opts;
    const network = clientNetwork(socket.remoteAddress);
    if (!counts.tryOpen(network, limits.connectionsPerNetwork)) {
      this.refuse(socket, network);
      return;
    }
    metrics.connections.inc({ chain });
    const session = new Session({
      socket,
      network,
      registry: this.opts.registry,
      limits,
      pay: this.opts.payer(socket.remoteAddress),
      events: {
        request: (method, outcome) => metrics.requests.inc({ chain, method, outcome }),
        notified: (method) => metrics.notifications.inc({ chain, method }),
        internalError: (method, err) => this.opts.log.error({ method, err }, 'electrum: a method failed'),
        closed: (reason) => {
          this.sessions.delete(session);
          counts.release(network);
          metrics.connections.dec({ chain });
          if (reason !== undefined) this.closedFor(reason, network);
        },
      },
    });
    this.sessions.add(session);
  }

  private refuse(socket: net.Socket, network: string): void {
    const cap = this.opts.limits.connectionsPerNetwork;
    const why = new RpcError('EXCESSIVE_RESOURCE_USAGE', `too many connections from your network (at most ${cap}): close one and retry`);
    this.refusing.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.refusing.delete(socket);
      clearTimeout(force);
    });
    socket.end(frame(errorAnswer(null, why)));
    // Read and drop what the client sends meanwhile, so our FIN is not turned into a reset.
    socket.resume();
    const force = setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS);
    force.unref();
    this.closedFor('limit', network);
  }

  private closedFor(reason: CloseReason, network: string): void {
    this.opts.metrics.disconnects.inc({ chain: this.opts.chain, reason });
    this.opts.causes.report(reason, network);
  }
}

function listenOn(server: net.Server, host: string, port: number, setting: string, chain: ChainCode): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: unknown): void => reject(explainListenError(err, { who: `the ${chain} Electrum server`, setting, host, port }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
