/**
 * An index overwritten with garbage IN PLACE (same inode, same size) while the API has it open and
 * cached, its header left intact (issue 22, lower item): the API must stop answering 200 from it and
 * say INDEX_DAMAGED.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { makeDataDir, request, ROUTE, type DataDir } from '../support/limits-world.js';

let data: DataDir;
let api: ApiProcess;

beforeAll(async () => {
  data = makeDataDir('garbage');
  api = await startApi({ ...data.env });
}, 90_000);

afterAll(async () => {
  await api?.stop();
  data?.remove();
});

it('stops answering 200 from an index overwritten with garbage in place', async () => {
  const { key } = data.createKey('private');
  await expect.poll(async () => (await request(api.url + ROUTE, { 'x-api-key': key })).status, { timeout: 20_000 }).toBe(200);
  const fd = openSync(path.join(data.dir, 'ltc.sqlite'), 'r+');
  try {
    // Everything but the first page: the SQLite header still looks right.
    writeSync(fd, randomBytes(fstatSync(fd).size - 4096), 0, undefined, 4096);
  } finally {
    closeSync(fd);
  }
  await expect
    .poll(
      async () => {
        const a = await request(api.url + ROUTE, { 'x-api-key': key });
        return `${a.status} ${a.status === 200 ? '' : (JSON.parse(a.body) as { code: string }).code}`;
      },
      { timeout: 10_000 },
    )
    .toBe('503 INDEX_DAMAGED');
}, 90_000);
