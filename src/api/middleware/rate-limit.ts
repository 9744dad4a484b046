/**
 * Per-caller limits after authentication: the key id's bucket, or the client network's (IPv6: /64) for
 * anonymous callers, sized by the caller's tier. Every limited response (including 429) carries RateLimit-Limit,
 * RateLimit-Remaining and RateLimit-Reset; a 429 adds Retry-After. The store answers synchronously
 * (in-process buckets) or with a promise (Redis); the synchronous path allocates no promise.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { ApiMetrics } from '../metrics.js';
import type { ApiSettings } from '../deps.js';
import { ServingError } from '../../serving/errors.js';
import { buckets } from '../../serving/caller-buckets.js';
import type { LimitDecision, RateLimiter, TierLimits } from '../../serving/token-bucket.js';
import { context } from './request-context.js';
import { asMiddleware, type Step } from './step.js';

/** Names a request too large for any burst, by its cost in tokens (the batch route's wording by default). */
export type Oversize = (tokens: number) => string;

const batchOversize: Oversize = (n) => `a batch of ${n} addresses`;

/**
 * `cost`: tokens this request takes (default one; a batch takes one per address, a wallet one per
 * 200 key derivations). `overdraw`: a cost above the burst is taken from a full bucket (token-bucket.ts).
 */
export function rateLimit(
  limiter: RateLimiter,
  settings: ApiSettings,
  metrics: ApiMetrics,
  cost: (req: Request, res: Response) => number = () => 1,
  oversize: Oversize = batchOversize,
  overdraw = false,
): RequestHandler {
  return asMiddleware(limitCheck(limiter, settings, metrics, cost, oversize, overdraw));
}

/** The limit check as a step (step.ts): throws its 429, or sets the RateLimit-* headers. */
export function limitCheck(
  limiter: RateLimiter,
  settings: ApiSettings,
  metrics: ApiMetrics,
  cost: (req: Request, res: Response) => number = () => 1,
  oversize: Oversize = batchOversize,
  overdraw = false,
): Step {
  const apply = (res: Response, tier: 'default' | 'private', n: number, decision: LimitDecision): void => {
    setLimitHeaders(res, decision);
    if (!decision.allowed) {
      metrics.rateLimited.inc({ tier });
      const what =
        n > decision.limit && !overdraw
          ? `${oversize(n)} exceeds the ${tier} tier's burst of ${decision.limit}; split it`
          : `too many requests for the ${tier} tier (${settings.tiers[tier].rate}/s, burst ${decision.limit}); retry in ${decision.retryAfterSeconds} s`;
      throw new ServingError('RATE_LIMITED', what, undefined, { 'Retry-After': String(decision.retryAfterSeconds) });
    }
  };
  return (req: Request, res: Response) => {
    const ctx = context(res);
    const tier = ctx.tier;
    if (tier === 'none') throw new Error('rate limiting before authentication');
    const caller = ctx.keyId !== null ? buckets.key(ctx.keyId) : buckets.anonymous(req.ip);
    const n = cost(req, res);
    const limits = settings.tiers[tier];
    const decision = limiter.consume(caller, limits, n, overdraw ? 'overdraw' : 'within');
    if (overdraw && n > limits.burst) res.locals.overdrawn = { caller, limits, tokens: n } satisfies Overdrawn;
    if (decision instanceof Promise) {
      // Express 5 forwards the rejection (429, 503 LIMITS_UNAVAILABLE) to the error handler.
      return decision.then((d) => apply(res, tier, n, d));
    }
    apply(res, tier, n, decision);
  };
}

/** What an overdrawing request took, for holdRefill once its work is done. */
export interface Overdrawn {
  readonly caller: string;
  readonly limits: TierLimits;
  readonly tokens: number;
}

/**
 * A price above the burst is repaid from when its work ends, not from when it was taken: the refill of
 * the `seconds` the caller's own work ran is taken back, so the caller's next request waits out the whole
 * debt however long the work took (a heavy wallet on a slow machine would otherwise have repaid itself).
 */
export function holdRefill(limiter: RateLimiter, taken: Overdrawn | undefined, seconds: number): void {
  if (!taken || seconds <= 0) return;
  const debit = limiter.consume(taken.caller, taken.limits, Math.min(taken.tokens, seconds * taken.limits.rate), 'debit');
  // The answer is on its way: a store that fails here (Redis) reports it itself.
  if (debit instanceof Promise) debit.catch(() => undefined);
}

export function setLimitHeaders(res: Response, decision: LimitDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}
