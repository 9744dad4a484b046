/**
 * x-api-key authentication. Runs after the chain check and before address validation, so anonymous
 * probes get a 401 and cannot use the address validator for free. The key itself is never logged or
 * labelled; the key id is.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KeyVerifier } from '../../keys/key-verifier.js';
import type { ApiMetrics } from '../../metrics.js';
import { ApiError } from '../errors.js';
import { context } from './request-context.js';

const CHALLENGE = { 'WWW-Authenticate': 'ApiKey header="x-api-key"' };

export function authenticate(keys: KeyVerifier, allowAnonymous: boolean, metrics: ApiMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = context(res);
    // Node joins repeated unknown headers with ", ", which no well-formed key contains.
    const presented = req.headers['x-api-key'];
    if (presented === undefined || presented === '') {
      if (allowAnonymous) {
        ctx.tier = 'default';
        return next();
      }
      metrics.authFailures.inc({ reason: 'missing' });
      throw new ApiError('MISSING_API_KEY', 'send your API key in the x-api-key header', undefined, CHALLENGE);
    }
    const check = keys.verify(Array.isArray(presented) ? presented.join(', ') : presented);
    if (!check.ok) {
      metrics.authFailures.inc({ reason: check.reason });
      ctx.log.info({ reason: check.reason }, 'API key refused');
      const message =
        check.reason === 'revoked'
          ? 'this API key has been revoked'
          : check.reason === 'malformed'
            ? 'the x-api-key value is not an addrsum API key (they start with asum_)'
            : 'unknown API key';
      throw new ApiError('INVALID_API_KEY', message, undefined, CHALLENGE);
    }
    ctx.tier = check.tier;
    ctx.keyId = check.id;
    next();
  };
}
