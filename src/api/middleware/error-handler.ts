/**
 * The one place failures become responses. ServingError renders as itself; 4xx errors thrown by Express
 * internals (router parameter decoding, body parsing) become BAD_REQUEST; anything else is logged with
 * its stack under the request id and answered 500 INTERNAL with no internals in the body. Nothing here
 * ever falls through to Express's default HTML error page.
 */
import type { NextFunction, Request, Response } from 'express';
import { ServingError } from '../../serving/errors.js';
import { internal, notFound } from '../errors.js';
import { sendError } from '../respond.js';
import { context } from './request-context.js';

export function unmatched(_req: Request, _res: Response, next: NextFunction): void {
  next(notFound());
}

function statusOf(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const s = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
  return typeof s === 'number' && Number.isInteger(s) ? s : null;
}

export function toApiError(err: unknown): ServingError {
  if (err instanceof ServingError) return err;
  const status = statusOf(err);
  if (status !== null && status >= 400 && status < 500) return new ServingError('BAD_REQUEST', 'the request could not be understood');
  return internal();
}

export function errorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction): void {
  const ctx = context(res);
  const apiError = toApiError(err);
  if (apiError.status >= 500 && !(err instanceof ServingError)) ctx.log.error({ err }, 'unexpected error');
  if (res.headersSent) {
    // Too late for an error body: cut the connection so the client sees a failure, not a short answer.
    res.destroy();
    return;
  }
  sendError(res, apiError);
}
