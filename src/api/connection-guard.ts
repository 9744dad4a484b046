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

export function guardConnections(server: http.Server, limits: ConnectionLimits): ConnectionGuard {
  // Insertion order = age: the first idle entry is the oldest idle connection.
  const sockets = new Set<Socket>();
  const busy = new Map<Socket, number>();
  const counts = { evicted: 0, refused: 0, deadline: 0 };
  const silentTimers = new Map<Socket, NodeJS.Timeout>();

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
      clearTimeout(silentTimers.get(socket));
      silentTimers.delete(socket);
    });
    // A plain timer, not socket.setTimeout: that is Node's own keep-alive timer on server sockets, and
    // taking it over left connections hanging through a worker's graceful close. Cleared by the
    // connection's first request; between requests Node's keepAliveTimeout closes idle sockets.
    const silent = setTimeout(() => socket.destroy(), limits.idleTimeoutMs);
    silent.unref();
    silentTimers.set(socket, silent);
    if (sockets.size <= limits.maxConnections) return;
    for (const other of sockets) {
      if (other !== socket && !busy.has(other)) {
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
    clearTimeout(silentTimers.get(socket));
    silentTimers.delete(socket);
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    const deadline = setTimeout(() => {
      counts.deadline++;
      socket.destroy();
    }, limits.requestTimeoutMs);
    deadline.unref();
    // Done only when both are: an answer sent early (before the body was read) must not free a
    // client that keeps trickling an unread body, which Node goes on reading on the same socket.
    let answered = false;
    let received = req.complete;
    const settle = (): void => {
      if (answered && received) clearTimeout(deadline);
    };
    req.once('end', () => {
      received = true;
      settle();
    });
    res.once('close', () => {
      answered = true;
      settle();
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
    });
    socket.once('close', () => clearTimeout(deadline));
  });

  return { open: () => sockets.size, counts };
}
