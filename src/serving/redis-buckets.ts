/**
 * Token buckets kept in Redis, so every API process (workers on one machine, or machines) that names the
 * same Redis draws from one bucket per caller. Each take is ONE Lua script run by Redis (EVALSHA through
 * ioredis's defineCommand, which reloads the script after a Redis restart): refill by the time elapsed,
 * take `cost` if present, store, set an expiry — atomic, so concurrent processes can never both spend
 * the same token. The clock is Redis's own (TIME), so processes on machines with skewed clocks agree.
 *
 * Layout: one hash per caller at `addrsum:bucket:<family>:<id>` with fields `tokens` (float) and `at`
 * (ms); it expires once it would have refilled to `burst`, when it is the same as no key at all.
 *
 * rate-limiter-flexible was the first choice, but its Redis limiters are fixed windows (INCR + PEXPIRE),
 * which admit up to 2 × burst across a window edge: not the tiers' token-bucket contract.
 */
import { Redis } from 'ioredis';

import type { Draw, TierLimits } from './token-bucket.js';

export const BUCKET_KEY_PREFIX = 'addrsum:bucket:';

const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
-- draw (token-bucket.ts): overdraw takes a cost above the burst from a full bucket, debit always takes
local need = math.max(cost, 1)
if ARGV[4] == 'overdraw' then need = math.min(need, burst) end
if ARGV[4] == 'debit' then need = -math.huge end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = burst
if state[1] and state[2] then
  local elapsed = math.max(0, now - tonumber(state[2])) / 1000
  tokens = math.min(burst, tonumber(state[1]) + elapsed * rate)
end
local allowed = 0
-- cost 0 only looks: allowed while a token is left, nothing taken
if tokens >= need then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return { allowed, tostring(tokens) }
`;

export interface BucketTake {
  readonly allowed: boolean;
  /** Tokens left after the take. */
  readonly tokens: number;
}

type TakeCommand = (key: string, rate: number, burst: number, cost: number, draw: Draw) => Promise<[number, string]>;

export interface RedisBucketsOptions {
  /** A take slower than this fails (and the caller falls back) rather than holding the request. */
  readonly commandTimeoutMs?: number;
  /** Longest wait between reconnection attempts while Redis is away. */
  readonly maxReconnectDelayMs?: number;
}

export class RedisBuckets {
  readonly client: Redis;
  private readonly take_: TakeCommand;

  constructor(url: string, options: RedisBucketsOptions = {}) {
    const maxDelay = options.maxReconnectDelayMs ?? 1000;
    this.client = new Redis(url, {
      // Fail at once while disconnected instead of queueing requests behind a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Generous: on a CPU-starved process the timer can fire before a reply already in the socket is read,
      // and each spurious timeout is a switch to the fallback.
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: 1000,
      // Keep trying for as long as the process runs: limits go back to Redis when it returns.
      retryStrategy: (times) => Math.min(50 * times, maxDelay),
    });
    // Connection errors repeat on every reconnect attempt; whoever watches the state (SharedLimiter) adds
    // its own listener and reports them once. Without any listener ioredis prints each one to stderr.
    this.client.on('error', () => undefined);
    this.client.defineCommand('addrsumTakeTokens', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.take_ = (this.client as unknown as { addrsumTakeTokens: TakeCommand }).addrsumTakeTokens.bind(this.client);
  }

  /** True while the connection is up and ready for commands. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  async take(caller: string, limits: TierLimits, cost: number, draw: Draw = 'within'): Promise<BucketTake> {
    const [allowed, tokens] = await this.take_(BUCKET_KEY_PREFIX + caller, limits.rate, limits.burst, cost, draw);
    return { allowed: allowed === 1, tokens: Number(tokens) };
  }

  /** Closes the connection and stops reconnecting. */
  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
