/**
 * Bounds what slow or idle clients can hold: every connection costs a file descriptor, and running out of
 * them stops the API from answering anyone (including /health).
 *   - At most `maxConnections` open at once. A new connection beyond the cap closes the OLDEST IDLE one
 *     (no request in flight) rather than being refused, so a flood of idle sockets cannot lock out a
 *     health check or a real caller; only when every connection is busy is the new one refused.
 *   - A socket that sends no request within `idleTimeoutMs` is closed (one that connects and never speaks).
 *   - Every request must be answered within `requestTimeoutMs` of its arrival, however slowly the
 *     client sends or reads; past it the socket is destroyed.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  readonly maxConnections: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

export interface ConnectionGuard {
  /** Connections open now. */
  open(): number;
  /** Connections closed to make room, and connections refused because every one was busy. */
  readonly counts: { evicted: number; refused: number; deadline: number };
}

/** Per connection: requests not yet done, and the one deadline timer they share (made on first request). */
interface SocketState {
  busy: number;
  silent: NodeJS.Timeout | null;
  deadline: NodeJS.Timeout | null;
}

export function guardConnections(server: http.Server, limits: ConnectionLimits): ConnectionGuard {
  // Insertion order = age: the first idle entry is the oldest idle connection.
  const sockets = new Map<Socket, SocketState>();
  const counts = { evicted: 0, refused: 0, deadline: 0 };

  server.on('connection', (socket: Socket) => {
    // A plain timer, not socket.setTimeout: that is Node's own keep-alive timer on server sockets, and
    // taking it over left connections hanging through a worker's graceful close. Cleared by the
    // connection's first request; between requests Node's keepAliveTimeout closes idle sockets.
    const silent = setTimeout(() => socket.destroy(), limits.idleTimeoutMs);
    silent.unref();
    const state: SocketState = { busy: 0, silent, deadline: null };
    sockets.set(socket, state);
    socket.once('close', () => {
      sockets.delete(socket);
      clearTimeout(state.silent ?? undefined);
      clearTimeout(state.deadline ?? undefined);
    });
    if (sockets.size <= limits.maxConnections) return;
    for (const [other, o] of sockets) {
      if (other !== socket && o.busy === 0) {
        counts.evicted++;
        sockets.delete(other);
        other.destroy();
        return;
      }
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
        if (state.busy === 0) return;
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
    let pending = req.complete ? 1 : 2;
    const done = (): void => {
      if (--pending > 0) return;
      state.busy--;
      // A pipelined request behind this one gets its own full window from now.
      if (state.busy > 0) state.deadline!.refresh();
    };
    if (!req.complete) req.once('end', done);
    res.once('close', done);
  });

  return { open: () => sockets.size, counts };
}
