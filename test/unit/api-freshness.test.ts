/**
 * Operational truth at the app level (fakes for the index): an index whose indexer went silent, or whose
 * tip is too old, is not served as ready; a damaged index answers 503 INDEX_DAMAGED, /ready never 500;
 * wrong keys are throttled per client network (a valid key never is) and their log lines are sampled;
 * unconfigured chains export no chain_ready series; every process exports addrsum_build_info.
 */
import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import request from 'supertest';
import type { ApiSettings, AppDeps } from '../../src/api/deps.js';
import { ServingError as ApiError } from '../../src/serving/errors.js';
import { createHttpServer } from '../../src/api/http-server.js';
import { checkKey } from '../../src/api/live/ws-auth.js';
import { createApiMetrics } from '../../src/api/metrics.js';
import { TokenBucketLimiter, type RateLimiter } from '../../src/serving/token-bucket.js';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';
import { worldPerTest, type World } from '../support/api-world.js';

const ADDRESS = '/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';

const world = worldPerTest();

type ReadyRow = Record<string, unknown>;
type ReadyBody = { code?: string; data: { ready: boolean; chains: ReadyRow[] } };

function fresh(w: World, ageSeconds = 0): void {
  for (const chain of ['BTC', 'LTC'] as const) w.index[chain].nodeSeenAt = new Date(w.clock.t - ageSeconds * 1000);
}

describe('freshness', () => {
  it('serves while the indexer heard from its node recently, with the ages in headers and /ready', async () => {
    const { w, c } = world({ staleAfterSeconds: 120 });
    fresh(w, 30);
    w.index.BTC.tipTime = new Date(w.clock.t - 600_000);
    const key = w.createKey('private').key;
    const a = await c.send('GET', ADDRESS, { 'x-api-key': key });
    expect(a.status).toBe(200);
    expect(a.headers['x-index-age']).toBe('30');
    expect(a.headers['x-tip-age']).toBe('600');
    const r = await c.send('GET', '/ready');
    expect(r.status).toBe(200);
    expect((r.body as ReadyBody).data.chains[0]).toMatchObject({ chain: 'BTC', ready: true, nodeSeenAgeSeconds: 30, tipAgeSeconds: 600 });
    expect(c.problems).toEqual([]);
  });

  it('a silent indexer turns the chain, /ready and chain_ready false once staleAfterSeconds has passed', async () => {
    const { w, c } = world({ staleAfterSeconds: 120 });
    fresh(w, 0);
    const key = w.createKey('private').key;
    expect((await c.send('GET', ADDRESS, { 'x-api-key': key })).status).toBe(200);
    w.index.BTC.lookups = 0;
    w.clock.t += 121_000;
    const a = await c.send('GET', ADDRESS, { 'x-api-key': key });
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ code: 'CHAIN_UNAVAILABLE', data: { indexedHeight: 100, nodeSeenAgeSeconds: 121 } });
    expect((a.body as { message: string }).message).toContain('last heard from its node 121 s ago');
    // One read, balance and status together: the stale status answers, without the balance.
    expect(w.index.BTC.lookups).toBe(1);
    expect(JSON.stringify(a.body)).not.toContain('balance');
    const r = await c.send('GET', '/ready');
    expect(r.status).toBe(503);
    expect((r.body as ReadyBody).data.chains[0]).toMatchObject({
      ready: false,
      nodeSeenAgeSeconds: 121,
      reason: expect.stringContaining('121 s'),
    });
    const metrics = (await request(w.app).get('/metrics')).text;
    expect(metrics).toMatch(/addrsum_api_chain_ready\{chain="BTC"\} 0/);
    expect(metrics).toMatch(/addrsum_api_chain_node_seen_age_seconds\{chain="BTC"\} 121/);
    // The indexer reports again: answers resume.
    fresh(w, 1);
    expect((await c.send('GET', ADDRESS, { 'x-api-key': key })).status).toBe(200);
    expect(c.problems).toEqual([]);
  });

  it('an index whose indexer never recorded hearing from the node is not fresh', async () => {
    const { w, c } = world({ staleAfterSeconds: 120 });
    w.index.BTC.nodeSeenAt = null;
    const a = await c.send('GET', ADDRESS, { 'x-api-key': w.createKey('private').key });
    expect(a.status).toBe(503);
    expect((a.body as { message: string }).message).toContain('has not recorded hearing from its node');
  });

  it('a tip older than maxTipAgeSeconds is not ready; 0 turns the check off', async () => {
    const on = world({ staleAfterSeconds: 120, maxTipAgeSeconds: 3600 });
    fresh(on.w);
    on.w.index.BTC.tipTime = new Date(on.w.clock.t - 3601_000);
    const a = await on.c.send('GET', ADDRESS, { 'x-api-key': on.w.createKey('private').key });
    expect(a.status).toBe(503);
    expect((a.body as { message: string }).message).toContain('tip block is 3601 s old');
    const off = world({ staleAfterSeconds: 120, maxTipAgeSeconds: 0 });
    fresh(off.w);
    off.w.index.BTC.tipTime = new Date(off.w.clock.t - 10 * 86_400_000);
    expect((await off.c.send('GET', ADDRESS, { 'x-api-key': off.w.createKey('private').key })).status).toBe(200);
  });

  it('unset, the limit is per network: mainnet BTC 2 h, LTC 1 h; off on regtest', async () => {
    const LTC_ADDRESS = '/api/v1/LTC/address/ltc1qhy65nwu5qusrtf4r6ahr4p2mahqz29g6vlkasz';
    const main = world({ staleAfterSeconds: 120 });
    fresh(main.w);
    const key = main.w.createKey('private').key;
    const status = async (path: string) => (await main.c.send('GET', path, { 'x-api-key': key })).status;
    main.w.index.BTC.tipTime = new Date(main.w.clock.t - 7000_000);
    main.w.index.LTC.tipTime = new Date(main.w.clock.t - 3500_000);
    expect(await status(ADDRESS)).toBe(200);
    expect(await status(LTC_ADDRESS)).toBe(200);
    main.w.index.BTC.tipTime = new Date(main.w.clock.t - 7201_000);
    main.w.index.LTC.tipTime = new Date(main.w.clock.t - 3601_000);
    expect(await status(ADDRESS)).toBe(503);
    expect(await status(LTC_ADDRESS)).toBe(503);
    const ready = (await main.c.send('GET', '/ready')).body as ReadyBody;
    expect(ready.data.chains.map((c) => c.ready)).toEqual([false, false]);

    const regtest = world({ staleAfterSeconds: 120, networks: { BTC: 'regtest', LTC: 'regtest' } });
    fresh(regtest.w);
    regtest.w.index.BTC.tipTime = new Date(regtest.w.clock.t - 30 * 86_400_000);
    const rk = regtest.w.createKey('private').key;
    const regtestAddress = scriptToAddress(chainParams('BTC', 'regtest'), Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, 7)]))!;
    expect((await regtest.c.send('GET', `/api/v1/BTC/address/${regtestAddress}`, { 'x-api-key': rk })).status).toBe(200);
  });
});

