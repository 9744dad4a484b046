/**
 * fetchHeaders (indexer/node-headers.ts) against a stand-in for Core's HTTP server: REST when the node
 * serves it, getblockhash + getblockheader <hash> false when it does not, and answers of the wrong size
 * refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { NodeClient } from '../../src/node/node-client.js';
import { fetchHeaders } from '../../indexer/node-headers.js';

const HEADERS = Array.from({ length: 5 }, (_, i) => Buffer.alloc(80, i + 1));
const hashAt = (h: number) => `${h}`.padStart(2, '0').repeat(32);

let server: http.Server | undefined;
let client: NodeClient | undefined;
afterEach(async () => {
  client?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

/** A node at heights 0..4; `rest` answers REST requests (null: no REST). Every request line is recorded. */
async function node(rest: ((url: string) => Buffer) | null): Promise<{ client: NodeClient; seen: string[] }> {
  const seen: string[] = [];
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url!.startsWith('/rest/')) {
        seen.push(req.url!);
        res.writeHead(rest ? 200 : 404);
        return res.end(rest && req.url !== '/rest/chaininfo.json' ? rest(req.url!) : '');
      }
      const { method, params } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; params: unknown[] };
      seen.push(`${method} ${params.join(' ')}`);
      const result =
        method === 'getblockhash' ? hashAt(params[0] as number) : HEADERS[Number((params[0] as string).slice(0, 2))]!.toString('hex');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result, error: null, id: 1 }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  client = new NodeClient({ url: `http://u:p@127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000 });
  return { client, seen };
}

it('takes the headers from REST in one call when the node serves it', async () => {
  const { client, seen } = await node(() => Buffer.concat(HEADERS.slice(1, 4)));
  expect(await fetchHeaders(client, 1, hashAt(1), 3)).toEqual(HEADERS.slice(1, 4));
  expect(seen).toEqual(['/rest/chaininfo.json', `/rest/headers/3/${hashAt(1)}.bin`]);
});

it('asks getblockhash and getblockheader <hash> false per height when REST is off', async () => {
  const { client, seen } = await node(null);
  expect(await fetchHeaders(client, 2, hashAt(2), 3)).toEqual(HEADERS.slice(2, 5));
  expect(seen.filter((s) => !s.startsWith('/rest/')).sort()).toEqual(
    [
      `getblockheader ${hashAt(2)} false`,
      'getblockhash 3',
      `getblockheader ${hashAt(3)} false`,
      'getblockhash 4',
      `getblockheader ${hashAt(4)} false`,
    ].sort(),
  );
});

it('refuses a REST answer that is not whole headers, or more than asked', async () => {
  const short = await node(() => Buffer.alloc(159));
  await expect(fetchHeaders(short.client, 0, hashAt(0), 2)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
  client!.close();
  await new Promise((resolve) => server!.close(resolve));
  const long = await node(() => Buffer.concat(HEADERS));
  await expect(fetchHeaders(long.client, 0, hashAt(0), 2)).rejects.toMatchObject({ code: 'BAD_RESPONSE' });
  await expect(fetchHeaders(long.client, 0, hashAt(0), 2001)).rejects.toThrow(RangeError);
});
