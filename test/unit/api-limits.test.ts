import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '../../src/serving/token-bucket.js';
import { worldPerTest, type Caller } from '../support/api-world.js';

const ADDRESS = '/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';

const world = worldPerTest();

async function burst(c: Caller, n: number, headers: Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await c.send('GET', ADDRESS, headers)).status);
  return statuses;
}

describe('tiers', () => {
  it('a default-tier key gets 429s under a burst of 40, a private key does not', async () => {
    const { w, c } = world();
    const low = w.createKey('default').key;
    const high = w.createKey('private').key;
    const lowStatuses = await burst(c, 40, { 'x-api-key': low });
    expect(lowStatuses.filter((s) => s === 200)).toHaveLength(10);
    expect(lowStatuses.filter((s) => s === 429)).toHaveLength(30);
    expect(lowStatuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    const highStatuses = await burst(c, 40, { 'x-api-key': high });
    expect(highStatuses.every((s) => s === 200)).toBe(true);
    expect(c.problems).toEqual([]);
  });

  it('also with the wall clock', async () => {
    const { w, c } = world({ realClock: true });
    const low = await burst(c, 40, { 'x-api-key': w.createKey('default').key });
    const high = await burst(c, 40, { 'x-api-key': w.createKey('private').key });
    expect(low.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(high.filter((s) => s === 429)).toHaveLength(0);
  });

  it('counts per key: one key being throttled does not throttle another', async () => {
    const { w, c } = world();
    const a = w.createKey('default').key;
    const b = w.createKey('default').key;
    await burst(c, 12, { 'x-api-key': a });
    expect((await c.send('GET', ADDRESS, { 'x-api-key': b })).status).toBe(200);
  });

  it('sends RateLimit-* on every limited answer and Retry-After on 429, and refills over time', async () => {
    const { w, c } = world();
    const key = w.createKey('default').key;
    const first = await c.send('GET', ADDRESS, { 'x-api-key': key });
    expect(first.headers['ratelimit-limit']).toBe('10');
    expect(first.headers['ratelimit-remaining']).toBe('9');
    expect(first.headers['ratelimit-reset']).toBe('1');
    await burst(c, 9, { 'x-api-key': key });
    const refused = await c.send('GET', ADDRESS, { 'x-api-key': key });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: 'fail', data: { code: 'RATE_LIMITED' } });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe('2');
    // Invalid addresses count too (they cost a decode), and still carry the headers.
    const invalid = await c.send('GET', '/api/v1/BTC/address/nope', { 'x-api-key': key });
    expect(invalid.status).toBe(429);

    w.clock.t += 1000;
    const after = await burst(c, 6, { 'x-api-key': key });
    expect(after).toEqual([200, 200, 200, 200, 200, 429]);
    expect(c.problems).toEqual([]);
  });

  it('leaves operational endpoints unlimited and unauthenticated', async () => {
    const { w, c } = world();
    const key = w.createKey('default').key;
    await burst(c, 15, { 'x-api-key': key });
    for (const path of ['/health', '/ready', '/metrics', '/openapi.json']) {
      for (let i = 0; i < 15; i++) {
        const a = await c.send('GET', path);
        expect(a.status).toBe(200);
        expect(a.headers['ratelimit-limit']).toBeUndefined();
      }
    }
    expect(c.problems).toEqual([]);
  });

  it('counts 429s and auth failures in /metrics by tier and reason', async () => {
    const { w, c } = world();
    await burst(c, 12, { 'x-api-key': w.createKey('default').key });
    await c.send('GET', ADDRESS);
    await c.send('GET', ADDRESS, { 'x-api-key': 'asum_nope' });
    const text = (await c.send('GET', '/metrics')).text;
    expect(text).toContain('addrsum_api_rate_limited_total{tier="default"} 2');
    expect(text).toContain('addrsum_api_auth_failures_total{reason="missing"} 1');
    expect(text).toContain('addrsum_api_auth_failures_total{reason="malformed"} 1');
    expect(text).toMatch(/addrsum_api_requests_total\{route="\/api\/v1\/:chain\/address\/:address",status="429",tier="default"\} 2/);
    expect(text).not.toContain('1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo');
  });
});

describe('anonymous callers', () => {
  it('get 401 unless anonymous access is allowed', async () => {
    const { c } = world();
    const a = await c.send('GET', ADDRESS);
    expect(a.status).toBe(401);
    expect(c.problems).toEqual([]);
  });

  it('are limited per client IP at the default tier when allowed', async () => {
    const { w, c } = world({ allowAnonymous: true });
    const statuses = await burst(c, 12, {});
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // A keyed caller has its own bucket.
    expect((await c.send('GET', ADDRESS, { 'x-api-key': w.createKey('default').key })).status).toBe(200);
    // A wrong key is still refused, not served anonymously.
    expect((await c.send('GET', ADDRESS, { 'x-api-key': 'asum_wrong' })).status).toBe(401);
    expect(c.problems).toEqual([]);
  });
});

describe('revocation', () => {
  it('stops a key from the next request in a running app, with its clock standing still', async () => {
    const { w, c } = world();
    const { key, id } = w.createKey('private');
    expect((await c.send('GET', ADDRESS, { 'x-api-key': key })).status).toBe(200);
    expect(w.keyStore.revoke(id).outcome).toBe('revoked');
    // The hand-moved clock never moves here: no cache expiry can be what lets the revocation through.
    expect((await c.send('GET', ADDRESS, { 'x-api-key': key })).status).toBe(401);
    expect(c.problems).toEqual([]);
  });
});

describe('TokenBucketLimiter', () => {
  it('refills at `rate`, caps at `burst`, and ignores a clock stepping backwards', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    const limits = { rate: 2, burst: 3 };
    expect([1, 2, 3, 4].map(() => limiter.consume('a', limits).allowed)).toEqual([true, true, true, false]);
    t += 500;
    expect(limiter.consume('a', limits).allowed).toBe(true);
    expect(limiter.consume('a', limits).allowed).toBe(false);
    t -= 10_000;
    const d = limiter.consume('a', limits);
    expect(d.allowed).toBe(false);
    expect(d.retryAfterSeconds).toBe(1);
    t += 100_000;
    expect(limiter.consume('a', limits)).toMatchObject({ allowed: true, remaining: 2, limit: 3 });
  });

  it('forgets full buckets, so many one-off callers do not accumulate', () => {
    let t = 0;
    const limiter = new TokenBucketLimiter(() => t);
    for (let i = 0; i < 5000; i++) {
      limiter.consume(`ip:${i}`, { rate: 5, burst: 10 });
      t += 10;
    }
    // Callers older than 2 s (a full refill at 5/s for 1 token spent) are swept.
    expect(limiter.size).toBeLessThan(1500);
  });
});
