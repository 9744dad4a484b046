/**
 * Refuses URLs whose path cannot be percent-decoded (`%E0%A4%A`, `%zz`) with 400 BAD_REQUEST before any
 * routing: Express's router would otherwise throw a URIError while decoding route parameters. This is an
 * HTTP-level check, so it comes before method, chain and key checks.
 */
import type { NextFunction, Request, Response } from 'express';
import { ServingError } from '../../serving/errors.js';

export function decodesCleanly(path: string): boolean {
  if (!path.includes('%')) return true;
  try {
    for (const segment of path.split('/')) decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

export function rejectMalformedUrl(req: Request, _res: Response, next: NextFunction): void {
  if (!decodesCleanly(req.path)) {
    throw new ServingError('BAD_REQUEST', 'the URL path contains invalid percent-encoding');
  }
  next();
}
