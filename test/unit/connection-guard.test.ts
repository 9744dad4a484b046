/**
 * The connection guard's body cap counts requests that really carry a body. A bodiless GET is not
 * "complete" yet when the server emits it, so it must be told apart by its headers: otherwise one
 * client's concurrent lookups past maxBodiesPerClient would have their sockets destroyed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { guardConnections, type ConnectionGuard } from '../../src/api/connection-guard.js';

const CONCURRENT = 40;
const CAP = 4;
let server: http.Server | undefined;
let guard: ConnectionGuard | undefined;

afterEach(async () => {
  guard?.stop();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

/** A server that answers nothing until `CONCURRENT` requests are in flight at once, then answers them all. */
async function holdingServer(): Promise<string> {
  const held: http.ServerResponse[] = [];
  server = http.createServer((_req, res) => {
    held.push(res);
    if (held.length === CONCURRENT) for (const r of held) r.end('ok');
  });
  guard = guardConnections(server, { maxConnections: 1000, requestTimeoutMs: 60_000, idleTimeoutMs: 60_000, maxBodiesPerClient: CAP });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function get(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

it('lets one client hold many bodiless requests at once, past the per-client body cap', async () => {
  const url = await holdingServer();
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT });
  try {
    const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => get(url, agent)));
    expect(statuses).toEqual(Array.from({ length: CONCURRENT }, () => 200));
    expect(guard!.counts.bodyCap).toBe(0);
  } finally {
    agent.destroy();
  }
});
