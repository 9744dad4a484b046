/**
 * How the Blockbook dialect answers, as Blockbook's REST API does: JSON, and every failure as
 * `{"error":"<text>"}`, with Blockbook's own texts and its 400 where it has them (`Transaction '…' not
 * found`, `Block not found`). Limits and availability keep our status and headers (429, 503 with
 * Retry-After); a path Blockbook does not serve answers 404 rather than Blockbook's status page, so that
 * nothing answers 200 that is not what was asked.
 */
import type { NextFunction, Request, Response } from 'express';
import { ServingError, type ErrorCode } from '../../serving/errors.js';
import { context } from '../middleware/request-context.js';
import { toApiError } from '../middleware/error-handler.js';

/** A failure Blockbook words its own way: its status and text. */
export class BlockbookError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}

/** Our codes whose meaning Blockbook has a text and a 400 for. */
const BLOCKBOOK_TEXT: Partial<Record<ErrorCode, string>> = {
  BLOCK_NOT_FOUND: 'Block not found',
};

function send(res: Response, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** An answer's JSON text; never kept by a cache on the way, since it changes with each block and the mempool. */
export function sendBlockbookText(res: Response, json: string): void {
  res.setHeader('Cache-Control', 'no-store');
  send(res, 200, json);
}

export const sendBlockbookJson = (res: Response, value: unknown): void => sendBlockbookText(res, JSON.stringify(value));

const sendFailure = (res: Response, status: number, text: string): void => send(res, status, JSON.stringify({ error: text }));

export function blockbookUnmatched(req: Request, _res: Response, next: NextFunction): void {
  const path = req.originalUrl.split('?')[0]!;
  next(new BlockbookError(404, `${path.length > 100 ? `${path.slice(0, 100)}…` : path} is not a Blockbook API path (docs/blockbook.md)`));
}

/** A failure as Blockbook answers it, on either door: its status, text and headers; `unexpected`: worth an error log. */
export interface BlockbookFailure {
  readonly status: number;
  readonly text: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly unexpected: boolean;
}

export function blockbookFailure(err: unknown): BlockbookFailure {
  if (err instanceof BlockbookError) return { status: err.status, text: err.text, headers: {}, unexpected: false };
  const served = toApiError(err);
  const text = BLOCKBOOK_TEXT[served.code];
  return {
    status: text === undefined ? served.status : 400,
    text: text ?? served.message,
    headers: served.headers ?? {},
    unexpected: served.status >= 500 && !(err instanceof ServingError),
  };
}

export function blockbookErrorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const failure = blockbookFailure(err);
  if (failure.unexpected) context(res).log.error({ err }, 'unexpected error');
  for (const [name, value] of Object.entries(failure.headers)) res.setHeader(name, value);
  sendFailure(res, failure.status, failure.text);
}
