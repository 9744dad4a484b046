/**
 * Bounds what slow or idle clients can hold: every connection costs a file descriptor, and running out of
 * them stops the API from answering anyone (including /health).
 *   - At most `maxConnections` open at once. A new connection beyond the cap closes the OLDEST IDLE one
 *     (no request in flight) rather than being refused; failing that, the oldest one still waiting for a
 *     request body. So neither idle sockets nor trickled bodies can lock out a health check or a real
 *     caller; only when every connection is busy answering is the new one refused.
 *   - A socket that sends no request within `idleTimeoutMs` is closed (one that connects and never speaks).
 *   - A request body must arrive within `bodyTimeoutMs`, and at no less than `minBodyBytesPerCheck` per
 *     `bodyCheckMs`; and one client network (an IPv4 address or an IPv6 /64) may have at most
 *     `maxBodiesPerClient` bodies in flight. The guard runs before authentication, so this holds for
 *     keyed and keyless callers alike.
 *   - Every request must be answered within `requestTimeoutMs` of its arrival, however slowly the
 *     client sends or reads; past it the socket is destroyed. Except live streams: an event stream
 *     (holdOpen) and an upgraded WebSocket stay open, counted as busy (never evicted as idle); they
 *     bound what a slow reader holds themselves (api.live.maxBufferedBytes). And the server's own work
 *     on a request (working(): a wallet's derivation, bounded by its queue and paid for) does not count:
 *     the deadline starts again when that work ends, for sending the answer.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import { clientNetwork } from '../serving/caller-buckets.js';

/** Per guarded server: what to do when one of its connections is upgraded (upgraded() below). */
const upgradeHooks = new WeakMap<http.Server, (req: http.IncomingMessage) => void>();

/** Tells the server's connection guard, if any, that `req`'s connection is now a WebSocket. */
export function upgraded(server: http.Server, req: http.IncomingMessage): void {
  upgradeHooks.get(server)?.(req);
}

/** Sockets answering a live stream now: the request deadline does not apply to them. */
const streaming = new WeakSet<Socket>();

/** Per socket of a guarded server: starts its request deadline again (working() below). */
const rearm = new WeakMap<Socket, () => void>();

/**
 * Exempts `res`'s request from the deadline while `work` runs, then gives it the whole deadline again
 * from when the work settles: a slow machine deriving a wallet is not a slow client.
 */
export async function working<T>(res: http.ServerResponse, work: Promise<T>): Promise<T> {
  const socket = res.socket;
  if (!socket || streaming.has(socket)) return work;
  streaming.add(socket);
  try {
    return await work;
  } finally {
    streaming.delete(socket);
    rearm.get(socket)?.();
  }
}

/** The headers of an event stream (Server-Sent Events), whichever route sends one. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
});

/** Exempts a response that streams on purpose (Server-Sent Events) from the request deadline while it lasts. */
export function holdOpen(res: http.ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  streaming.add(socket);
  res.once('close', () => streaming.delete(socket));
}

export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Whole-body deadline, from the request's headers to its last body byte. */
  readonly bodyTimeoutMs?: number;
  /** How often body progress is checked, and the window the minimum rate is measured over. */
  readonly bodyCheckMs?: number;
  /** Bytes a body must advance per check window. */
  readonly minBodyBytesPerCheck?: number;
  /** Bodies in flight per client network. */
  readonly maxBodiesPerClient?: number;
}

export interface ConnectionGuard {
  /** Connections open now. */
  open(): number;
  /**
   * Connections closed to make room, refused because every one was busy, past the request deadline,
   * closed for a body too slow or too late, and refused for too many bodies from one client network.
   */
  readonly counts: { evicted: number; refused: number; deadline: number; slowBody: number; bodyCap: number };
  /** Stops the body-progress timer (the server's 'close' does it too). */
  stop(): void;
}

/** A request whose body has not all arrived: when it started, and the socket's bytes at the last check. */
interface PendingBody {
  readonly network: string;
  readonly started: number;
  checkedAt: number;
  bytesAtCheck: number;
}

/** Per connection: requests not yet done, and the one deadline timer they share (made on first request). */
interface SocketState {
  busy: number;
  silent: NodeJS.Timeout | null;
  deadline: NodeJS.Timeout | null;
  body: PendingBody | null;
}

