/**
 * Per-caller limits after authentication: the key id's bucket, or the client network's (IPv6: /64) for
 * anonymous callers, sized by the caller's tier. Every limited response (including 429) carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset; a 429 adds Retry-After.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ApiMetrics } from '../../metrics.js';
import type { ApiSettings } from '../deps.js';
import { ApiError } from '../errors.js';
import { buckets } from '../caller-buckets.js';
import type { LimitDecision, RateLimiter } from '../token-bucket.js';
import { context } from './request-context.js';

export function rateLimit(limiter: RateLimiter, settings: ApiSettings, metrics: ApiMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const ctx = context(res);
    if (ctx.tier === 'none') throw new Error('rate limiting before authentication');
    const caller = ctx.keyId !== null ? buckets.key(ctx.keyId) : buckets.anonymous(req.ip);
    const decision = limiter.consume(caller, settings.tiers[ctx.tier]);
    setLimitHeaders(res, decision);
    if (!decision.allowed) {
      metrics.rateLimited.inc({ tier: ctx.tier });
      throw new ApiError(
        'RATE_LIMITED',
        `too many requests for the ${ctx.tier} tier (${settings.tiers[ctx.tier].rate}/s, burst ${decision.limit}); retry in ${decision.retryAfterSeconds} s`,
        undefined,
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
    next();
  };
}

export function setLimitHeaders(res: Response, decision: LimitDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}
