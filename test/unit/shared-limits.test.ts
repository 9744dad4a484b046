/**
 * Issue 14 acceptance: one default-tier key (rate 5/s, burst 10), a burst of 200 requests spread over two
 * API processes, or over two workers of ADDRSUM_API_WORKERS=2, against the machine's Redis
 * (127.0.0.1:6379): the 200-answers never exceed burst + rate × elapsed + 1. Without Redis the same burst
 * exceeds that bound (each process admits its own burst), which is what makes the first two able to fail.
 * Then Redis going away mid-run (a redis-server of this test's own), and a wrong URL: answers continue,
 * the fallback gauge says so, and limits return to Redis when it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { burst, machineRedis, makeDataDir, metric, ownRedis, request, ROUTE, until, type DataDir } from '../support/limits-world.js';
import { freePort } from '../../harness/ports.js';

let SHARED_REDIS = 'redis://127.0.0.1:6379';
let machine: Awaited<ReturnType<typeof machineRedis>>;
const RATE = 5;
const BURST = 10;
const bound = (elapsedSeconds: number): number => BURST + RATE * elapsedSeconds + 1;
/** Each test starts API processes; on a loaded 2-core machine one start can take 10 s or more. */
const PROCESS_TEST_MS = 180_000;

let data: DataDir;
const started: ApiProcess[] = [];

async function api(env: Record<string, string>): Promise<ApiProcess> {
  const p = await startApi({ ...data.env, ...env });
  started.push(p);
  return p;
}

/** Every process/worker that answered a request of this key, by its log lines. */
function answeredBy(p: ApiProcess, keyId: string): Set<string> {
  const who = new Set<string>();
  for (const line of p.output().split('\n')) {
    if (!line.includes('"msg":"request"') || !line.includes(keyId)) continue;
    who.add(/"worker":(\d+)/.exec(line)?.[1] ?? 'single');
  }
  return who;
}

/** Waits until `p` and its workers have all opened Redis (a worker may still be starting). */
async function usingRedis(p: ApiProcess, workers: number): Promise<void> {
  await until(
    async () =>
      p
        .output()
        .split('\n')
        .filter((l) => l.includes('limits: using Redis')).length,
    (n) => n >= workers,
  );
}

beforeAll(async () => {
  data = makeDataDir('shared-limits');
  machine = await machineRedis();
  SHARED_REDIS = machine.url;
});

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  await machine.stop();
  data.remove();
});

describe('one limit across API processes (Redis at 127.0.0.1:6379)', () => {
  it(
    'two API processes: 200-answers ≤ burst + rate × elapsed + 1',
    async () => {
      const [a, b] = await Promise.all([api({ ADDRSUM_REDIS_URL: SHARED_REDIS }), api({ ADDRSUM_REDIS_URL: SHARED_REDIS })]);
      await Promise.all([usingRedis(a!, 1), usingRedis(b!, 1)]);
      const { key, id } = data.createKey('default');
      const r = await burst([a!.url, b!.url], 200, key);
      expect(r.ok, `200s ${r.ok} in ${r.elapsedSeconds.toFixed(2)} s`).toBeLessThanOrEqual(bound(r.elapsedSeconds));
      expect(r.ok).toBeGreaterThanOrEqual(BURST);
      expect(r.statuses.get(429)).toBe(200 - r.ok);
      expect(answeredBy(a!, id).size + answeredBy(b!, id).size).toBe(2);
      expect(await metric(a!.url, 'addrsum_api_limiter_fallback')).toBe(0);
    },
    PROCESS_TEST_MS,
  );

  it(
    'ADDRSUM_API_WORKERS=2: 200-answers ≤ burst + rate × elapsed + 1, both workers answering',
    async () => {
      const p = await api({ ADDRSUM_REDIS_URL: SHARED_REDIS, ADDRSUM_API_WORKERS: '2' });
      await usingRedis(p, 2);
      const { key, id } = data.createKey('default');
      const r = await burst([p.url], 200, key);
      expect(r.ok, `200s ${r.ok} in ${r.elapsedSeconds.toFixed(2)} s`).toBeLessThanOrEqual(bound(r.elapsedSeconds));
      expect(r.ok).toBeGreaterThanOrEqual(BURST);
      expect([...answeredBy(p, id)].sort()).toEqual(['1', '2']);
    },
    PROCESS_TEST_MS,
  );

  it(
    'control: without Redis two processes each admit their own burst, over the bound',
    async () => {
      const [a, b] = await Promise.all([api({}), api({})]);
      const { key } = data.createKey('default');
      const r = await burst([a!.url, b!.url], 200, key);
      expect(r.ok).toBeGreaterThanOrEqual(2 * BURST);
      expect(r.ok).toBeGreaterThan(BURST + 1);
    },
    PROCESS_TEST_MS,
  );
});

