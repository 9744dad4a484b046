import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeClient, NodeError, isRetryable } from '../../src/node/node-client.js';
import { parseJsonDecimalsAsText } from '../../harness/rpc-json.js';
import { freePort } from '../../harness/ports.js';

/** A stand-in for Core's HTTP server: each request goes to `handler`; every request is recorded. */
interface Seen {
  method: string;
  url: string;
  auth: string | null;
  body: string;
}
type Handler = (req: Seen, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
const clients: NodeClient[] = [];

async function fakeNode(handler: Handler): Promise<{ port: number; seen: Seen[]; connections: () => number; closed: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  let closed = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h = req.headers.authorization;
      const auth = h?.startsWith('Basic ') ? Buffer.from(h.slice(6), 'base64').toString('utf8') : null;
      const s = { method: req.method ?? '', url: req.url ?? '', auth, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(s);
      handler(s, res);
    });
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    socket.on('close', () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, seen, connections: () => connections, closed: () => closed };
}

function client(port: number, extra: Partial<ConstructorParameters<typeof NodeClient>[0]> = {}): NodeClient {
  const c = new NodeClient({ url: `http://alice:s%40cret@127.0.0.1:${port}`, timeoutMs: 2_000, ...extra });
  clients.push(c);
  return c;
}

function rpcReply(res: http.ServerResponse, status: number, result: unknown, error: unknown = null): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ result, error, id: 1 }));
}

function methodOf(s: Seen): string {
  return (JSON.parse(s.body) as { method: string }).method;
}

async function rejection(p: Promise<unknown>): Promise<NodeError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof NodeError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

const HASH = 'ab'.repeat(32);

