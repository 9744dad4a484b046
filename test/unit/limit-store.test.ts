/**
 * The bucket stores behind RateLimiter: a cost per request, families that never share a bucket, and the
 * Redis store's atomicity when two clients (two API processes) take from one bucket at once. The Redis
 * here is a redis-server of this test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBuckets } from '../../src/serving/redis-buckets.js';
import { holdRefill } from '../../src/api/middleware/rate-limit.js';
import { TokenBucketLimiter } from '../../src/serving/token-bucket.js';
import { loadConfig } from '../../src/config.js';
import { ownRedis, type RedisServer } from '../support/limits-world.js';

describe('in-process buckets', () => {
  it('take `cost` tokens, refuse when fewer are left, and say how long until enough are back', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    const limits = { rate: 2, burst: 10 };
    expect(limiter.consume('batch:k', limits, 4)).toMatchObject({ allowed: true, remaining: 6 });
    expect(limiter.consume('batch:k', limits, 4)).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.consume('batch:k', limits, 4)).toMatchObject({ allowed: false, remaining: 2, retryAfterSeconds: 1 });
    expect(limiter.consume('batch:k', limits, 1)).toMatchObject({ allowed: true, remaining: 1 });
    t += 1500;
    expect(limiter.consume('batch:k', limits, 4)).toMatchObject({ allowed: true, remaining: 0 });
    // A shared store's answer mirrored in: the bucket continues from it.
    limiter.set('batch:k', 3.5, limits);
    expect(limiter.consume('batch:k', limits, 4)).toMatchObject({ allowed: false, remaining: 3 });
    // Another family with the same id has its own bucket.
    expect(limiter.consume('key:k', limits)).toMatchObject({ allowed: true, remaining: 9 });
  });
});

describe('overdraw and holdRefill (a wallet priced above the burst)', () => {
  it('takes a cost above the burst from a full bucket only, and the debt outlasts however long the work took', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    const limits = { rate: 1, burst: 30 };
    expect(limiter.consume('key:w', limits, 48, 'within')).toMatchObject({ allowed: false });
    expect(limiter.consume('key:w', limits, 48, 'overdraw')).toMatchObject({ allowed: true, remaining: 0 });
    // The wallet derived for 100 s, long enough to refill the whole debt; its refill is taken back.
    t += 100_000;
    holdRefill(limiter, { caller: 'key:w', limits, tokens: 48 }, 100);
    const next = limiter.consume('key:w', limits, 48, 'overdraw');
    expect(next).toMatchObject({ allowed: false });
    // 18 below zero, and the whole burst to refill: 48 s from now.
    expect(next.retryAfterSeconds).toBe(48);
    t += 48_000;
    expect(limiter.consume('key:w', limits, 48, 'overdraw')).toMatchObject({ allowed: true });
  });
});

describe('mirrored buckets', () => {
  it('are swept like consumed ones, so mirroring every caller does not grow memory without bound', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    for (let i = 0; i < 5000; i++) {
      limiter.set(`ip:${i}`, 9, { rate: 5, burst: 10 });
      t += 10;
    }
    expect(limiter.size).toBeLessThan(1500);
  });
});

describe('Redis buckets', () => {
  let redis: RedisServer;
  const clients: RedisBuckets[] = [];
  const connected = async (c: RedisBuckets): Promise<RedisBuckets> => {
    const end = Date.now() + 10_000;
    while (!c.ready && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    return c;
  };
  /** A client once connected: while it is not, takes fail at once (no offline queue), by design. */
  const client = (): Promise<RedisBuckets> => {
    // A long timeout: 400 takes at once on a loaded test machine must not time out (that is the fallback's job).
    const c = new RedisBuckets(redis.url, { commandTimeoutMs: 10_000 });
    clients.push(c);
    return connected(c);
  };

  beforeAll(async () => {
    redis = await ownRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await redis.stop();
  });

  it('take `cost` tokens with the same answers as the in-process store, per family', async () => {
    const c = await client();
    const limits = { rate: 1, burst: 10 };
    expect(await c.take('batch:r', limits, 4)).toMatchObject({ allowed: true });
    const second = await c.take('batch:r', limits, 4);
    expect(second.allowed).toBe(true);
    expect(second.tokens).toBeGreaterThanOrEqual(2);
    expect(second.tokens).toBeLessThan(2.5);
    expect((await c.take('batch:r', limits, 4)).allowed).toBe(false);
    expect(await c.take('key:r', limits, 1)).toMatchObject({ allowed: true, tokens: 9 });
    expect(await redis.keys('addrsum:bucket:*')).toEqual(expect.arrayContaining(['addrsum:bucket:batch:r', 'addrsum:bucket:key:r']));
  });

  it('never lets two clients spend the same token: allowed ≤ burst + rate × elapsed + 1', async () => {
    const [a, b] = await Promise.all([client(), client()]);
    const limits = { rate: 5, burst: 10 };
    const started = process.hrtime.bigint();
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).take('key:shared', limits, 1)));
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    const allowed = results.filter((r) => r.allowed).length;
    expect(allowed).toBeGreaterThanOrEqual(10);
    expect(allowed).toBeLessThanOrEqual(10 + 5 * elapsed + 1);
  });

  it('overdraw from a full bucket only, and debit always, as the in-process store does', async () => {
    const c = await client();
    const limits = { rate: 1, burst: 10 };
    expect((await c.take('key:debt', limits, 16)).allowed).toBe(false);
    expect(await c.take('key:debt', limits, 16, 'overdraw')).toMatchObject({ allowed: true });
    expect((await c.take('key:debt', limits, 16, 'overdraw')).allowed).toBe(false);
    const debited = await c.take('key:debt', limits, 5, 'debit');
    expect(debited.allowed).toBe(true);
    expect(debited.tokens).toBeLessThan(-10);
  });

  it('answer again after Redis restarts (the script is loaded anew)', async () => {
    const c = await client();
    expect((await c.take('key:restart', { rate: 1, burst: 5 }, 1)).allowed).toBe(true);
    await redis.stop();
    await expect(c.take('key:restart', { rate: 1, burst: 5 }, 1)).rejects.toThrow();
    await redis.start();
    await connected(c);
    expect(await c.take('key:restart', { rate: 1, burst: 5 }, 1)).toMatchObject({ allowed: true, tokens: 4 });
  });
});

