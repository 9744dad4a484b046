/**
 * /ready is 503 whenever keyed requests cannot be served, not only when a chain is not ready (issue 22,
 * item 5): keys.sqlite unreadable, or limits fail-closed with Redis unreachable. The real API process.
 */
import { copyFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { freePort } from '../../harness/ports.js';
import { makeDataDir, request, ROUTE, type DataDir } from '../support/limits-world.js';

let data: DataDir | undefined;
let api: ApiProcess | undefined;

afterEach(async () => {
  await api?.stop();
  data?.remove();
  api = undefined;
  data = undefined;
});

describe('/ready and keyed requests', () => {
  it('is 503 while keys.sqlite cannot be read, and 200 again once it can', async () => {
    data = makeDataDir('ready-keys');
    const { key } = data.createKey('private');
    api = await startApi({ ...data.env });
    await expect.poll(async () => (await request(`${api!.url}/ready`)).status, { timeout: 20_000 }).toBe(200);
    const file = path.join(data.dir, 'keys.sqlite');
    copyFileSync(file, `${file}.good`);
    writeFileSync(file, 'not a database at all, but long enough to pass for a header'.repeat(4));
    expect((await request(api.url + ROUTE, { 'x-api-key': key })).status).toBe(503);
    const ready = await request(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ code: 'NOT_READY', data: { problems: ['the keys database cannot be read'] } });
    renameSync(`${file}.good`, file);
    await expect.poll(async () => (await request(`${api!.url}/ready`)).status, { timeout: 20_000 }).toBe(200);
    expect((await request(api.url + ROUTE, { 'x-api-key': key })).status).toBe(200);
  }, 90_000);

  it('is 503 while limits are fail-closed and Redis cannot be reached', async () => {
    data = makeDataDir('ready-redis');
    const { key } = data.createKey('private');
    const closed = await freePort();
    api = await startApi({ ...data.env, ADDRSUM_REDIS_URL: `redis://127.0.0.1:${closed}`, ADDRSUM_REDIS_FAILURE_MODE: 'fail-closed' });
    expect((await request(api.url + ROUTE, { 'x-api-key': key })).status).toBe(503);
    const ready = await request(`${api.url}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ data: { problems: ['limits are fail-closed and Redis is unreachable'] } });
  }, 90_000);
});
