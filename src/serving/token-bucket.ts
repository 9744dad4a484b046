/**
 * Token buckets, one per caller. A bucket holds up to `burst` tokens, refills at `rate` per second, and a
 * request takes `cost` tokens (1 unless the route says otherwise). This file holds the interface every
 * bucket store implements and the in-process store (the default): its state lives in this process, so
 * with several API processes each enforces its own share. redis-buckets.ts keeps the same buckets in
 * Redis, shared by every process that names the same Redis.
 *
 * Callers are named `<family>:<id>` (`key:<key id>`, `ip:<client IP>`, …): any family of buckets plugs in
 * by choosing a prefix and its TierLimits; families never collide and share one store.
 *
 * Overdraw: a request that may cost more than the burst (a large wallet, priced by its work) is taken
 * from a full bucket, which goes below zero; the caller's next request waits until the debt is repaid
 * at the tier's rate. Without it such a request never fits, and the caller is told to split it.
 *
 * Header values follow the IETF RateLimit header fields draft: Limit = burst (the quota), Remaining =
 * whole tokens left, Reset = seconds until the bucket is full again; a refusal adds Retry-After = seconds
 * until one token is back.
 */

export interface TierLimits {
  readonly rate: number;
  readonly burst: number;
}

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
   * Takes `cost` tokens from `caller`'s bucket if it holds that many; cost 0 only looks (allowed = a token
   * is left, nothing taken).
   * `draw`: 'within' takes only what the bucket holds; 'overdraw' also takes a cost above the burst
   * from a full bucket (see above); 'debit' always takes (holdRefill in middleware/rate-limit.ts).
   * In-process stores answer at once;
   * shared ones (Redis) answer with a promise, so callers handle both without a promise per request here.
   */
  consume(caller: string, limits: TierLimits, cost?: number, draw?: Draw): LimitDecision | Promise<LimitDecision>;
}

export type Draw = 'within' | 'overdraw' | 'debit';

/** Tokens a bucket must hold for `cost` to be taken. */
export function tokensNeeded(cost: number, limits: TierLimits, draw: Draw): number {
  const need = Math.max(cost, 1);
  if (draw === 'debit') return Number.NEGATIVE_INFINITY;
  return draw === 'overdraw' ? Math.min(need, limits.burst) : need;
}

/** The decision for a bucket left holding `tokens` after the attempt (`allowed`: `cost` was taken). */
export function decide(allowed: boolean, tokens: number, limits: TierLimits, cost: number): LimitDecision {
  return {
    allowed,
    limit: limits.burst,
    // An overdrawn bucket is below zero: nothing remains.
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.ceil((limits.burst - tokens) / limits.rate),
    // A cost above the burst never fits: the wait shown is until the bucket is full, which then says so.
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((Math.min(Math.max(cost, 1), limits.burst) - tokens) / limits.rate)),
  };
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

  consume(caller: string, limits: TierLimits, cost = 1, draw: Draw = 'within'): LimitDecision {
    const t = this.now();
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(t);
    const bucket = this.buckets.get(caller);
    let tokens = bucket ? refill(bucket, t, limits) : limits.burst;
    const allowed = tokens >= tokensNeeded(cost, limits, draw);
    if (allowed) tokens -= cost;
    if (bucket) {
      // Updated in place: no object per request on the hot path.
      bucket.tokens = tokens;
      bucket.at = t;
      bucket.rate = limits.rate;
      bucket.burst = limits.burst;
    } else if (cost > 0) {
      // A look at an absent bucket creates none (it would be full: the same as absent).
      this.buckets.set(caller, { tokens, at: t, rate: limits.rate, burst: limits.burst });
    }
    return decide(allowed, tokens, limits, cost);
  }

  /**
   * Sets `caller`'s bucket to `tokens` now: a shared store's answer mirrored here, so that falling back
   * to this store continues from the shared state instead of granting every caller a fresh burst.
   */
  set(caller: string, tokens: number, limits: TierLimits): void {
    const t = this.now();
    // Mirrored buckets are bounded by the same sweep as consumed ones (every anonymous IP makes one).
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(t);
    const bucket = this.buckets.get(caller);
    if (bucket) {
      bucket.tokens = tokens;
      bucket.at = t;
      bucket.rate = limits.rate;
      bucket.burst = limits.burst;
    } else {
      this.buckets.set(caller, { tokens, at: t, rate: limits.rate, burst: limits.burst });
    }
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
