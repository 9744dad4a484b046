/** The WebSocket protocol's fixed parts (docs/api.md): path, close codes, timers, message framing. */
import type { RawData, WebSocket } from 'ws';
import type { ServingError } from '../../serving/errors.js';

export const WS_PATH = '/api/v1/ws';

/** Close codes (4000–4999 are the application's; 4xxx mirrors the HTTP status where there is one). */
export const CLOSE = { authFailed: 4401, authTimeout: 4408, throttled: 4429, slowConsumer: 4008, goingAway: 1001, internal: 1011 } as const;

/** Ping interval; a peer that missed the previous pong is cut. */
export const PING_MS = 30_000;

/** Pings the peer every `ms`; one that did not answer the previous ping is cut. The timer, to clear on close. */
export function keepAlive(ws: WebSocket, ms: number): NodeJS.Timeout {
  let alive = true;
  ws.on('pong', () => (alive = true));
  const timer = setInterval(() => {
    if (!alive) return void ws.terminate();
    alive = false;
    ws.ping();
  }, ms);
  timer.unref();
  return timer;
}

/** The bytes of a received message. */
export function rawLength(data: RawData): number {
  return Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/** Parses a client message; null when it is not a JSON object. */
export function parseMessage(data: RawData): Record<string, unknown> | null {
  try {
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The `data` of a fail reply: as a JSend fail body's data (the error's data, its code and message). */
export function failData(err: ServingError): object {
  return { ...err.data, code: err.code, message: err.message };
}
