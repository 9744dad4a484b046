/**
 * api.requestLog (ADDRSUM_REQUEST_LOG): which answers get the request log line. The line is written when
 * the response closes, after the client has its answer, so each test waits for the request metric of
 * its last request (counted in the same handler, just before the line) before reading the log.
 */
import { describe, expect, it } from 'vitest';
import type { ApiSettings } from '../../src/api/deps.js';
import { worldPerTest, type World } from '../support/api-world.js';

const ADDRESS = '/api/v1/BTC/address/1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo';
const newWorld = worldPerTest();
// The caller reads the app's own /openapi.json first (to check answers against it): not the test's requests.
const OPENAPI = '/openapi.json';

async function answered(w: World): Promise<number> {
  const values = (await w.metrics.requests.get()).values.filter((v) => v.labels.route !== OPENAPI);
  return values.reduce((sum, v) => sum + v.value, 0);
}

function requestLines(w: World): number[] {
  return w.logs
    .map((l) => JSON.parse(l) as { msg?: string; route?: string; status?: number })
    .filter((l) => l.msg === 'request' && l.route !== OPENAPI)
    .map((l) => l.status as number);
}

/** A 200 and a 404, then the statuses of the request lines written for them. */
async function linesFor(requestLog?: ApiSettings['requestLog']): Promise<number[]> {
  const { w, c } = newWorld({ allowAnonymous: true, ...(requestLog !== undefined && { requestLog }) });
  expect((await c.send('GET', ADDRESS)).status).toBe(200);
  expect((await c.send('GET', '/api/v1/BTC/nothing-here')).status).toBe(404);
  await expect.poll(() => answered(w)).toBe(2);
  expect(c.problems).toEqual([]);
  return requestLines(w);
}

describe('api.requestLog', () => {
  it('errors: a line for the 404, none for the 200 (all, the default, logs both)', async () => {
    expect(await linesFor()).toEqual([200, 404]);
    expect(await linesFor('errors')).toEqual([404]);
  });

  it('off: no request line at all', async () => {
    expect(await linesFor('off')).toEqual([]);
  });
});