describe('damaged index', () => {
  it('answers 503 INDEX_DAMAGED (not 500) on the address route, /ready 503 and never 500; recovers', async () => {
    const { w, c } = world();
    const key = w.createKey('private').key;
    w.index.BTC.failure = Object.assign(new Error('database disk image is malformed (damaged)'), { code: 'SQLITE_CORRUPT' });
    const a = await c.send('GET', ADDRESS, { 'x-api-key': key });
    expect(a.status).toBe(503);
    expect(a.body).toMatchObject({ status: 'error', code: 'INDEX_DAMAGED' });
    const r = await c.send('GET', '/ready');
    expect(r.status).toBe(503);
    expect((r.body as ReadyBody).data.chains[0]).toMatchObject({ chain: 'BTC', ready: false });
    // A failure the handle does not recognise is a bug: still no 500 from /ready.
    w.index.BTC.failure = new Error('something else');
    expect((await c.send('GET', '/ready')).status).toBe(503);
    expect((await request(w.app).get('/metrics')).status).toBe(200);
    w.index.BTC.failure = null;
    expect((await c.send('GET', ADDRESS, { 'x-api-key': key })).status).toBe(200);
    expect((await c.send('GET', '/ready')).status).toBe(200);
    expect(c.problems).toEqual([]);
  });
});