export function guardConnections(server: http.Server, limits: ConnectionLimits, now: () => number = Date.now): ConnectionGuard {
  const bodyTimeoutMs = limits.bodyTimeoutMs ?? 10_000;
  const bodyCheckMs = limits.bodyCheckMs ?? 2000;
  const minBodyBytes = limits.minBodyBytesPerCheck ?? 256;
  const maxBodiesPerClient = limits.maxBodiesPerClient ?? 16;
  // Insertion order = age: the first idle entry is the oldest idle connection.
  const sockets = new Map<Socket, SocketState>();
  const bodies = new Map<Socket, SocketState>();
  const bodiesPerNetwork = new Map<string, number>();
  const counts = { evicted: 0, refused: 0, deadline: 0, slowBody: 0, bodyCap: 0 };

  const endBody = (socket: Socket, state: SocketState): void => {
    const body = state.body;
    if (body === null) return;
    state.body = null;
    bodies.delete(socket);
    const left = (bodiesPerNetwork.get(body.network) ?? 1) - 1;
    if (left > 0) bodiesPerNetwork.set(body.network, left);
    else bodiesPerNetwork.delete(body.network);
  };

  // One timer for every pending body, not one per request.
  const checker = setInterval(
    () => {
      const t = now();
      for (const [socket, state] of bodies) {
        const body = state.body!;
        if (t - body.checkedAt < bodyCheckMs && t - body.started < bodyTimeoutMs) continue;
        const advanced = socket.bytesRead - body.bytesAtCheck;
        if (t - body.started >= bodyTimeoutMs || advanced < minBodyBytes) {
          counts.slowBody++;
          endBody(socket, state);
          socket.destroy();
          continue;
        }
        body.checkedAt = t;
        body.bytesAtCheck = socket.bytesRead;
      }
    },
    Math.max(100, Math.floor(bodyCheckMs / 4)),
  );
  checker.unref();
  server.once('close', () => clearInterval(checker));

  server.on('connection', (socket: Socket) => {
    // A plain timer, not socket.setTimeout: that is Node's own keep-alive timer on server sockets, and
    // taking it over left connections hanging through a worker's graceful close. Cleared by the
    // connection's first request; between requests Node's keepAliveTimeout closes idle sockets.
    const silent = setTimeout(() => socket.destroy(), limits.idleTimeoutMs);
    silent.unref();
    const state: SocketState = { busy: 0, silent, deadline: null, body: null };
    sockets.set(socket, state);
    rearm.set(socket, () => state.deadline?.refresh());
    socket.once('close', () => {
      sockets.delete(socket);
      endBody(socket, state);
      clearTimeout(state.silent ?? undefined);
      clearTimeout(state.deadline ?? undefined);
    });
    if (sockets.size <= limits.maxConnections) return;
    const victim = oldest(sockets, socket, (o) => o.busy === 0) ?? oldest(bodies, socket, () => true);
    if (victim !== undefined) {
      counts.evicted++;
      const [other, o] = victim;
      endBody(other, o);
      sockets.delete(other);
      other.destroy();
      return;
    }
    counts.refused++;
    sockets.delete(socket);
    socket.destroy();
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const state = sockets.get(socket);
    if (state === undefined) return;
    if (state.silent !== null) {
      clearTimeout(state.silent);
      state.silent = null;
    }
    // One timer per connection, re-armed (not re-made) as its requests come and go: a keep-alive
    // connection answering millions of requests holds one timer and one listener, not one per request.
    if (state.deadline === null) {
      state.deadline = setTimeout(() => {
        if (state.busy === 0 || streaming.has(socket)) return;
        counts.deadline++;
        socket.destroy();
      }, limits.requestTimeoutMs);
      state.deadline.unref();
    } else if (state.busy === 0) {
      state.deadline.refresh();
    }
    state.busy++;
    // Done only when both are: an answer sent early (before the body was read) must not free a
    // client that keeps trickling an unread body, which Node goes on reading on the same socket.
    // `complete` is still false at this event even for a request without a body (the parser finishes the
    // message after emitting it), so a body is told by its headers: without Content-Length or
    // Transfer-Encoding an HTTP/1.1 request has none. Counting bodiless GETs would cap one client's
    // concurrent lookups at maxBodiesPerClient.
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const receiving = hasBody && !req.complete;
    let pending = receiving ? 2 : 1;
    const done = (): void => {
      if (--pending > 0) return;
      state.busy--;
      // A pipelined request behind this one gets its own full window from now.
      if (state.busy > 0) state.deadline!.refresh();
    };
    if (receiving) {
      const network = clientNetwork(socket.remoteAddress);
      const inFlight = bodiesPerNetwork.get(network) ?? 0;
      if (inFlight >= maxBodiesPerClient) {
        counts.bodyCap++;
        socket.destroy();
        return;
      }
      bodiesPerNetwork.set(network, inFlight + 1);
      const t = now();
      state.body = { network, started: t, checkedAt: t, bytesAtCheck: socket.bytesRead };
      bodies.set(socket, state);
      req.once('end', () => endBody(socket, state));
      req.once('end', done);
    }
    res.once('close', done);
  });

  // An upgraded connection (WebSocket) is busy for its whole life: no idle timer, no request deadline.
  // Told by the WebSocket endpoint, not by an 'upgrade' listener of the guard's own: while a server has
  // one, Node hands it every request that asks for an upgrade, and without an endpoint none is answered.
  upgradeHooks.set(server, (req: http.IncomingMessage) => {
    const state = sockets.get(req.socket);
    if (state === undefined) return;
    clearTimeout(state.silent ?? undefined);
    state.silent = null;
    state.busy++;
  });

  return { open: () => sockets.size, counts, stop: () => clearInterval(checker) };
}

/** The first (oldest) entry other than `except` that `test` accepts. */
function oldest(map: Map<Socket, SocketState>, except: Socket, test: (s: SocketState) => boolean): [Socket, SocketState] | undefined {
  for (const entry of map) if (entry[0] !== except && test(entry[1])) return entry;
  return undefined;
}
