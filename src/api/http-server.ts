/**
 * The node:http server around the Express app. Some requests never reach Express: Node's HTTP parser
 * answers them itself (malformed request lines, headers over --max-http-header-size → 431, timeouts →
 * 408), with an empty or plain-text body. The 'clientError' handler below writes those answers as JSend
 * instead, so a client sees the same envelope for every failure. CONNECT and unknown Expect values, which
 * Node would also handle on its own (closing the socket / answering 417), are routed to JSON answers too.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { guardConnections, type ConnectionGuard } from './connection-guard.js';
import { ServingError, type ErrorCode } from '../serving/errors.js';
import { jsendBody } from './errors.js';
import type { Logger } from '../logger.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** An answer written on the socket itself (no Express): parser errors, refused WebSocket upgrades. */
export function rawAnswer(socket: Duplex, code: ErrorCode | ServingError, message = '', extra: Record<string, string> = {}): void {
  const err = code instanceof ServingError ? code : new ServingError(code, message);
  extra = { ...err.headers, ...extra };
  const body = JSON.stringify(jsendBody(err));
  const lines = [
    `HTTP/1.1 ${err.status} ${REASONS[err.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'Cache-Control: no-store',
    'Connection: close',
    ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

function clientErrorAnswer(code: string | undefined): [ErrorCode, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return ['HEADERS_TOO_LARGE', 'the request line or headers are too large'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT')
    return ['REQUEST_TIMEOUT', 'the request was not received in time'];
  return ['BAD_REQUEST', 'the request is not valid HTTP/1.1'];
}

/**
 * The request target as Express should route it. Express's URL parsing falls back to Node's url.parse
 * for any target with a `#`, which reads `\` as `/` (a segment more), and it treats `//x…` as a
 * protocol-relative URL with no path, skipping every middleware. Escape both, so such paths route like
 * any other text: to NOT_FOUND, or into the address check.
 */
function routableUrl(url: string | undefined): string | undefined {
  if (url === undefined || !(url.startsWith('//') || url.includes('\\'))) return url;
  return url.replace(/^\/\//, '/%2F').replaceAll('\\', '%5C');
}

export interface HttpServerOptions {
  /** Time allowed to receive a request's headers (Node's default: 60 s); slower clients get 408. */
  readonly headersTimeoutMs?: number;
  /** Time allowed to receive a whole request, and to answer it (default 30 s); slower sockets are closed. */
  readonly requestTimeoutMs?: number;
  /** How often Node checks those timeouts (Node's default: 30 s). */
  readonly checkIntervalMs?: number;
  /** Given the connection guard once it is made, e.g. to export its counts as metrics. */
  onGuard?: (guard: ConnectionGuard) => void;
  /** Open connections at most; see connection-guard.ts (default 2048). */
  readonly maxConnections?: number;
}

export interface ConnectionTimeouts {
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly checkIntervalMs: number;
  /** For a socket that sends no request, Node answers 408 once headersTimeout is checked: this backstop closes whatever Node leaves. */
  readonly idleTimeoutMs: number;
}

/** The timeouts a server gets from its options (docs/api.md states them; the docs test reads them here). */
export function connectionTimeouts(
  options: Pick<HttpServerOptions, 'requestTimeoutMs' | 'headersTimeoutMs' | 'checkIntervalMs'> = {},
): ConnectionTimeouts {
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const headersTimeoutMs = options.headersTimeoutMs ?? Math.min(10_000, requestTimeoutMs);
  const checkIntervalMs = options.checkIntervalMs ?? Math.min(30_000, Math.max(1000, Math.floor(requestTimeoutMs / 4)));
  return { requestTimeoutMs, headersTimeoutMs, checkIntervalMs, idleTimeoutMs: 2 * headersTimeoutMs + checkIntervalMs };
}

export function createHttpServer(app: Express, logger: Logger, options: HttpServerOptions = {}): http.Server {
  const log = logger.child({ component: 'http' });
  const { requestTimeoutMs, headersTimeoutMs, checkIntervalMs, idleTimeoutMs } = connectionTimeouts(options);
  // Every request the app answers comes through here, whichever server event carried it.
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    req.url = routableUrl(req.url);
    app(req, res);
  };
  const server = http.createServer(
    {
      // Node would otherwise answer a Host-less HTTP/1.1 request with an empty 400 of its own.
      requireHostHeader: false,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: checkIntervalMs,
    },
    handle,
  );

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // The request being answered on this socket, if any (Node's own socketOnError checks the same field).
    const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    // Bytes after a `Connection: close` request: drop them and let that request's answer finish and close.
    if (err.code === 'HPE_CLOSED_CONNECTION' && inFlight) return;
    // Never interleave an error with an answer already on the wire.
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [code, message] = clientErrorAnswer(err.code);
    log.debug({ code: err.code }, 'refused unparseable request');
    try {
      rawAnswer(socket, code, message);
    } catch {
      socket.destroy();
    }
  });

  // Answer unknown expectations normally (RFC 9110 allows ignoring them) instead of Node's bare 417:
  // through `handle`, so the path routes as it would without the Expect header.
  server.on('checkExpectation', handle);

  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => {
    rawAnswer(socket, 'METHOD_NOT_ALLOWED', 'method "CONNECT" is not allowed here; use GET or HEAD', { Allow: 'GET, HEAD' });
  });

  const guard = guardConnections(server, {
    maxConnections: options.maxConnections ?? 2048,
    requestTimeoutMs,
    idleTimeoutMs,
  });
  options.onGuard?.(guard);
  return server;
}
