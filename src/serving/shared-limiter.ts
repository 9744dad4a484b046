/**
 * The token-bucket store when ADDRSUM_REDIS_URL is set: buckets in Redis (redis-buckets.ts), shared by
 * every API process, with the in-process store as the fallback while Redis cannot be reached.
 *
 *   Redis answers         → its decision.
 *   Redis fails or is down → `fail-open` (default): the in-process buckets answer, so the API keeps
 *                            serving within each process's own share of the limits. Every Redis answer
 *                            is mirrored into them, so a caller seen before the outage continues from
 *                            the tokens it had, and a blip grants no second burst;
 *                            `fail-closed`: 503 LIMITS_UNAVAILABLE, nothing is served unlimited-by-N.
 * Each switch is one log line (warn going to the fallback, info coming back) and the gauge
 * addrsum_api_limiter_fallback (1 while in fallback). While down, a request tries Redis again once the
 * connection is ready and at least RETRY_MS have passed since the last failure, so a Redis that was only
 * slow is picked up again without waiting for a reconnect.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { redactUrl } from '../redact.js';
import type { Logger } from '../logger.js';
import { ServingError } from './errors.js';
import { RedisBuckets } from './redis-buckets.js';
import { decide, TokenBucketLimiter, type Draw, type LimitDecision, type RateLimiter, type TierLimits } from './token-bucket.js';

export const FAILURE_MODES = ['fail-open', 'fail-closed'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

const RETRY_MS = 1000;

export interface LimiterMetrics {
  readonly fallback: Gauge;
  readonly storeErrors: Counter;
}

/** Registered on the app's registry, next to the other addrsum_api_* series. */
export function createLimiterMetrics(registry: Registry): LimiterMetrics {
  return {
    fallback: new Gauge({
      name: 'addrsum_api_limiter_fallback',
      help: '1 while Redis is configured but unreachable and limits come from in-process buckets (or are refused, fail-closed), else 0',
      // Across workers (cluster-metrics.ts): 1 when any worker has fallen back.
      aggregator: 'max',
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: 'addrsum_api_limiter_store_errors_total',
      help: 'Token-bucket operations that Redis failed (unreachable, timeout, error)',
      registers: [registry],
    }),
  };
}

export interface SharedLimiterOptions {
  readonly redis: RedisBuckets;
  readonly mode: FailureMode;
  readonly logger: Logger;
  readonly metrics: LimiterMetrics;
  readonly now?: () => number;
}

export class SharedLimiter implements RateLimiter {
  private readonly local: TokenBucketLimiter;
  private readonly redis: RedisBuckets;
  private readonly now: () => number;
  private state: 'starting' | 'up' | 'down' = 'starting';
  private retryAt = 0;

  constructor(private readonly options: SharedLimiterOptions) {
    this.redis = options.redis;
    this.now = options.now ?? Date.now;
    this.local = new TokenBucketLimiter(this.now);
    // Until the first connection is ready, requests are answered as in fallback (without a warning:
    // the first ready usually comes within milliseconds of start).
    options.metrics.fallback.set(1);
    this.redis.client.on('ready', () => this.markUp());
    // ioredis emits 'error' for every failed connection attempt; a listener is required (else it throws).
    this.redis.client.on('error', (err: Error) => this.markDown(err));
    this.redis.client.on('close', () => {
      if (this.state === 'up') this.markDown(new Error('connection to Redis closed'));
    });
  }

  /** Whether decisions currently come from Redis. */
  get shared(): boolean {
    return this.state === 'up';
  }

  consume(caller: string, limits: TierLimits, cost = 1, draw: Draw = 'within'): LimitDecision | Promise<LimitDecision> {
    // While down, requests never wait on Redis: a PING in the background (probe) decides when it is back.
    // A Redis that hangs (SIGSTOP, swapping) would otherwise stall a request for the command timeout at
    // every retry.
    if (this.state === 'down') {
      this.probe();
      return this.fallback(caller, limits, cost, draw);
    }
    if (this.state === 'starting' && !this.redis.ready) return this.fallback(caller, limits, cost, draw);
    return this.redis.take(caller, limits, cost, draw).then(
      (taken) => {
        this.markUp();
        this.local.set(caller, taken.tokens, limits);
        return decide(taken.allowed, taken.tokens, limits, cost);
      },
      (err: unknown) => {
        this.options.metrics.storeErrors.inc();
        this.markDown(err);
        return this.fallback(caller, limits, cost, draw);
      },
    );
  }