describe('Redis unreachable', () => {
  it(
    'stopped mid-run: answers continue from in-process buckets, the metric shows it, Redis is used again once back',
    async () => {
      const redis = await ownRedis();
      try {
        const p = await api({ ADDRSUM_REDIS_URL: redis.url });
        await usingRedis(p, 1);
        const { key, id } = data.createKey('private');
        const ask = () => request(p.url + ROUTE, { 'x-api-key': key }, false);
        expect((await ask()).status).toBe(200);
        expect(await redis.keys(`addrsum:bucket:key:${id}`)).toEqual([`addrsum:bucket:key:${id}`]);
        expect(await metric(p.url, 'addrsum_api_limiter_fallback')).toBe(0);

        await redis.stop();
        for (let i = 0; i < 20; i++) expect((await ask()).status).toBe(200);
        expect(
          await until(
            () => metric(p.url, 'addrsum_api_limiter_fallback'),
            (v) => v === 1,
          ),
        ).toBe(1);
        expect(p.output()).toMatch(/"level":"warn"[^\n]*limits: Redis unreachable; answering from in-process token buckets \(fail-open\)/);

        await redis.start();
        expect(
          await until(
            () => metric(p.url, 'addrsum_api_limiter_fallback'),
            (v) => v === 0,
          ),
        ).toBe(0);
        expect((await ask()).status).toBe(200);
        // The bucket lives in the restarted (empty) Redis again.
        expect(await redis.keys(`addrsum:bucket:key:${id}`)).toEqual([`addrsum:bucket:key:${id}`]);
        expect(
          p
            .output()
            .split('\n')
            .filter((l) => l.includes('limits: using Redis')).length,
        ).toBe(2);
      } finally {
        await redis.stop();
      }
    },
    PROCESS_TEST_MS,
  );

  it(
    'a wrong URL: answers from in-process buckets (limits still apply), fallback metric 1',
    async () => {
      const nothing = await freePort();
      const p = await api({ ADDRSUM_REDIS_URL: `redis://127.0.0.1:${nothing}` });
      const { key } = data.createKey('default');
      const r = await burst([p.url], 40, key, 5);
      expect(r.ok).toBeGreaterThanOrEqual(BURST);
      expect(r.ok).toBeLessThanOrEqual(bound(r.elapsedSeconds));
      expect(
        await until(
          () => metric(p.url, 'addrsum_api_limiter_fallback'),
          (v) => v === 1,
        ),
      ).toBe(1);
      expect(p.output()).toContain('limits: Redis unreachable');
    },
    PROCESS_TEST_MS,
  );

  it(
    'fail-closed: 503 LIMITS_UNAVAILABLE with Retry-After while Redis is unreachable',
    async () => {
      const nothing = await freePort();
      const p = await api({ ADDRSUM_REDIS_URL: `redis://127.0.0.1:${nothing}`, ADDRSUM_REDIS_FAILURE_MODE: 'fail-closed' });
      const { key } = data.createKey('private');
      const a = await request(p.url + ROUTE, { 'x-api-key': key }, false);
      expect(a.status).toBe(503);
      expect(JSON.parse(a.body)).toMatchObject({ status: 'error', code: 'LIMITS_UNAVAILABLE' });
      expect(a.headers['retry-after']).toBe('1');
      expect(p.output()).toContain('refusing limited requests with 503 (fail-closed)');
    },
    PROCESS_TEST_MS,
  );
});
