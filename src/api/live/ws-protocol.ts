/** The WebSocket protocol's fixed parts (docs/api.md): path, close codes, timers, message framing. */
import type { RawData } from 'ws';
import type { ServingError } from '../../serving/errors.js';

export const WS_PATH = '/api/v1/ws';

/** Close codes (4000–4999 are the application's; 4xxx mirrors the HTTP status where there is one). */
export const CLOSE = { authFailed: 4401, authTimeout: 4408, throttled: 4429, slowConsumer: 4008, goingAway: 1001, internal: 1011 } as const;

/** Ping interval; a peer that missed the previous pong is cut. */
export const PING_MS = 30_000;

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
