/**
 * Writing JSON bodies. Bodies go through stringifyWithCoins so a `Coins` value becomes a number literal
 * with exactly 8 decimals (`0.00000123`), which JSON.stringify cannot produce.
 */
import type { Response } from 'express';
import { stringifyWithCoins } from '../chain/amount.js';
import { ApiError, jsendBody } from './errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status);
  res.setHeader('Content-Type', JSON_TYPE);
  res.send(stringifyWithCoins(body));
}

export function sendError(res: Response, err: ApiError): void {
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  // Errors describe this moment (limits, sync state): never cache them.
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, err.status, jsendBody(err));
}
