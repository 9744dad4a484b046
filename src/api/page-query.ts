/**
 * The query of a paged route (`?limit=` and `&cursor=`, the UTXO listing's and the history's): each
 * parameter at most once, and a limit that is a whole number within the route's bounds.
 */
import type { Request } from 'express';
import { ServingError } from '../serving/errors.js';

export interface LimitBounds {
  readonly default: number;
  readonly max: number;
}

export function queryOf(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
}

/** The parameter's one value, null when absent; BAD_REQUEST when it is given more than once. */
export function oneParam(p: URLSearchParams, name: string): string | null {
  const values = p.getAll(name);
  if (values.length > 1) throw new ServingError('BAD_REQUEST', `the ${name} parameter is given more than once`);
  return values[0] ?? null;
}

/** The page size asked for; INVALID_LIMIT when it is not a whole number from 1 to the maximum. */
export function parseLimit(p: URLSearchParams, bounds: LimitBounds): number {
  const text = oneParam(p, 'limit');
  const limit = text === null ? bounds.default : /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= bounds.max))
    throw new ServingError('INVALID_LIMIT', `limit must be a whole number from 1 to ${bounds.max} (default ${bounds.default})`);
  return limit;
}

/** The page size alone, for the price before anything else is parsed: the default when it is not a valid one. */
export function requestedLimit(req: Request, bounds: LimitBounds): number {
  const text = queryOf(req).getAll('limit')[0];
  const n = text !== undefined && /^\d{1,4}$/.test(text) ? Number(text) : bounds.default;
  return n >= 1 && n <= bounds.max ? n : bounds.default;
}
