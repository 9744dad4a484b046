/**
 * In-process token bucket per caller (key id, or client IP for anonymous callers). A bucket holds up to
 * `burst` tokens, refills at `rate` per second, and each request takes one. State lives in this process:
 * with several API replicas each enforces its own share (a shared store such as Redis would be needed to
 * enforce one global limit). Kept behind RateLimiter so that swap stays local to this file.
 *
 * Header values follow the IETF RateLimit header fields draft: Limit = burst (the quota), Remaining =
 * whole tokens left, Reset = seconds until the bucket is full again; a refusal adds Retry-After = seconds
 * until one token is back.
 */
import type { TierLimits } from './deps.js';

export interface LimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
  /** 0 when allowed. */
  readonly retryAfterSeconds: number;
}

export interface RateLimiter {
  /**
   * Takes `cost` tokens (default 1) when at least one is left. cost 0 only looks: allowed = a token is
   * left, nothing taken (the wrong-key check asks before the lookup and pays only when the key is wrong).
   */
  consume(caller: string, limits: TierLimits, cost?: number): LimitDecision;
}

interface Bucket {
  tokens: number;
  at: number;
  rate: number;
  burst: number;
}

/** How many consume() calls between sweeps of full buckets (which are the same as absent ones). */
const SWEEP_EVERY = 1024;

export class TokenBucketLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private calls = 0;

  constructor(private readonly now: () => number) {}

  consume(caller: string, limits: TierLimits, cost = 1): LimitDecision {
    const t = this.now();
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(t);
    const bucket = this.buckets.get(caller);
    let tokens = bucket ? refill(bucket, t, limits) : limits.burst;
    const allowed = tokens >= 1;
    if (allowed) tokens = Math.max(0, tokens - cost);
    // A look at an absent bucket must not create one (it would be full: the same as absent).
    if (cost > 0 || bucket) this.buckets.set(caller, { tokens, at: t, rate: limits.rate, burst: limits.burst });
    return {
      allowed,
      limit: limits.burst,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((limits.burst - tokens) / limits.rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / limits.rate)),
    };
  }

  /** Number of callers currently tracked (tests check that sweeping bounds memory). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(t: number): void {
    for (const [caller, bucket] of this.buckets) {
      if (refill(bucket, t, bucket) >= bucket.burst) this.buckets.delete(caller);
    }
  }
}

function refill(bucket: Bucket, t: number, limits: TierLimits): number {
  // A clock that steps backwards (NTP) must not drain or overfill the bucket: count no elapsed time.
  const elapsed = Math.max(0, t - bucket.at) / 1000;
  return Math.min(limits.burst, bucket.tokens + elapsed * limits.rate);
}
