/**
 * Per-caller limits after authentication: the key id's bucket, or the client IP's for anonymous
 * callers, sized by the caller's tier. Every limited response (including 429) carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset; a 429 adds Retry-After.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiMetrics } from '../../metrics.js';
import type { ApiSettings } from '../deps.js';
import { ApiError } from '../errors.js';
import type { RateLimiter } from '../token-bucket.js';
import { context } from './request-context.js';

/** `cost`: tokens this request takes (default one; a batch takes one per address). */
export function rateLimit(limiter: RateLimiter, settings: ApiSettings, metrics: ApiMetrics, cost: (req: Request, res: Response) => number = () => 1): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = context(res);
    if (ctx.tier === 'none') throw new Error('rate limiting before authentication');
    const caller = ctx.keyId !== null ? `key:${ctx.keyId}` : `ip:${req.ip ?? 'unknown'}`;
    const n = cost(req, res);
    const decision = limiter.consume(caller, settings.tiers[ctx.tier], n);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      metrics.rateLimited.inc({ tier: ctx.tier });
      const what = n > decision.limit ? `a batch of ${n} addresses exceeds the ${ctx.tier} tier's burst of ${decision.limit}; split it` : `too many requests for the ${ctx.tier} tier (${settings.tiers[ctx.tier].rate}/s, burst ${decision.limit}); retry in ${decision.retryAfterSeconds} s`;
      throw new ApiError(
        'RATE_LIMITED',
        what,
        undefined,
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
    next();
  };
}