  /** Fail-closed and Redis not answering: every limited request is refused (LIMITS_UNAVAILABLE). */
  get refusing(): boolean {
    if (this.options.mode !== 'fail-closed') return false;
    // Asked by /ready: with no traffic (a load balancer took us out), this probe is what notices Redis is back.
    if (this.state === 'down') this.probe();
    return this.state === 'down' || !this.redis.ready;
  }

  private probing = false;

  /** One PING at a time, at most once per RETRY_MS, while down. */
  private probe(): void {
    if (this.probing || !this.redis.ready || this.now() < this.retryAt) return;
    this.probing = true;
    this.redis.client.ping().then(
      () => {
        this.probing = false;
        this.markUp();
      },
      (err: unknown) => {
        this.probing = false;
        this.options.metrics.storeErrors.inc();
        this.markDown(err);
      },
    );
  }

  private fallback(caller: string, limits: TierLimits, cost: number, draw: Draw): LimitDecision {
    if (this.options.mode === 'fail-closed') {
      throw new ServingError(
        'LIMITS_UNAVAILABLE',
        'request limits cannot be checked right now (the limit store is unreachable); retry shortly',
        undefined,
        {
          'Retry-After': '1',
        },
      );
    }
    return this.local.consume(caller, limits, cost, draw);
  }

  private markUp(): void {
    if (this.state === 'up') return;
    this.state = 'up';
    this.options.metrics.fallback.set(0);
    this.options.logger.info('limits: using Redis (shared by every API process)');
  }

  private markDown(err: unknown): void {
    this.retryAt = this.now() + RETRY_MS;
    this.options.metrics.fallback.set(1);
    if (this.state === 'down') return;
    this.state = 'down';
    const what =
      this.options.mode === 'fail-open'
        ? 'answering from in-process token buckets (fail-open)'
        : 'refusing limited requests with 503 (fail-closed)';
    this.options.logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      `limits: Redis unreachable; ${what} until it is back`,
    );
  }
}

export interface LimiterSettings {
  readonly workers: number;
  readonly redisUrl?: string | undefined;
  readonly redisFailureMode: FailureMode;
}

/**
 * Said once, by the supervisor of several workers (not by each worker, nor again at every SIGHUP's
 * rolling restart): without Redis every worker limits on its own. The logger's `component` names the
 * area, so the message does not repeat it.
 */
export function warnUnsharedLimits(settings: LimiterSettings, logger: Logger): void {
  if (settings.redisUrl !== undefined || settings.workers <= 1) return;
  logger
    .child({ component: 'limits' })
    .warn(
      { workers: settings.workers },
      'each worker keeps its own token buckets (a caller gets up to workers x its tier); set ADDRSUM_REDIS_URL to share them',
    );
}

/**
 * The bucket store the configuration asks for: Redis behind SharedLimiter when redisUrl is set, else
 * none (createApp then makes the in-process one). `close` ends the Redis connection.
 */
export function createLimiter(
  settings: LimiterSettings,
  logger: Logger,
  registry: Registry,
): { limiter?: RateLimiter; close(): void; refusing(): boolean } {
  const log = logger.child({ component: 'limits' });
  if (settings.redisUrl === undefined) return { close: () => undefined, refusing: () => false };
  const redis = new RedisBuckets(settings.redisUrl);
  const limiter = new SharedLimiter({ redis, mode: settings.redisFailureMode, logger: log, metrics: createLimiterMetrics(registry) });
  log.info({ redis: redactUrl(settings.redisUrl), onFailure: settings.redisFailureMode }, 'limits: token buckets in Redis');
  return { limiter, close: () => redis.client.disconnect(), refusing: () => limiter.refusing };
}