describe('configuration', () => {
  it('reads ADDRSUM_API_WORKERS, ADDRSUM_REDIS_URL and ADDRSUM_REDIS_FAILURE_MODE, with defaults', () => {
    const defaults = loadConfig({ env: {} });
    expect(defaults.api).toMatchObject({ workers: 1, redisFailureMode: 'fail-open' });
    expect(defaults.api.redisUrl).toBeUndefined();
    const set = loadConfig({
      env: { ADDRSUM_API_WORKERS: '4', ADDRSUM_REDIS_URL: 'redis://:pw@127.0.0.1:6379/2', ADDRSUM_REDIS_FAILURE_MODE: 'fail-closed' },
    });
    expect(set.api).toMatchObject({ workers: 4, redisUrl: 'redis://:pw@127.0.0.1:6379/2', redisFailureMode: 'fail-closed' });
  });

  it('refuses bad values naming the variable, and never echoes the Redis URL (it may hold a password)', () => {
    expect(() => loadConfig({ env: { ADDRSUM_API_WORKERS: '0' } })).toThrow(/ADDRSUM_API_WORKERS: expected an integer from 1 to 64/);
    expect(() => loadConfig({ env: { ADDRSUM_REDIS_FAILURE_MODE: 'open' } })).toThrow(
      /ADDRSUM_REDIS_FAILURE_MODE: expected fail-open or fail-closed/,
    );
    let message = '';
    try {
      loadConfig({ env: { ADDRSUM_REDIS_URL: 'http://user:s3cret@host:6379' } });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^ADDRSUM_REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL/);
    expect(message).not.toContain('s3cret');
  });
});
