/**
 * WebSocket /api/v1/ws (the `ws` library): live summaries and tips, protocol in docs/api.md.
 *
 * The upgrade is checked before it is accepted, and refused with a JSend HTTP answer: the path, the
 * Origin (a browser's page must come from this service itself or from api.corsOrigins), and an
 * x-api-key header when one is sent (through the address route's own key check: the invalid-key
 * throttle included). Browsers cannot send headers: they send `{"op":"auth","key":…}` within
 * api.live.authTimeoutMs instead; an anonymous-serving API lets them subscribe at the default tier meanwhile.
 * The connection guard counts upgraded sockets (connection-guard.ts). Every PING_MS a ping; a peer that
 * did not answer the previous one is cut. A peer that does not read (unsent bytes past
 * api.live.maxBufferedBytes) is closed with CLOSE.slowConsumer and sent nothing more.
 *
 * Other WebSocket APIs of the process (SocketDoor: the Blockbook dialect's) are accepted here too, by
 * path, behind the same key check, per-network cap and connection guard; a dialect's door lets a page
 * of any Origin in, since its clients are anonymous by design.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppDeps } from '../deps.js';
import { clientNetwork } from '../../serving/caller-buckets.js';
import { upgraded } from '../connection-guard.js';
import { ServingError } from '../../serving/errors.js';
import { rawAnswer } from '../http-server.js';
import type { ApiMetrics } from '../metrics.js';
import type { RateLimiter } from '../../serving/token-bucket.js';
import type { LiveHub } from './hub.js';
import type { LiveLimits } from './limits.js';
import { LiveConnection, type Caller } from './ws-connection.js';
import { checkKey } from './ws-auth.js';
import { CLOSE, PING_MS, WS_PATH } from './ws-protocol.js';

/** Largest client message: a subscribe op of a tier's addresses fits easily. */
const MAX_PAYLOAD = 256 * 1024;

export interface LiveSockets {
  /** Closes every connection (the process is stopping). */
  close(): void;
}

/** What every WebSocket door of the process serves from. */
export interface SocketDeps {
  readonly deps: AppDeps;
  readonly hub: LiveHub;
  readonly limits: LiveLimits;
  readonly limiter: RateLimiter;
  readonly metrics: ApiMetrics;
  readonly pingMs?: number;
}

export interface LiveSocketOptions extends SocketDeps {
  /** Other WebSocket APIs on this port (the Blockbook dialect's), behind the same checks and caps. */
  readonly doors?: readonly SocketDoor[];
}

/** Who opened an accepted WebSocket. */
export interface SocketPeer {
  /** The upgrade's path (no query). */
  readonly path: string;
  readonly ip: string | undefined;
  /** The upgrade's x-api-key, checked; null: none was sent. */
  readonly caller: Caller | null;
}

/** A WebSocket API at a path of its own: what it does with a socket accepted for it. */
export interface SocketDoor {
  serves(path: string): boolean;
  /** Largest message its clients may send. */
  readonly maxPayload: number;
  /** Its clients are anonymous by design (a dialect's): a page of any Origin may open it. */
  readonly anyOrigin: boolean;
  /** Serves the socket until it closes; `close` ends it (the process is stopping). */
  open(ws: WebSocket, peer: SocketPeer): { close(): void };
}

export function attachLiveSockets(server: http.Server, opts: LiveSocketOptions): LiveSockets {
  const { deps } = opts;
  const connections = new Set<{ close(): void }>();
  const live: SocketDoor = {
    serves: (path) => path === WS_PATH,
    maxPayload: MAX_PAYLOAD,
    anyOrigin: false,
    open: (ws, peer) => {
      const conn = new LiveConnection(ws, { ...opts, ip: peer.ip, caller: peer.caller, pingMs: opts.pingMs ?? PING_MS });
      return { close: () => conn.close(CLOSE.goingAway, 'server stopping') };
    },
  };
  const doors = [live, ...(opts.doors ?? [])].map((door) => ({
    door,
    wss: new WebSocketServer({ noServer: true, maxPayload: door.maxPayload, perMessageDeflate: false }),
  }));
  /** Open WebSockets per client network (api.live.connectionsPerNetwork). */
  const perNetwork = new Map<string, number>();
  const origins = new Set(deps.settings.corsOrigins ?? []);

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (err: ServingError): void => {
      try {
        rawAnswer(socket, err);
      } catch {
        socket.destroy();
      }
    };
    const path = (req.url ?? '').split('?')[0] ?? '';
    const at = doors.find(({ door }) => door.serves(path));
    if (at === undefined) return refuse(new ServingError('NOT_FOUND', `no WebSocket here; connect to ${WS_PATH}`));
    const origin = req.headers.origin;
    if (!at.door.anyOrigin && origin !== undefined && !origins.has(origin) && !sameOrigin(origin, req.headers.host)) {
      return refuse(new ServingError('ORIGIN_NOT_ALLOWED', 'this origin may not open a WebSocket here (api.corsOrigins)'));
    }
    const ip = clientIp(req, deps.settings.trustProxyHops);
    const network = clientNetwork(ip);
    const cap = opts.limits.connectionsPerNetwork;
    if ((perNetwork.get(network) ?? 0) >= cap) {
      return refuse(
        new ServingError(
          'RATE_LIMITED',
          `at most ${cap} WebSockets per client network at once (api.live.connectionsPerNetwork); close one first`,
          undefined,
          {
            'Retry-After': '5',
          },
        ),
      );
    }
    const presented = req.headers['x-api-key'];
    const accept = (caller: Caller | null): void => {
      upgraded(server, req);
      at.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        const conn = at.door.open(ws, { path, ip, caller });
        connections.add(conn);
        perNetwork.set(network, (perNetwork.get(network) ?? 0) + 1);
        ws.once('close', () => {
          connections.delete(conn);
          const left = (perNetwork.get(network) ?? 1) - 1;
          if (left > 0) perNetwork.set(network, left);
          else perNetwork.delete(network);
        });
      });
    };
    if (presented === undefined || presented === '') return accept(null);
    checkKey(opts, Array.isArray(presented) ? presented.join(', ') : presented, ip).then(
      (caller) => accept(caller),
      (err: unknown) => refuse(err instanceof ServingError ? err : new ServingError('INTERNAL', 'the key could not be checked')),
    );
  });

  return {
    close: () => {
      for (const conn of connections) conn.close();
      for (const { wss } of doors) wss.close();
    },
  };
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/** The client address as the HTTP routes see it (Express's trust proxy with a hop count). */
function clientIp(req: http.IncomingMessage, hops: number): string | undefined {
  const peer = req.socket.remoteAddress;
  if (hops <= 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const chain = [...(typeof header === 'string' ? header.split(',').map((s) => s.trim()) : []), peer];
  return chain[Math.max(0, chain.length - 1 - hops)];
}
