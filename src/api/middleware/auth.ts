/**
 * x-api-key authentication. Runs after the chain check and before address validation, so anonymous
 * probes get a 401 and cannot use the address validator for free. The key itself is never logged or
 * labelled; the key id is.
 *
 * The key is looked up first, and a valid key goes on to its own bucket whatever else arrives from its
 * client network: behind a proxy without api.trustProxyHops every client shares one address, and a
 * throttle in front of the lookup would turn one sender of junk keys into a 429 for every keyed caller.
 * The lookup is cheap enough to run for every request, junk included: a malformed value is refused by
 * its shape, and a well-formed one costs a SHA-256 and a map lookup in the in-memory key cache, whose
 * file-change check runs once per event-loop turn (src/store/sqlite/key-cache.ts, per-turn.ts).
 *
 * Wrong keys cost the sender: each missing or wrong key takes a token from its client network's
 * `badkey:` bucket (api.invalidKeys) and is answered 401, or 429 once that bucket is empty, so floods of
 * junk keys are throttled per network like anything else. A right key is never hidden behind that 429;
 * guessing one is hopeless anyway (256 random bits, src/store/keys/key-format.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { KeyFailure, KeyVerifier } from '../../store/keys/key-verifier.js';
import type { ApiMetrics } from '../metrics.js';
import { buckets } from '../../serving/caller-buckets.js';
import type { ApiSettings, TierLimits } from '../deps.js';
import { ServingError } from '../../serving/errors.js';
import type { LimitDecision, RateLimiter } from '../../serving/token-bucket.js';
import { setLimitHeaders } from './rate-limit.js';
import { context } from './request-context.js';
import { asMiddleware, type Step } from './step.js';

const CHALLENGE = { 'WWW-Authenticate': 'ApiKey header="x-api-key"' };

const FAILURE_MESSAGES: Readonly<Record<KeyFailure, string>> = {
  malformed: 'the x-api-key value is not an addrsum API key (they start with asum_)',
  unknown: 'unknown API key',
  revoked: 'this API key has been revoked',
};

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
    let reason: KeyFailure | 'missing' = 'missing';
    if (!missing) {
      const check = keys.verify(Array.isArray(presented) ? presented.join(', ') : presented);
      if (check.ok) {
        ctx.tier = check.tier;
        ctx.keyId = check.id;
        return;
      }
      reason = check.reason;
    }
    // Only now, for a missing or wrong key, the network's bad-key bucket: a token paid, or 429.
    const paid = limiter.consume(buckets.invalidKey(req.ip), limits);
    // Express 5 forwards a rejected promise (429, 401, 503 LIMITS_UNAVAILABLE) to the error handler.
    if (paid instanceof Promise) return paid.then((decision) => refuse(res, decision, reason));
    refuse(res, paid, reason);
  };

  /** Throws the answer to a missing or wrong key: 401 when its token was paid, 429 when none was left. */
  function refuse(res: Response, decision: LimitDecision, reason: KeyFailure | 'missing'): never {
    const ctx = context(res);
    if (!decision.allowed) {
      setLimitHeaders(res, decision);
      metrics.rateLimited.inc({ tier: 'invalid_key' });
      ctx.authFailure = 'throttled';
      throw new ServingError(
        'RATE_LIMITED',
        `too many requests with a missing or wrong API key from this network (${limits.rate}/s, burst ${limits.burst}); retry in ${decision.retryAfterSeconds} s`,
        undefined,
        { 'Retry-After': String(decision.retryAfterSeconds) },
      );
    }
    metrics.authFailures.inc({ reason });
    ctx.authFailure = reason;
    if (reason === 'missing') throw new ServingError('MISSING_API_KEY', 'send your API key in the x-api-key header', undefined, CHALLENGE);
    throw new ServingError('INVALID_API_KEY', FAILURE_MESSAGES[reason], undefined, CHALLENGE);
  }
}
