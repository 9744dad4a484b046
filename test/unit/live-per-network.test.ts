/**
 * Live streams stay open, and the connection guard never evicts one: without a cap per client network,
 * one client (a keyless one for `GET /status/events`, or for the auth timeout of each WebSocket) could
 * hold every connection the API allows. The real API process over loopback: a network holds at most
 * STATUS_STREAMS_PER_NETWORK status streams and api.live.connectionsPerNetwork WebSockets (default), the next one is 429 (the
 * status stream's validated against the OpenAPI document), closing one frees its place, and another
 * network is not affected.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiProcess } from '../../harness/api-process.js';
import { DEFAULT_LIVE_LIMITS } from '../../src/api/live/limits.js';
import { STATUS_STREAMS_PER_NETWORK } from '../../src/api/routes/status-page.js';
import { ADDRESS, makeDataDir, type DataDir } from '../support/limits-world.js';
import { UpgradeRefused, WsClient } from '../support/live-clients.js';
import { openApiDocument } from '../../src/api/openapi.js';
import { OpenApiValidator } from '../support/openapi-validate.js';

let data: DataDir;
let api: ApiProcess;
const open: http.ClientRequest[] = [];

beforeAll(async () => {
  data = makeDataDir('status-streams');
  api = await startApi({ ...data.env });
}, 90_000);

const sockets: WsClient[] = [];

afterAll(async () => {
  for (const req of open) req.destroy();
  for (const c of sockets) c.ws.terminate();
  await api?.stop();
  data?.remove();
});

interface Opened {
  readonly status: number;
  readonly req: http.ClientRequest;
  readonly headers: http.IncomingHttpHeaders;
  /** The body, for an answer that is not a stream (resolves when it ends). */
  readonly body: Promise<string>;
}

/** Opens the status stream from `localAddress` and resolves once the answer's head has arrived. */
function stream(localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${api.url}/status/events`, { localAddress, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      const body = new Promise<string>((done) => res.on('end', () => done(text)));
      resolve({ status: res.statusCode ?? 0, req, headers: res.headers, body });
    });
    req.on('error', reject);
    open.push(req);
  });
}

describe('status streams per client network', () => {
  it('holds at most the cap open per network; the next is 429 until one closes; another network is unaffected', async () => {
    const held: Opened[] = [];
    for (let i = 0; i < STATUS_STREAMS_PER_NETWORK; i++) held.push(await stream('127.0.0.5'));
    expect(held.map((s) => s.status)).toEqual(Array.from({ length: STATUS_STREAMS_PER_NETWORK }, () => 200));

    const refused = await stream('127.0.0.5');
    expect(refused.status).toBe(429);
    const text = await refused.body;
    expect(JSON.parse(text)).toMatchObject({ status: 'fail', data: { code: 'RATE_LIMITED' } });
    const validator = new OpenApiValidator(JSON.parse(JSON.stringify(openApiDocument())) as Record<string, unknown>);
    expect(validator.check({ method: 'GET', path: '/status/events', status: 429, headers: refused.headers, text })).toEqual([]);

    expect((await stream('127.0.0.6')).status).toBe(200);

    held[0]!.req.destroy();
    await expect
      .poll(
        async () => {
          const again = await stream('127.0.0.5');
          if (again.status !== 200) await again.body;
          return again.status;
        },
        { timeout: 10_000 },
      )
      .toBe(200);
  }, 60_000);
});

const WS_PER_NETWORK = DEFAULT_LIVE_LIMITS.connectionsPerNetwork;

/** 101, or the status an upgrade from `localAddress` was refused with. */
async function upgrade(localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  try {
    sockets.push(await WsClient.open(api.url, headers, localAddress));
    return 101;
  } catch (err) {
    if (err instanceof UpgradeRefused) return err.status;
    throw err;
  }
}

describe('HEAD on the event streams', () => {
  it('answers their headers and ends, holding nothing open', async () => {
    const key = data.createKey('private').key;
    for (const path of ['/status/events', `/api/v1/LTC/address/${ADDRESS}/events`]) {
      // Before, the head was never sent and the request hung: the deadline makes that a failure.
      const res = await fetch(`${api.url}${path}`, { method: 'HEAD', headers: { 'x-api-key': key }, signal: AbortSignal.timeout(20_000) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    }
  });
});

describe('WebSockets per client network', () => {
  it('holds at most the cap open per network, keyless or not; the next is 429 until one closes', async () => {
    // Keyed, so that none of them is closed by the auth timeout while the test runs.
    const key = { 'x-api-key': data.createKey('private').key };
    const statuses: number[] = [];
    for (let i = 0; i < WS_PER_NETWORK; i++) statuses.push(await upgrade('127.0.0.8', key));
    expect(statuses).toEqual(Array.from({ length: WS_PER_NETWORK }, () => 101));
    expect(await upgrade('127.0.0.8', key)).toBe(429);
    expect(await upgrade('127.0.0.8')).toBe(429);
    expect(await upgrade('127.0.0.9')).toBe(101);
    sockets[0]!.ws.terminate();
    await expect.poll(() => upgrade('127.0.0.8'), { timeout: 10_000 }).toBe(101);
  }, 60_000);
});
