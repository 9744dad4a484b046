/**
 * ADDRSUM_API_WORKERS=2: two workers behind one port; SIGHUP to the supervisor replaces them one at a
 * time while clients keep asking, and not one request fails (new connections, and keep-alive connections
 * that the retiring worker asks to close). SIGTERM stops everything with exit 0. /metrics, whichever
 * worker takes the scrape, counts the requests of both.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { makeDataDir, request, ROUTE, until, type DataDir } from '../support/limits-world.js';

let data: DataDir;
let api: ApiProcess;

beforeAll(async () => {
  data = makeDataDir('workers');
  // Limits out of the way: every answer should be a 200.
  const config = path.join(data.dir, 'raised.toml');
  writeFileSync(config, '[api.tiers.private]\nrate = 1000000\nburst = 1000000\n');
  api = await startApi({ ...data.env, ADDRSUM_API_WORKERS: '2', ADDRSUM_CONFIG: config });
});

afterAll(async () => {
  await api.stop();
  data.remove();
});

/** addrsum_api_requests_total of 200 answers on the address route, as one scrape of /metrics says. */
async function answeredPerScrape(): Promise<number> {
  const scrape = await request(`${api.url}/metrics`, {}, false);
  expect(scrape.status).toBe(200);
  const lines = scrape.body.split('\n');
  const value = (prefix: string, ...parts: string[]): number | undefined => {
    const line = lines.find((l) => l.startsWith(prefix) && parts.every((p) => l.includes(p)));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };
  // Gauges are not summed over the workers: one build running, one chain ready (not 2 of either).
  expect(value('addrsum_build_info{')).toBe(1);
  expect(value('addrsum_api_chain_ready{', 'chain="LTC"')).toBe(1);
  const answered = value('addrsum_api_requests_total{', 'status="200"', '/address/');
  expect(answered, "the address route's 200 series").toBeDefined();
  return answered!;
}

describe('API workers', () => {
  it('answers /metrics for both workers, whichever takes the scrape', async () => {
    const { key } = data.createKey('private');
    await until(
      async () => (await request(api.url + ROUTE, { 'x-api-key': key }, false)).status,
      (s) => s === 200,
    );
    // Both workers listen (the start waits for the first only), or the supervisor hands every connection to one.
    await until(
      async () =>
        api
          .output()
          .split('\n')
          .filter((l) => l.includes('"msg":"listening"') && l.includes('"worker":')).length,
      (n) => n >= 2,
      60_000,
    );
    const before = await answeredPerScrape();
    // New connections, which the supervisor hands to whichever worker is free: batches until both have
    // answered some, so that one worker's own counter could not hold them all.
    const mark = api.output().length;
    const workers = (): number =>
      new Set(
        api
          .output()
          .slice(mark)
          .split('\n')
          .filter((l) => l.includes('"msg":"request"') && l.includes('/address/'))
          .map((l) => /"worker":(\d+)/.exec(l)?.[1]),
      ).size;
    let sent = 0;
    while (sent < 400 && (sent === 0 || workers() < 2)) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => request(api.url + ROUTE, { 'x-api-key': key }, false)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      sent += answers.length;
    }
    expect(workers()).toBe(2);
    // Every scrape, on either worker, counts all of them; one worker's own counter would hold about half.
    for (let i = 0; i < 6; i++) expect(await answeredPerScrape()).toBe(before + sent);
  }, 120_000);

  it('restarts every worker on SIGHUP without a failed request, then stops cleanly on SIGTERM', async () => {
    const { key } = data.createKey('private');
    await until(
      async () => (await request(api.url + ROUTE, { 'x-api-key': key }, false)).status,
      (s) => s === 200,
    );

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const lane = async (agent: http.Agent | false): Promise<void> => {
      while (!stop) {
        try {
          const a = await request(api.url + ROUTE, { 'x-api-key': key }, agent);
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const lanes = [lane(false), lane(false), lane(keepAlive), lane(keepAlive)];
    const asked = (): number => [...statuses.values()].reduce((a, b) => a + b, 0) + failures.length;
    // Every lane is under way (keep-alive sockets open on the old workers) before the restart begins.
    await vi.waitFor(() => expect(asked()).toBeGreaterThanOrEqual(8), { timeout: 30_000 });
    const mark = api.output().length;
    api.child.kill('SIGHUP');
    // Two workers start in turn (tsx compiles each): slow on a loaded machine.
    const done = await until(async () => api.output().slice(mark).includes('rolling restart done'), Boolean, 180_000);
    // The lanes go on across the end of the restart: keep-alive lanes reconnect to the new workers.
    const atDone = asked();
    await vi.waitFor(() => expect(asked()).toBeGreaterThanOrEqual(atDone + 8), { timeout: 30_000 });
    stop = true;
    await Promise.all(lanes);
    keepAlive.destroy();

    expect(done).toBe(true);
    expect(failures).toEqual([]);
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(20);
    expect(
      api
        .output()
        .slice(mark)
        .match(/"msg":"worker replaced"/g)?.length,
    ).toBe(2);
    // Workers 3 and 4 replaced 1 and 2, and they are the ones answering now.
    const now = await Promise.all(
      Array.from({ length: 10 }, (_, i) => request(api.url + ROUTE, { 'x-api-key': key, 'x-request-id': `after-restart-${i}` }, false)),
    );
    expect(now.every((a) => a.status === 200)).toBe(true);
    const lines = await until(
      async () =>
        api
          .output()
          .split('\n')
          .filter((l) => l.includes('"reqId":"after-restart-')),
      (l) => l.length === 10,
    );
    for (const line of lines) expect(['3', '4']).toContain(/"worker":(\d+)/.exec(line)?.[1]);
    // Said once by the supervisor: not per worker, not again for the workers SIGHUP started.
    const unshared = api
      .output()
      .split('\n')
      .filter((l) => l.includes('each worker keeps its own token buckets'));
    expect(unshared).toHaveLength(1);
    expect(unshared[0]).not.toContain('"worker":');
    expect(unshared[0]).toContain('"msg":"each worker keeps');

    expect(await api.stop()).toBe(0);
    expect(api.output()).toContain('all workers stopped');
  }, 300_000);
});
