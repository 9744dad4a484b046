/**
 * How the Esplora dialect answers, as Blockstream's electrs does: JSON in its spelling, text/plain for
 * hashes, hex and numbers, octet-stream for raw bytes, and every failure as a text/plain body holding only
 * the message, with electrs's own texts where it has one (`Transaction not found`, `Invalid hex string`).
 * A path it does not serve answers 404 `endpoint does not exist "<path>"`.
 */
import type { NextFunction, Request, Response } from 'express';
import { ServingError, type ErrorCode } from '../../serving/errors.js';
import { context } from '../middleware/request-context.js';
import { toApiError } from '../middleware/error-handler.js';
import { stringifyEsplora } from './esplora-json.js';

/** A failure electrs words its own way: its status and text. */
export class EsploraError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}

/** Our codes whose meaning electrs has a text for. */
const ELECTRS_TEXT: Partial<Record<ErrorCode, string>> = {
  INVALID_TXID: 'Invalid hex string',
  INVALID_BLOCK_ID: 'Invalid hex string',
  TX_NOT_FOUND: 'Transaction not found',
  BLOCK_NOT_FOUND: 'Block not found',
};

function send(res: Response, status: number, type: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** An answer; never kept by a cache on the way, since it changes with each block and the mempool. */
function sendOk(res: Response, type: string, body: string | Buffer): void {
  res.setHeader('Cache-Control', 'no-store');
  send(res, 200, type, body);
}

export const sendEsploraJson = (res: Response, value: unknown): void => sendOk(res, 'application/json', stringifyEsplora(value));
export const sendEsploraText = (res: Response, text: string): void => sendOk(res, 'text/plain', text);
export const sendEsploraBytes = (res: Response, bytes: Buffer): void => sendOk(res, 'application/octet-stream', bytes);

/** Rust's `{:?}` of the path: in double quotes, with `"` and `\` escaped. */
const debugQuoted = (path: string): string => `"${path.replace(/["\\]/g, (c) => `\\${c}`)}"`;

export function esploraUnmatched(req: Request, _res: Response, next: NextFunction): void {
  next(new EsploraError(404, `endpoint does not exist ${debugQuoted(req.originalUrl.split('?')[0]!)}`));
}

export function esploraErrorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err instanceof EsploraError) return send(res, err.status, 'text/plain', err.text);
  const served = toApiError(err);
  if (served.status >= 500 && !(err instanceof ServingError)) context(res).log.error({ err }, 'unexpected error');
  // Limits and availability keep their headers (Retry-After, RateLimit-*).
  for (const [name, value] of Object.entries(served.headers ?? {})) res.setHeader(name, value);
  send(res, served.status, 'text/plain', ELECTRS_TEXT[served.code] ?? served.message);
}
