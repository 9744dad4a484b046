/**
 * ADDRSUM_API_WORKERS=2: two workers behind one port; SIGHUP to the supervisor replaces them one at a
 * time while clients keep asking, and not one request fails (new connections, and keep-alive connections
 * that the retiring worker asks to close). SIGTERM stops everything with exit 0. /metrics, whichever
 * worker takes the scrape, counts the requests of both.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  const line = scrape.body
    .split('\n')
    .find((l) => l.startsWith('addrsum_api_requests_total{') && l.includes('status="200"') && l.includes('/address/'));
  expect(line, "the address route's 200 series").toBeDefined();
  return Number(line!.split(' ').pop());
}

describe('API workers', () => {
  it('answers /metrics for both workers, whichever takes the scrape', async () => {
    const { key } = data.createKey('private');
    await until(
      async () => (await request(api.url + ROUTE, { 'x-api-key': key }, false)).status,
      (s) => s === 200,
    );
    const before = await answeredPerScrape();
    // New connections: the supervisor hands them to the workers in turn, so both answer some.
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(api.url + ROUTE, { 'x-api-key': key }, false)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const lines = api
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') && l.includes('/address/'));
    expect(new Set(lines.map((l) => /"worker":(\d+)/.exec(l)?.[1])).size).toBe(2);
    // Every scrape, on either worker, counts all of them; one worker's own counter would hold about half.
    for (let i = 0; i < 6; i++) expect(await answeredPerScrape()).toBe(before + 20);
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
    await new Promise((r) => setTimeout(r, 500));
    const mark = api.output().length;
    api.child.kill('SIGHUP');
    // Two workers start in turn (tsx compiles each): slow on a loaded machine.
    const done = await until(async () => api.output().slice(mark).includes('rolling restart done'), Boolean, 180_000);
    await new Promise((r) => setTimeout(r, 500));
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

    expect(await api.stop()).toBe(0);
    expect(api.output()).toContain('all workers stopped');
  }, 300_000);
});
