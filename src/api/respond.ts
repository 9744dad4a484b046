/**
 * Writing JSON bodies. Bodies go through stringifyWithCoins so a `Coins` value becomes a number literal
 * with exactly 8 decimals (`0.00000123`), which JSON.stringify cannot produce.
 */
import type { Response } from 'express';
import { stringifyWithCoins } from '../chain/amount.js';
import { ServingError } from '../serving/errors.js';
import { jsendBody } from './errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Not res.send(): it would answer 304 to any `If-None-Match: *`, also on /health or an error. The one
 * conditional answer (the address summary's ETag) is decided by its route. Node drops the body for HEAD.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const text = stringifyWithCoins(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendError(res: Response, err: ServingError): void {
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  // Errors describe this moment (limits, sync state): never cache them.
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, err.status, jsendBody(err));
}
