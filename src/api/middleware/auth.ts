/**
 * x-api-key authentication. Runs after the chain check and before address validation, so anonymous
 * probes get a 401 and cannot use the address validator for free. The key itself is never logged or
 * labelled; the key id is.
 *
 * Wrong keys cost the sender: each wrong or missing key takes a token from its client network's
 * `badkey:` bucket (api.invalidKeys), and once that is empty the request is refused 429 BEFORE the key
 * is looked up, so guessing keys (or flooding with junk ones) is throttled per network like anything else.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { KeyVerifier } from '../../keys/key-verifier.js';
import type { ApiMetrics } from '../metrics.js';
import { buckets } from '../caller-buckets.js';
import type { ApiSettings, TierLimits } from '../deps.js';
import { ApiError } from '../errors.js';
import type { LimitDecision, RateLimiter } from '../token-bucket.js';
import { setLimitHeaders } from './rate-limit.js';
import { context } from './request-context.js';
import { asMiddleware, type Step } from './step.js';

const CHALLENGE = { 'WWW-Authenticate': 'ApiKey header="x-api-key"' };

/** Used when the settings carry none (tests, older callers of createApp). */
export const DEFAULT_INVALID_KEY_LIMITS: TierLimits = { rate: 1, burst: 20 };

export function authenticate(keys: KeyVerifier, settings: ApiSettings, limiter: RateLimiter, metrics: ApiMetrics): RequestHandler {
  return asMiddleware(keyCheck(keys, settings, limiter, metrics));
}

/** The key check as a step (step.ts): throws its 401/429, or sets the context's tier and key id. */
export function keyCheck(keys: KeyVerifier, settings: ApiSettings, limiter: RateLimiter, metrics: ApiMetrics): Step {
  const limits = settings.invalidKeys ?? DEFAULT_INVALID_KEY_LIMITS;
  return (req: Request, res: Response) => {
    const ctx = context(res);
    // Node joins repeated unknown headers with ", ", which no well-formed key contains.
    const presented = req.headers['x-api-key'];
    const missing = presented === undefined || presented === '';
    if (missing && settings.allowAnonymous) {
      ctx.tier = 'default';
      return;
    }
    const bucket = buckets.invalidKey(req.ip);
    // A wrong key pays after the lookup; a shared store answers with a promise, whose failure the
    // limiter itself reports (the request has its answer already).
    const pay = () => {
      const paid = limiter.consume(bucket, limits);
      if (paid instanceof Promise) paid.catch(() => undefined);
    };
    const afterLook = (look: LimitDecision): void => {
      if (!look.allowed) {
        setLimitHeaders(res, look);
        metrics.rateLimited.inc({ tier: 'invalid_key' });
        ctx.authFailure = 'throttled';
        throw new ApiError(
          'RATE_LIMITED',
          `too many requests with a missing or wrong API key from this network (${limits.rate}/s, burst ${limits.burst}); retry in ${look.retryAfterSeconds} s`,
          undefined,
          { 'Retry-After': String(look.retryAfterSeconds) },
        );
      }
      if (missing) {
        pay();
        metrics.authFailures.inc({ reason: 'missing' });
        ctx.authFailure = 'missing';
        throw new ApiError('MISSING_API_KEY', 'send your API key in the x-api-key header', undefined, CHALLENGE);
      }
      const check = keys.verify(Array.isArray(presented) ? presented.join(', ') : presented);
      if (!check.ok) {
        pay();
        metrics.authFailures.inc({ reason: check.reason });
        ctx.authFailure = check.reason;
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
    };
    const look = limiter.consume(bucket, limits, 0);
    // Express 5 forwards a rejected promise (429, 401, 503 LIMITS_UNAVAILABLE) to the error handler.
    if (look instanceof Promise) return look.then(afterLook);
    afterLook(look);
  };
}
