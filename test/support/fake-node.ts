/**
 * A stand-in for bitcoind's HTTP interface over a live BtcChain: JSON-RPC (1.0 semantics, 2.0 answered
 * the way Core 28+ does, batches) behind HTTP basic auth, and the REST block endpoint. The chain is read
 * at every request, so a test can mine or reorg while an indexer follows.
 *
 * HTTP behaviour matched (Core's httprpc.cpp / rest.cpp):
 * - wrong or missing credentials: 401, empty body, `WWW-Authenticate: Basic realm="jsonrpc"`;
 * - non-POST RPC: 405; unparseable JSON: 500 with error -32700;
 * - JSON-RPC 1.0 errors: 500, except method-not-found 404 and invalid-request 400;
 * - REST is unauthenticated; disabled (`-rest=0`) it answers 404; unknown block: 404 `<hash> not found`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BtcChain } from './btc-chain.js';
import { callRpc, RPC_IN_WARMUP, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR, RpcError } from './fake-node-rpc.js';

export interface FakeNodeOptions {
  /** Serve `/rest/…` (bitcoind `-rest`). Default true. */
  restEnabled?: boolean;
  /** Answer each block request (REST or `getblock`) this many ms late, like a node reading from disk. */
  blockDelayMs?: number;
  /** RPC credentials. Defaults `user` / `pass`. */
  user?: string;
  pass?: string;
  /** The node's mempool, txid (display hex) → raw transaction: getrawmempool / getrawtransaction read it live. */
  mempool?: ReadonlyMap<string, Buffer>;
}

/** How injected failures look: Core's warm-up error (HTTP 500, code -28), or a dropped connection. */
export type FailureMode = 'warmup' | 'disconnect';

export interface FakeNode {
  /** `http://user:pass@127.0.0.1:port` — the form ADDRSUM_BTC_RPC_URL takes. */
  readonly url: string;
  /** `http://127.0.0.1:port`, no credentials (REST needs none). */
  readonly baseUrl: string;
  /** HTTP requests received so far (a batch counts once, REST included). */
  readonly requests: number;
  /** Calls per RPC method name, plus `rest:block` for REST block fetches. */
  readonly calls: ReadonlyMap<string, number>;
  /** Report `headers` this many blocks past the tip, like a node in its initial block download. */
  setHeadersAhead(blocks: number): void;
  /** The next `count` RPC requests (after auth) fail as `mode`; REST is unaffected. */
  failNext(count: number, mode?: FailureMode): void;
  close(): Promise<void>;
}

interface RpcRequest {
  method?: unknown;
  params?: unknown;
  id?: unknown;
  jsonrpc?: unknown;
}

interface Reply {
  status: number;
  body: unknown;
}

export async function startFakeNode(chain: BtcChain, opts: FakeNodeOptions = {}): Promise<FakeNode> {
  const user = opts.user ?? 'user';
  const pass = opts.pass ?? 'pass';
  const restEnabled = opts.restEnabled ?? true;
  const blockDelay = opts.blockDelayMs ?? 0;
  /** Runs `reply` now, or after blockDelay when it answers with a block. */
  const answerBlock = (reply: () => void): void => void (blockDelay > 0 ? setTimeout(reply, blockDelay) : reply());
  const expectedAuth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const calls = new Map<string, number>();
  const count = (name: string): void => void calls.set(name, (calls.get(name) ?? 0) + 1);
  let requests = 0;
  let failures = 0;
  let failureMode: FailureMode = 'warmup';
  let headersAhead = 0;

  /** One JSON-RPC object → reply object and the HTTP status Core would use if it stood alone. */
  const single = (req: RpcRequest): Reply => {
    const v2 = req.jsonrpc === '2.0';
    const id = req.id ?? null;
    try {
      if (typeof req.method !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string');
      count(req.method);
      const result = callRpc(chain, req.method, req.params, opts.mempool);
      if (req.method === 'getblockchaininfo') (result as { headers: number }).headers += headersAhead;
      return { status: 200, body: v2 ? { jsonrpc: '2.0', result, id } : { result, error: null, id } };
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      const error = { code: err.code, message: err.message };
      // JSON-RPC 2.0 (Core 28+): errors travel in the body with HTTP 200.
      if (v2) return { status: 200, body: { jsonrpc: '2.0', error, id } };
      const status = err.code === RPC_METHOD_NOT_FOUND ? 404 : err.code === RPC_INVALID_REQUEST ? 400 : 500;
      return { status, body: { result: null, error, id } };
    }
  };

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(`${JSON.stringify(body)}\n`);
  };

  const handleRest = (req: IncomingMessage, res: ServerResponse): void => {
    const text = (status: number, body: string): void => {
      res.writeHead(status, { 'Content-Type': 'text/plain' });
      res.end(body);
    };
    if (!restEnabled || req.method !== 'GET') return text(404, '');
    if (req.url === '/rest/chaininfo.json') {
      count('rest:chaininfo');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(`${JSON.stringify(callRpc(chain, 'getblockchaininfo', []))}\n`);
      return;
    }
    const m = /^\/rest\/block\/([^/.]*)\.(bin|hex)$/.exec(req.url ?? '');
    if (!m) return text(404, '');
    const [, hash = '', format] = m;
    count('rest:block');
    if (!/^[0-9a-f]{64}$/.test(hash)) return text(400, `Invalid hash: ${hash}`);
    const found = chain.lookup(hash);
    if (!found) return text(404, `${hash} not found`);
    answerBlock(() => {
      if (format === 'hex') return text(200, `${found.block.raw.toString('hex')}\n`);
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(found.block.raw);
    });
  };

  const handleRpc = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    if (req.headers.authorization !== expectedAuth) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="jsonrpc"' });
      res.end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405);
      res.end('JSONRPC server handles only POST requests');
      return;
    }
    if (failures > 0) {
      failures--;
      if (failureMode === 'disconnect') {
        req.socket.destroy();
        return;
      }
      return send(res, 500, { result: null, error: { code: RPC_IN_WARMUP, message: 'Loading block index…' }, id: null });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return send(res, 500, { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null });
    }
    if (Array.isArray(parsed)) {
      // Batch: HTTP 200, one reply per element, each carrying its own error (Core's JSONRPCExecBatch).
      return send(
        res,
        200,
        parsed.map((item: unknown) => single(typeof item === 'object' && item !== null ? (item as RpcRequest) : {}).body),
      );
    }
    if (typeof parsed !== 'object' || parsed === null) {
      return send(res, 400, { result: null, error: { code: RPC_PARSE_ERROR, message: 'Top-level object parse error' }, id: null });
    }
    const request = parsed as RpcRequest;
    if (request.jsonrpc === '2.0' && request.id === undefined) {
      single(request); // A 2.0 notification: executed, no reply body.
      res.writeHead(204);
      res.end();
      return;
    }
    const reply = single(request);
    if (request.method === 'getblock') answerBlock(() => send(res, reply.status, reply.body));
    else send(res, reply.status, reply.body);
  };

  const server = createServer((req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        if ((req.url ?? '').startsWith('/rest/')) handleRest(req, res);
        else handleRpc(req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (err) {
        // A bug in the stand-in itself: answer 500 rather than hang the client.
        send(res, 500, { result: null, error: { code: -32603, message: String(err) }, id: null });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    calls,
    setHeadersAhead(blocks: number) {
      headersAhead = blocks;
    },
    failNext(n: number, mode: FailureMode = 'warmup') {
      failures = n;
      failureMode = mode;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