describe('NodeClient JSON-RPC', () => {
  it('sends JSON-RPC 1.0 with the URL-decoded credentials and returns result', async () => {
    const node = await fakeNode((_s, res) => rpcReply(res, 200, 123));
    expect(await client(node.port).getBlockCount()).toBe(123);
    const s = node.seen[0]!;
    expect(s.auth).toBe('alice:s@cret');
    expect(JSON.parse(s.body)).toMatchObject({ jsonrpc: '1.0', method: 'getblockcount', params: [] });
  });

  it('classifies 401 as AUTH, not transient but retryable, without the password in the message', async () => {
    const node = await fakeNode((_s, res) => {
      res.writeHead(401);
      res.end();
    });
    const err = await rejection(client(node.port).getBlockCount());
    expect(err.code).toBe('AUTH');
    expect(err.transient).toBe(false);
    expect(isRetryable(err)).toBe(true);
    expect(err.message).not.toContain('s%40cret');
    expect(err.message).not.toContain('s@cret');
    expect(err.message).toContain('***:***@127.0.0.1');
  });

  it('classifies 403 (rpcallowip) as AUTH', async () => {
    const node = await fakeNode((_s, res) => {
      res.writeHead(403);
      res.end();
    });
    expect((await rejection(client(node.port).getBlockCount())).code).toBe('AUTH');
  });

  it('classifies RPC -28 as WARMING_UP (transient) and keeps the RPC code', async () => {
    const node = await fakeNode((_s, res) => rpcReply(res, 500, null, { code: -28, message: 'Loading block index...' }));
    const err = await rejection(client(node.port).getBestBlockHash());
    expect(err).toMatchObject({ code: 'WARMING_UP', transient: true });
    expect(err.details.rpcCode).toBe(-28);
  });

  it('classifies -5 as NOT_FOUND, -8 from getblockhash as NOT_FOUND, other codes as RPC', async () => {
    const node = await fakeNode((s, res) => {
      const m = methodOf(s);
      if (m === 'getblockheader') rpcReply(res, 500, null, { code: -5, message: 'Block not found' });
      else if (m === 'getblockhash') rpcReply(res, 500, null, { code: -8, message: 'Block height out of range' });
      else rpcReply(res, 404, null, { code: -32601, message: 'Method not found' });
    });
    const c = client(node.port);
    expect(await rejection(c.getBlockHeader(HASH))).toMatchObject({ code: 'NOT_FOUND', transient: false });
    expect(await rejection(c.getBlockHash(10))).toMatchObject({ code: 'NOT_FOUND', transient: false });
    expect(await c.isInActiveChain(HASH)).toBe(false);
    const other = await rejection(c.call('nosuchmethod'));
    expect(other).toMatchObject({ code: 'RPC', transient: false });
    expect(other.details.rpcCode).toBe(-32601);
    expect(isRetryable(other)).toBe(false);
  });

  it('treats 5xx without JSON and cut-off replies as transient BAD_RESPONSE, 200 garbage as fatal', async () => {
    let n = 0;
    const node = await fakeNode((_s, res) => {
      const i = n++;
      if (i === 0) {
        res.writeHead(503);
        res.end('Work queue depth exceeded');
      } else if (i === 1) {
        res.writeHead(200);
        res.end('{"result":12,"err');
      } else if (i === 2) {
        res.writeHead(200);
        res.end('');
      } else {
        res.writeHead(200);
        res.end('<html>hello</html>');
      }
    });
    const c = client(node.port);
    expect(await rejection(c.getBlockCount())).toMatchObject({ code: 'BAD_RESPONSE', transient: true });
    expect(await rejection(c.getBlockCount())).toMatchObject({ code: 'BAD_RESPONSE', transient: true });
    expect(await rejection(c.getBlockCount())).toMatchObject({ code: 'BAD_RESPONSE', transient: true });
    expect(await rejection(c.getBlockCount())).toMatchObject({ code: 'BAD_RESPONSE', transient: false });
  });

  it('rejects results of the wrong shape as BAD_RESPONSE', async () => {
    const node = await fakeNode((s, res) => rpcReply(res, 200, methodOf(s) === 'getblockcount' ? 'ten' : 'nothex'));
    const c = client(node.port);
    expect((await rejection(c.getBlockCount())).code).toBe('BAD_RESPONSE');
    expect((await rejection(c.getBestBlockHash())).code).toBe('BAD_RESPONSE');
  });

  it('maps getblockheader, keeping -1 confirmations and a missing previousblockhash', async () => {
    const node = await fakeNode((_s, res) => rpcReply(res, 200, { hash: HASH.toUpperCase(), height: 0, confirmations: -1, nTx: 1 }));
    const c = client(node.port);
    expect(await c.getBlockHeader(HASH)).toEqual({ hash: HASH, height: 0, previousblockhash: null, confirmations: -1 });
    expect(await c.isInActiveChain(HASH)).toBe(false);
  });

  it('classifies a refused connection as UNREACHABLE (transient)', async () => {
    const port = await freePort();
    const err = await rejection(client(port).getBlockCount());
    expect(err).toMatchObject({ code: 'UNREACHABLE', transient: true });
  });

  it('classifies a node that never answers as TIMEOUT (transient)', async () => {
    const node = await fakeNode(() => undefined);
    const err = await rejection(client(node.port, { timeoutMs: 150 }).getBlockCount());
    expect(err).toMatchObject({ code: 'TIMEOUT', transient: true });
  });

  it('classifies a connection dropped mid-answer as UNREACHABLE', async () => {
    const node = await fakeNode((_s, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"result":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await rejection(client(node.port).getBlockCount())).toMatchObject({ code: 'UNREACHABLE', transient: true });
  });

  it('reuses one keep-alive connection for sequential calls', async () => {
    const node = await fakeNode((_s, res) => rpcReply(res, 200, 7));
    const c = client(node.port);
    for (let i = 0; i < 5; i++) await c.getBlockCount();
    expect(node.connections()).toBe(1);
  });

  it('closes idle sockets after idleSocketMs but never cuts a slow answer', async () => {
    const node = await fakeNode((_s, res) => setTimeout(() => rpcReply(res, 200, 9), 300));
    const c = client(node.port, { idleSocketMs: 100 });
    expect(await c.getBlockCount()).toBe(9);
    expect(node.connections()).toBe(1);
    // The client, not the server, ends the idle socket; the next call needs a new one.
    await vi.waitFor(() => expect(node.closed()).toBe(1));
    expect(await c.getBlockCount()).toBe(9);
    expect(node.connections()).toBe(2);
  });

  it('keeps amounts as exact decimal text when asked', async () => {
    const node = await fakeNode((_s, res) => {
      res.writeHead(200);
      res.end('{"result":{"total_amount":84000000.00000001,"txouts":5,"note":"1.5","d":4.656542373906925e-10},"error":null,"id":1}');
    });
    const c = client(node.port);
    expect(await c.call('gettxoutsetinfo', [], { parseJson: parseJsonDecimalsAsText })).toEqual({
      total_amount: '84000000.00000001',
      txouts: 5,
      note: '1.5',
      d: '4.656542373906925e-10',
    });
  });
});

describe('parseJsonDecimalsAsText', () => {
  it('leaves strings, integers, booleans and null alone', () => {
    expect(parseJsonDecimalsAsText('{"a":"x \\"1.5\\" y","b":[1,-2,0.5,-0.25,1e3],"c":true,"d":null}')).toEqual({
      a: 'x "1.5" y',
      b: [1, -2, '0.5', '-0.25', '1e3'],
      c: true,
      d: null,
    });
  });
});

describe('NodeClient cookie auth', () => {
  it('reads the cookie, and re-reads it after a 401 (node restarted with a new cookie)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'addrsum-cookie-'));
    try {
      const cookie = join(dir, '.cookie');
      await writeFile(cookie, '__cookie__:first');
      let accepted = '__cookie__:first';
      const node = await fakeNode((s, res) => {
        if (s.auth !== accepted) {
          res.writeHead(401);
          res.end();
        } else rpcReply(res, 200, 1);
      });
      const c = client(node.port, { url: `http://127.0.0.1:${node.port}`, cookieFile: cookie });
      expect(await c.getBlockCount()).toBe(1);
      accepted = '__cookie__:second';
      await writeFile(cookie, '__cookie__:second\n');
      expect(await c.getBlockCount()).toBe(1);
      expect(node.seen.map((s) => s.auth)).toEqual(['__cookie__:first', '__cookie__:first', '__cookie__:second']);
      accepted = 'nobody';
      expect((await rejection(c.getBlockCount())).code).toBe('AUTH');
      await rm(cookie);
      // Core deletes the cookie when it stops: that reads as "node not running".
      expect(await rejection(c.getBlockCount())).toMatchObject({ code: 'UNREACHABLE', transient: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('NodeClient.getBlock', () => {
  const raw = Buffer.from('00112233445566778899', 'hex');

  it('uses REST when /rest/chaininfo.json answers, probing only once', async () => {
    const node = await fakeNode((s, res) => {
      if (s.url === '/rest/chaininfo.json') rpcReply(res, 200, {});
      else if (s.url === `/rest/block/${HASH}.bin`) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(raw);
      } else rpcReply(res, 500, null, { code: -1, message: 'unexpected' });
    });
    const c = client(node.port);
    const blocks = await Promise.all([c.getBlock(HASH), c.getBlock(HASH), c.getBlock(HASH)]);
    for (const b of blocks) expect(b.equals(raw)).toBe(true);
    expect(node.seen.filter((s) => s.url === '/rest/chaininfo.json')).toHaveLength(1);
    expect(node.seen.filter((s) => s.url.startsWith('/rest/block/'))).toHaveLength(3);
    expect(node.seen.every((s) => s.auth === null)).toBe(true);
  });

  it('falls back to getblock <hash> 0 when REST is off (404 without body)', async () => {
    const node = await fakeNode((s, res) => {
      if (s.url.startsWith('/rest/')) {
        res.writeHead(404);
        res.end();
      } else rpcReply(res, 200, raw.toString('hex'));
    });
    const c = client(node.port);
    expect((await c.getBlock(HASH)).equals(raw)).toBe(true);
    expect((await c.getBlock(HASH)).equals(raw)).toBe(true);
    expect(node.seen.filter((s) => s.url.startsWith('/rest/'))).toHaveLength(1);
    const rpc = node.seen.filter((s) => s.method === 'POST').map((s) => JSON.parse(s.body) as { method: string; params: unknown[] });
    expect(rpc).toHaveLength(2);
    expect(rpc[0]).toMatchObject({ method: 'getblock', params: [HASH, 0] });
  });

  it('maps REST 404 with a message to NOT_FOUND and 503 to WARMING_UP', async () => {
    let warm = false;
    const node = await fakeNode((s, res) => {
      if (s.url === '/rest/chaininfo.json') {
        if (!warm) {
          warm = true;
          res.writeHead(503);
          res.end('Service temporarily unavailable: Loading block index...');
        } else rpcReply(res, 200, {});
      } else {
        res.writeHead(404);
        res.end(`${HASH} not found`);
      }
    });
    const c = client(node.port);
    expect(await rejection(c.getBlock(HASH))).toMatchObject({ code: 'WARMING_UP', transient: true });
    expect(await rejection(c.getBlock(HASH))).toMatchObject({ code: 'NOT_FOUND', transient: false });
  });

  it('rejects non-hex RPC block data and refuses a malformed hash before any request', async () => {
    const node = await fakeNode((s, res) => {
      if (s.url.startsWith('/rest/')) {
        res.writeHead(404);
        res.end();
      } else rpcReply(res, 200, 'zz');
    });
    const c = client(node.port);
    expect((await rejection(c.getBlock(HASH))).code).toBe('BAD_RESPONSE');
    await expect(c.getBlock('../../etc')).rejects.toThrow(RangeError);
  });
});
