/**
 * One chain's Electrum listeners (plain TCP and TLS, each optional) and the connections they hold.
 * Connections are counted from accept, before a TLS handshake: one network's half-open handshakes count
 * against its own electrum.connectionsPerNetwork, not everyone's slots.
 *   - A new connection from a network already holding its cap is refused: on plain TCP told why in one
 *     JSON-RPC error line (a wallet shows the reason instead of retrying a silent refusal); on TLS,
 *     before any handshake, closed (a handshake is the work such a flood is made of).
 *   - A listener holding api.maxConnections evicts, for a new connection, the least recently active
 *     idle one (no request in flight; a handshake not finished) of the network holding the most: idle
 *     sockets hoarded by some networks cannot lock out a new wallet. Failing that, the new one is closed.
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
import type { CostMeters } from './cost-meter.js';
import type { ElectrumMetrics } from './metrics.js';
import type { MethodRegistry } from './methods/registry.js';
import type { NetworkCounts } from './network-counts.js';
import { Session, type SessionLimits } from './session.js';
import { errorAnswer, frame, RpcError } from './wire.js';

/** A TLS client that has not finished its handshake by then is dropped (node's default is 2 minutes). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** A refused connection's error line gets this long to be flushed. */
const REFUSAL_GRACE_MS = 2000;

type ListenerKind = 'tcp' | 'tls';

/** One accepted connection, from accept to close: a TLS handshake under way, then its session. */
interface Slot {
  readonly network: string;
  /** performance.now() of its accept, then of its latest request. */
  readonly lastActive: () => number;
  /** A request in flight: never evicted. */
  readonly busy: () => boolean;
  readonly evict: () => void;
}

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
  readonly meters: CostMeters;
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
  private readonly slots: Record<ListenerKind, Set<Slot>> = { tcp: new Set(), tls: new Set() };
  private readonly handshakes = new Set<net.Socket>();

  constructor(private readonly opts: ElectrumServerOptions) {}

  /** Listens on the configured ports; rejects (closing what did listen) when one cannot. */
  async listen(): Promise<Listening[]> {
    const { tcpPort, tls: secure, chain } = this.opts;
    const wanted: Array<{ server: net.Server; port: number; tls: boolean; setting: string }> = [];
    if (tcpPort !== undefined) {
      wanted.push({
        server: net.createServer((s) => this.accept(s, 'tcp')),
        port: tcpPort,
        tls: false,
        setting: `chains.${chain}.electrum.port`,
      });
    }
    if (secure !== undefined) {
      // A plain listener whose sockets are wrapped once counted: tls.Server would count them only after the handshake.
      const context = tls.createSecureContext({ cert: secure.cert, key: secure.key });
      const server = net.createServer((s) => this.accept(s, 'tls', context));
      wanted.push({ server, port: secure.port, tls: true, setting: `chains.${chain}.electrum.tlsPort` });
    }
    const listening: Listening[] = [];
    try {
      for (const w of wanted) {
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
    for (const socket of this.handshakes) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))));
  }

  private accept(raw: net.Socket, listener: ListenerKind, context?: tls.SecureContext): void {
    const { counts, limits } = this.opts;
    const network = clientNetwork(raw.remoteAddress);
    raw.on('error', () => undefined);
    if (!counts.tryOpen(network, limits.connectionsPerNetwork)) {
      if (listener === 'tcp') this.refuse(raw, network);
      else {
        raw.destroy();
        this.closedFor('limit', network);
      }
      return;
    }
    if (!this.roomOn(listener)) {
      counts.release(network);
      raw.destroy();
      return;
    }
    if (context === undefined) {
      this.open(raw, raw.remoteAddress, network, listener);
      return;
    }
    // The handshake holds the slot: evictable, as it has no request in flight.
    const accepted = performance.now();
    const secure = new tls.TLSSocket(raw, { isServer: true, secureContext: context });
    // A failed handshake (a scanner, a plain-TCP client on the TLS port) only closes that socket.
    secure.on('error', () => undefined);
    const slot: Slot = { network, lastActive: () => accepted, busy: () => false, evict: () => secure.destroy() };
    this.slots.tls.add(slot);
    this.handshakes.add(secure);
    const timer = setTimeout(() => secure.destroy(), HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      this.handshakes.delete(secure);
      this.slots.tls.delete(slot);
    };
    secure.once('secure', () => {
      done();
      secure.removeListener('close', abandoned);
      this.open(secure, raw.remoteAddress, network, listener);
    });
    const abandoned = (): void => {
      done();
      counts.release(network);
    };
    secure.once('close', abandoned);
  }

  /** Room on `listener` for one more connection, making it by evicting an idle one if it is full. */
  private roomOn(listener: ListenerKind): boolean {
    const slots = this.slots[listener];
    if (slots.size < this.opts.maxConnections) return true;
    const mine = [...slots];
    const held = new Map<string, number>();
    for (const s of mine) held.set(s.network, (held.get(s.network) ?? 0) + 1);
    // The networks holding the most first; within one, the least recently active idle connection.
    const byHolding = [...held.entries()].sort((a, b) => b[1] - a[1]);
    for (const [network] of byHolding) {
      const idle = mine.filter((s) => s.network === network && !s.busy());
      if (idle.length === 0) continue;
      const victim = idle.reduce((a, b) => (b.lastActive() < a.lastActive() ? b : a));
      slots.delete(victim);
      victim.evict();
      return true;
    }
    return false;
  }

  private open(socket: net.Socket, remoteAddress: string | undefined, network: string, listener: ListenerKind): void {
    const { chain, counts, limits, metrics } = this.opts;
    metrics.connections.inc({ chain });
    const session: Session = new Session({
      socket,
      network,
      registry: this.opts.registry,
      limits,
      meter: this.opts.meters.meterFor(remoteAddress, network),
      events: {
        request: (method, outcome) => metrics.requests.inc({ chain, method, outcome }),
        notified: (method) => metrics.notifications.inc({ chain, method }),
        delayed: (ms) => {
          metrics.delayed.inc({ chain });
          metrics.delaySeconds.inc({ chain }, ms / 1000);
        },
        internalError: (method, err) => this.opts.log.error({ method, err }, 'electrum: a method failed'),
        closed: (reason, detail) => {
          this.sessions.delete(session);
          this.slots[listener].delete(slot);
          counts.release(network);
          metrics.connections.dec({ chain });
          if (reason !== undefined) this.closedFor(reason, network, detail);
        },
      },
    });
    const slot: Slot = {
      network,
      lastActive: () => session.lastActiveAt,
      busy: () => session.busy,
      evict: () => session.close('evicted'),
    };
    this.sessions.add(session);
    this.slots[listener].add(slot);
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

  private closedFor(reason: CloseReason, network: string, detail?: string): void {
    this.opts.metrics.disconnects.inc({ chain: this.opts.chain, reason });
    this.opts.causes.report(reason, network, detail);
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
