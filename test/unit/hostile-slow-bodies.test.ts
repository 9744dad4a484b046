/**
 * Slow request bodies (issue 22, item 1): connections that send `POST /health` with a large
 * Content-Length and then trickle one byte every 2 s must not lock anyone out. The real API runs with
 * its connection cap scaled down (64) and twice that many slow-body connections, reopened as the server
 * closes them; meanwhile /health and a keyed lookup must each answer within 3 s, every time.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { makeDataDir, ROUTE, type DataDir } from '../support/limits-world.js';
import { startSocketClient, type Opened } from '../support/socket-client.js';

let data: DataDir;
let api: ApiProcess;
const children: ChildProcess[] = [];

beforeAll(async () => {
  data = makeDataDir('slow-bodies');
  api = await startApi({ ...data.env, ADDRSUM_MAX_CONNECTIONS: '64' });
}, 90_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await api?.stop();
  data?.remove();
});

function attack(port: string, count: number, from: string, durationMs: number): Promise<Opened> {
  return startSocketClient('test/support/slow-bodies-child.ts', [port, String(count), from, String(durationMs)], children);
}

/** Status of one request on a fresh connection, or the error's name when none came within 3 s. */
async function within3s(url: string, headers: Record<string, string> = {}): Promise<number | string> {
  try {
    const res = await fetch(url, { headers: { ...headers, connection: 'close' }, signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status;
  } catch (err) {
    return (err as Error).name + ': ' + (err as Error).message;
  }
}

describe('slow request bodies', () => {
  it('do not lock out /health or a keyed lookup while twice the connection cap trickle bodies', async () => {
    const { key } = data.createKey('private');
    const port = new URL(api.url).port;
    const started = await Promise.all([attack(port, 64, '127.0.0.2', 20_000), attack(port, 64, '127.0.0.3', 20_000)]);
    expect(started.reduce((n, s) => n + s.opened + s.failed, 0)).toBe(128);
    const answers: Array<number | string> = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await within3s(`${api.url}/health`));
      answers.push(await within3s(api.url + ROUTE, { 'x-api-key': key }));
    }
    expect(answers).toEqual(Array.from({ length: 10 }, () => 200));
  }, 90_000);
});
