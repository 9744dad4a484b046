/**
 * A Redis that hangs (SIGSTOP) must not stall requests again and again (issue 22, lower item): the
 * request that first meets the hang waits for the command timeout; after that, while Redis stays stopped,
 * requests are answered from the in-process buckets (fail-open) without waiting on it, and shared limits
 * come back once it answers again. The real API process and a redis-server of the test's own.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { makeDataDir, ownRedis, ROUTE, type DataDir, type RedisServer } from '../support/limits-world.js';

let data: DataDir;
let redis: RedisServer;
let api: ApiProcess;
let pid = 0;

beforeAll(async () => {
  data = makeDataDir('redis-stall');
  redis = await ownRedis();
  await redis.start();
  const info = execFileSync('redis-cli', ['-p', String(redis.port), 'INFO', 'server'], { encoding: 'utf8' });
  pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  api = await startApi({ ...data.env, ADDRSUM_REDIS_URL: redis.url, ADDRSUM_REDIS_FAILURE_MODE: 'fail-open' });
}, 90_000);

afterAll(async () => {
  if (pid > 0) process.kill(pid, 'SIGCONT');
  await api?.stop();
  await redis?.stop();
  data?.remove();
});

/** Status, or the error's name when no answer came within `ms`. */
async function status(key: string, ms: number): Promise<number | string> {
  try {
    const res = await fetch(api.url + ROUTE, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(ms) });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    return (err as Error).name;
  }
}

describe('a stopped Redis', () => {
  it('stalls at most the request that first meets it, then requests go on from the fallback', async () => {
    const { key } = data.createKey('private');
    await expect.poll(() => status(key, 5000), { timeout: 20_000 }).toBe(200);
    process.kill(pid, 'SIGSTOP');
    try {
      // The first request waits for the command timeout, then is answered from the fallback.
      expect(await status(key, 10_000)).toBe(200);
      // Spread over several retry intervals: none may wait on the stopped Redis (its timeout is 1 s).
      const answers: Array<number | string> = [];
      for (let i = 0; i < 12; i++) {
        answers.push(await status(key, 700));
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(answers).toEqual(Array.from({ length: 12 }, () => 200));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Requests keep coming; one of them probes Redis again and shared limits are back.
    await expect
      .poll(
        async () => {
          await status(key, 5000);
          return api
            .output()
            .split('\n')
            .filter((l) => l.includes('limits: using Redis')).length;
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(2);
  }, 90_000);
});