describe('metrics series', () => {
  it('exports chain_ready only for configured chains, and addrsum_build_info', async () => {
    const { w } = world({ unconfigured: ['BTC'] });
    const text = (await request(w.app).get('/metrics')).text;
    expect(text).toMatch(/addrsum_api_chain_ready\{chain="LTC"\} 1/);
    expect(text).not.toMatch(/chain="BTC"/);
    expect(text).toMatch(/addrsum_build_info\{version="\d+\.\d+\.\d+[^"]*",node="v\d+\.\d+\.\d+"\} 1/);
  });
});

describe('wrong keys', () => {
  const WRONG = 'asum_' + 'x'.repeat(43);

  it('2,000 wrong keys from one client: 429 after the burst; the log stays small', { timeout: 120_000 }, async () => {
    const { w } = world({ invalidKeys: { rate: 1, burst: 20 } });
    let unauthorized = 0;
    const good = w.createKey('private').key;
    const statuses = new Map<number, number>();
    const server = createHttpServer(w.app, pino({ level: 'silent' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // 10 clients on keep-alive connections, 200 requests each, all from 127.0.0.1 (the real API takes
      // 10,000 in test/integration/operational-ltc.test.ts).
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < 200; i++) {
            const res = await fetch(`${base}${ADDRESS}`, { headers: { 'x-api-key': WRONG } });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status === 401) unauthorized++;
          }
        }),
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    // The fake clock does not move: exactly the burst is answered 401, everything after 429.
    expect(unauthorized).toBe(20);
    expect(statuses.get(429)).toBe(1_980);
    const logBytes = w.logs.reduce((n, line) => n + Buffer.byteLength(line), 0);
    expect(logBytes).toBeLessThan(30_000);
    // The summary line of the first window arrives once the window is over.
    w.clock.t += 10_000;
    await request(w.app).get('/health');
    expect(w.logs.some((l) => /"suppressed":\d+/.test(l) && l.includes('left out'))).toBe(true);
    const metrics = (await request(w.app).get('/metrics')).text;
    expect(metrics).toMatch(/addrsum_api_log_lines_suppressed_total\{status="429"\} \d+/);
    expect(metrics).toMatch(/addrsum_api_rate_limited_total\{tier="invalid_key"\} 1980/);
    // A good key from the same client still works (with the bucket empty too: the next test).
    expect((await request(w.app).get(ADDRESS).set('x-api-key', good)).status).toBe(200);
  });

  it("a valid key is served while its network's wrong-key bucket is empty; wrong and missing keys get 429", async () => {
    const { w, c } = world({ invalidKeys: { rate: 1, burst: 3 } });
    const good = w.createKey('default').key;
    const wrong: number[] = [];
    for (let i = 0; i < 4; i++) wrong.push((await c.send('GET', ADDRESS, { 'x-api-key': WRONG })).status);
    expect(wrong).toEqual([401, 401, 401, 429]);
    // The clock stands still: the bucket stays empty for everything below.
    const served = await c.send('GET', ADDRESS, { 'x-api-key': good });
    expect(served.status).toBe(200);
    // Its own tier's bucket, not the wrong-key one.
    expect(served.headers['ratelimit-limit']).toBe('10');
    expect((await c.send('GET', ADDRESS, { 'x-api-key': WRONG })).status).toBe(429);
    expect((await c.send('GET', ADDRESS, { 'x-api-key': 'not-a-key' })).status).toBe(429);
    expect((await c.send('GET', ADDRESS)).status).toBe(429);
    expect((await c.send('GET', ADDRESS, { 'x-api-key': good })).status).toBe(200);
    expect(c.problems).toEqual([]);
  });

  it.each([
    ['an in-process store', (inner: TokenBucketLimiter): RateLimiter => inner],
    [
      'a shared store answering with promises',
      (inner: TokenBucketLimiter): RateLimiter => ({ consume: async (...a) => inner.consume(...a) }),
    ],
  ])('the same on WebSocket keys, with %s', async (_, limiterOver) => {
    const { w } = world();
    const good = w.createKey('private');
    const keys = new KeyCache(w.keysFile);
    try {
      const settings: ApiSettings = {
        allowAnonymous: true,
        syncLagBlocks: 3,
        trustProxyHops: 0,
        tiers: { default: { rate: 5, burst: 10 }, private: { rate: 50, burst: 100 } },
        invalidKeys: { rate: 1, burst: 2 },
      };
      // checkKey reads only the verifier and the settings of the app's deps.
      const deps = { keys, settings } as unknown as AppDeps;
      const opts = { deps, limiter: limiterOver(new TokenBucketLimiter(() => w.clock.now())), metrics: createApiMetrics() };
      const code = (presented: string) =>
        checkKey(opts, presented, '10.0.0.9').then(
          () => 'ok',
          (err: unknown) => (err instanceof ApiError ? err.code : String(err)),
        );
      expect([await code(WRONG), await code(WRONG), await code(WRONG)]).toEqual(['INVALID_API_KEY', 'INVALID_API_KEY', 'RATE_LIMITED']);
      await expect(checkKey(opts, good.key, '10.0.0.9')).resolves.toEqual({ tier: 'private', keyId: good.id });
      expect(await code(WRONG)).toBe('RATE_LIMITED');
      // Another network's bucket is its own.
      await expect(checkKey(opts, WRONG, '10.0.0.10')).rejects.toMatchObject({ code: 'INVALID_API_KEY' });
    } finally {
      keys.close();
    }
  });

  it('missing keys count too when anonymous access is off', async () => {
    const { w } = world({ invalidKeys: { rate: 1, burst: 3 } });
    const s: number[] = [];
    for (let i = 0; i < 5; i++) s.push((await request(w.app).get(ADDRESS)).status);
    expect(s).toEqual([401, 401, 401, 429, 429]);
  });
});
