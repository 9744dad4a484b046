/**
 * JSON-RPC and REST client for bitcoind/litecoind (Bitcoin Core's HTTP server, src/httpserver.cpp).
 *
 * - Auth: `http://user:pass@host:port` or the node's cookie file (`__cookie__:<hex>`). The cookie is
 *   re-read after every 401, because a node restart writes a new one (GenerateAuthCookie).
 * - Blocks (and headers, node-headers.ts): REST `/rest/block/<hash>.bin` (raw bytes, no hex/JSON overhead,
 *   no auth) when the node runs with `-rest=1`, probed once via `/rest/chaininfo.json`; otherwise RPC `getblock <hash> 0` (hex).
 *   Both carry MWEB data as the node serializes it.
 * - One keep-alive agent, so thousands of small calls during catch-up reuse a few sockets.
 * - Every failure is a NodeError (rpc-errors.ts); retrying is the caller's choice (withRetry).
 */
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { NodeError, RPC_INVALID_PARAMETER, fromHttpStatus, fromRpcError, fromSocketError } from './rpc-errors.js';
import { redactUrl } from '../redact.js';
import type { LogSink } from '../logger.js';

export { NodeError, isRetryable, type NodeErrorCode } from './rpc-errors.js';
export { withRetry, type RetryOptions } from './node-retry.js';

export interface NodeClientOptions {
  /** `http://user:pass@host:port` (user and password URL-encoded); a path such as `/wallet/x` is kept for RPC. */
  url: string;
  /** Path of the node's `.cookie`; when set it is used instead of the URL's credentials. */
  cookieFile?: string;
  /** Limit for one whole request (connect, send, full answer). Default 60 s: a 4 MB block as hex is 8 MB. */
  timeoutMs?: number;
  log?: LogSink;
  /** Concurrent sockets to the node; Core serves -rpcthreads (default 4) at a time. Default 8. */
  maxSockets?: number;
  /** Idle keep-alive sockets are closed after this long. Default 2 s (see the constructor). */
  idleSocketMs?: number;
  /** Told of every request to the node when it ends (answered or failed): its kind and seconds. */
  onRequest?: (request: string, seconds: number) => void;
}

export interface BlockHeaderInfo {
  hash: string;
  height: number;
  /** null for the genesis block. */
  previousblockhash: string | null;
  /** -1 when the block is not in the node's active chain (Core's blockheaderToJSON). */
  confirmations: number;
}

export interface ChainInfo {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  initialblockdownload: boolean;
  verificationprogress: number;
  pruned: boolean;
  /** A pruned node's lowest height with a complete block on disk (`pruneheight`); null when not pruned. */
  pruneHeight: number | null;
}

export interface CallOptions {
  /** How to turn the reply's JSON text into a value (default JSON.parse); e.g. to keep amounts exact. */
  parseJson?: (text: string) => unknown;
}

interface HttpReply {
  status: number;
  body: Buffer;
}

const IDLE_SOCKET_MS = 2_000;
const HASH_HEX = /^[0-9a-fA-F]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

export class NodeClient {
  /** The URL with its user and password replaced by `***`: the only form that may be logged. */
  readonly safeUrl: string;
  private readonly host: string;
  private readonly port: number;
  private readonly rpcPath: string;
  private readonly urlAuth: string | null;
  private readonly cookieFile: string | undefined;
  private cookieAuth: string | null = null;
  private readonly timeoutMs: number;
  private readonly log: LogSink | undefined;
  private readonly agent: http.Agent;
  private readonly onRequest: ((request: string, seconds: number) => void) | undefined;
  private rest: Promise<boolean> | null = null;
  private nextId = 1;

  constructor(opts: NodeClientOptions) {
    this.safeUrl = redactUrl(opts.url);
    this.onRequest = opts.onRequest;
    let u: URL;
    try {
      u = new URL(opts.url);
    } catch {
      throw new RangeError(`invalid node URL: ${this.safeUrl}`);
    }
    if (u.protocol !== 'http:') throw new RangeError(`node URL must be http:// (Core has no TLS): ${this.safeUrl}`);
    this.host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = u.port === '' ? 80 : Number(u.port);
    this.rpcPath = u.pathname === '' ? '/' : u.pathname;
    this.urlAuth = u.username !== '' ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : null;
    this.cookieFile = opts.cookieFile;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.log = opts.log;
    // Idle sockets close after 2 s: Core's shutdown waits for open HTTP connections (up to
    // -rpcservertimeout, 30 s), so lingering keep-alive sockets would delay an operator's node restart.
    this.agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8, timeout: opts.idleSocketMs ?? IDLE_SOCKET_MS });
  }

  /** Closes idle keep-alive sockets. Requests after close() open new ones. */
  close(): void {
    this.agent.destroy();
  }

  /** One JSON-RPC 1.0 call; resolves with `result`, rejects with a NodeError. */
  async call<T>(method: string, params: readonly unknown[] = [], opts: CallOptions = {}): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params });
    let auth = await this.credentials();
    let reply = await this.send('POST', this.rpcPath, body, auth, method);
    if (reply.status === 401 && this.cookieFile !== undefined) {
      // The node may have restarted and written a new cookie since we read it.
      this.cookieAuth = null;
      const fresh = await this.credentials();
      if (fresh !== auth) {
        auth = fresh;
        reply = await this.send('POST', this.rpcPath, body, auth, method);
      }
    }
    if (reply.status === 401 || reply.status === 403) throw fromHttpStatus(reply.status, '', this.safeUrl, method);
    const text = reply.body.toString('utf8');
    let json: unknown;
    try {
      json = (opts.parseJson ?? JSON.parse)(text);
    } catch {
      json = undefined;
    }
    if (json === null || typeof json !== 'object' || !('result' in json) || !('error' in json)) {
      if (reply.status !== 200) throw fromHttpStatus(reply.status, text, this.safeUrl, method);
      // An empty or cut-off JSON reply is what a node shutting down sends: transient (every call we make
      // is a read, so retrying is safe). Anything else (an HTML page, ...) means the URL is not a node.
      const cutOff = /^\s*(\{|$)/.test(text);
      throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl} sent a reply to ${method} that is not JSON-RPC`, cutOff, {
        httpStatus: reply.status,
        request: method,
      });
    }
    const { error, result } = json as { error: unknown; result: unknown };
    if (error !== null) {
      const e = error as { code?: unknown; message?: unknown };
      if (typeof e.code !== 'number' || typeof e.message !== 'string') {
        throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl} sent a malformed error for ${method}`, false, {
          httpStatus: reply.status,
          request: method,
        });
      }
      throw fromRpcError({ code: e.code, message: e.message }, this.safeUrl, method, reply.status);
    }
    return result as T;
  }

  async getBestBlockHash(): Promise<string> {
    return this.hashResult(await this.call<unknown>('getbestblockhash'), 'getbestblockhash');
  }

  async getBlockCount(): Promise<number> {
    return this.intResult(await this.call<unknown>('getblockcount'), 'getblockcount');
  }

  /** Rejects with NOT_FOUND when the height is above the node's tip (RPC -8 "Block height out of range"). */
  async getBlockHash(height: number): Promise<string> {
    try {
      return this.hashResult(await this.call<unknown>('getblockhash', [height]), 'getblockhash');
    } catch (err) {
      if (err instanceof NodeError && err.details.rpcCode === RPC_INVALID_PARAMETER) {
        throw new NodeError('NOT_FOUND', err.message, false, err.details, { cause: err });
      }
      throw err;
    }
  }

  async getBlockHeader(hash: string): Promise<BlockHeaderInfo> {
    assertHash(hash);
    const r = await this.call<Record<string, unknown>>('getblockheader', [hash, true]);
    const prev = r?.previousblockhash;
    return {
      hash: this.hashResult(r?.hash, 'getblockheader.hash'),
      height: this.intResult(r?.height, 'getblockheader.height'),
      previousblockhash: prev === undefined ? null : this.hashResult(prev, 'getblockheader.previousblockhash'),
      confirmations: this.intResult(r?.confirmations, 'getblockheader.confirmations', true),
    };
  }

  /** Whether `hash` is in the node's active chain: false when unknown or on a stale branch. */
  async isInActiveChain(hash: string): Promise<boolean> {
    try {
      return (await this.getBlockHeader(hash)).confirmations >= 0;
    } catch (err) {
      if (err instanceof NodeError && err.code === 'NOT_FOUND') return false;
      throw err;
    }
  }

  async getChainInfo(): Promise<ChainInfo> {
    const r = await this.call<Record<string, unknown>>('getblockchaininfo');
    const bad = (field: string): never => {
      throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl}: getblockchaininfo lacks ${field}`, false, {
        request: 'getblockchaininfo',
      });
    };
    if (typeof r?.chain !== 'string') bad('chain');
    if (typeof r.initialblockdownload !== 'boolean') bad('initialblockdownload');
    if (typeof r.verificationprogress !== 'number') bad('verificationprogress');
    return {
      chain: r.chain as string,
      blocks: this.intResult(r.blocks, 'getblockchaininfo.blocks'),
      headers: this.intResult(r.headers, 'getblockchaininfo.headers'),
      bestblockhash: this.hashResult(r.bestblockhash, 'getblockchaininfo.bestblockhash'),
      initialblockdownload: r.initialblockdownload as boolean,
      verificationprogress: r.verificationprogress as number,
      pruned: r.pruned === true,
      pruneHeight: r.pruned === true ? this.intResult(r.pruneheight, 'getblockchaininfo.pruneheight') : null,
    };
  }

  /**
   * Transactions in the chain up to and including block `hash` (Core's nChainTx), from
   * `getchaintxstats 0 <hash>`; the node refuses a block outside its active chain (RPC -8).
   */
  async getChainTxCount(hash: string): Promise<number> {
    assertHash(hash);
    const r = await this.call<Record<string, unknown>>('getchaintxstats', [0, hash]);
    return this.intResult(r?.txcount, 'getchaintxstats.txcount');
  }

  /** Raw block bytes as the node serializes them (MWEB data included). NOT_FOUND when the node lacks it. */
  async getBlock(hash: string): Promise<Buffer> {
    assertHash(hash);
    const bin = await this.restGet(`/rest/block/${hash}.bin`, `REST block ${hash}`);
    if (bin !== null) return bin;
    return this.hexResult(await this.call<unknown>('getblock', [hash, 0]), 'getblock');
  }

  /**
   * A binary REST resource (`path` under /rest/), or null when the node serves no REST (-rest=0):
   * the caller then asks over RPC. NOT_FOUND when the node lacks what the path names.
   */
  async restGet(path: string, request: string): Promise<Buffer | null> {
    if (!(await this.restAvailable())) return null;
    const reply = await this.send('GET', path, undefined, null, request);
    if (reply.status === 200) return reply.body;
    const text = reply.body.toString('utf8');
    if (reply.status === 404 && text === '') {
      // No handler at all: the node was restarted without -rest since we probed. Probe again next time.
      this.rest = null;
      return null;
    }
    const why = `node at ${this.safeUrl}: ${request}: ${text.trim()}`;
    if (reply.status === 404) throw new NodeError('NOT_FOUND', why, false, { httpStatus: 404, request });
    if (reply.status === 503) throw new NodeError('WARMING_UP', why, true, { httpStatus: 503, request });
    throw fromHttpStatus(reply.status, text, this.safeUrl, request);
  }

  /** An RPC result that must be hex (a raw block, a raw header), as bytes. */
  hexResult(hex: unknown, request: string): Buffer {
    if (typeof hex === 'string' && HEX.test(hex)) return Buffer.from(hex, 'hex');
    throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl}: ${request} did not return hex`, false, { request });
  }

  /** Whether the node serves REST; asked once (concurrent callers share the probe), re-asked after a failed probe. */
  private restAvailable(): Promise<boolean> {
    if (this.rest === null) {
      const probe = this.probeRest();
      this.rest = probe;
      probe.catch(() => {
        if (this.rest === probe) this.rest = null;
      });
    }
    return this.rest;
  }

  private async probeRest(): Promise<boolean> {
    const request = 'REST chaininfo';
    const reply = await this.send('GET', '/rest/chaininfo.json', undefined, null, request);
    if (reply.status === 200) return true;
    const text = reply.body.toString('utf8');
    if (reply.status === 404) {
      this.log?.info({ node: this.safeUrl }, 'node REST interface is off (-rest=0): fetching blocks as hex over RPC, which is slower');
      return false;
    }
    if (reply.status === 503) {
      throw new NodeError('WARMING_UP', `node at ${this.safeUrl}: ${request}: ${text.trim()}`, true, { httpStatus: 503, request });
    }
    throw fromHttpStatus(reply.status, text, this.safeUrl, request);
  }

  /** `user:pass` for the Authorization header: the cookie's content when configured, else the URL's. */
  private async credentials(): Promise<string | null> {
    if (this.cookieFile === undefined) return this.urlAuth;
    if (this.cookieAuth !== null) return this.cookieAuth;
    let text: string;
    try {
      text = await readFile(this.cookieFile, 'utf8');
    } catch (err) {
      const errno = (err as { code?: unknown }).code;
      // Core deletes its cookie on shutdown (DeleteAuthCookie): a missing file means a stopped node.
      if (errno === 'ENOENT') {
        throw new NodeError('UNREACHABLE', `node cookie file ${this.cookieFile} does not exist (is the node running?)`, true);
      }
      throw new NodeError('AUTH', `cannot read node cookie file ${this.cookieFile}: ${String(errno)}`, false, {}, { cause: err });
    }
    const line = text.trim();
    if (!line.includes(':')) throw new NodeError('AUTH', `node cookie file ${this.cookieFile} is not user:password`, false);
    this.cookieAuth = line;
    return line;
  }

  private send(
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    auth: string | null,
    request: string,
    retried = false,
  ): Promise<HttpReply> {
    const started = performance.now();
    const reply = new Promise<HttpReply>((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {};
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      if (auth !== null) headers.authorization = `Basic ${Buffer.from(auth, 'utf8').toString('base64')}`;
      let settled = false;
      let timedOut = false;
      const fail = (err: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (timedOut) {
          reject(
            new NodeError('TIMEOUT', `node at ${this.safeUrl} did not answer ${request} within ${this.timeoutMs} ms`, true, { request }),
          );
          return;
        }
        const errno = (err as { code?: unknown } | null)?.code;
        // A keep-alive socket the node closed while idle (-rpcservertimeout) fails on first reuse:
        // resend once on a fresh socket, as Node's http docs advise for req.reusedSocket.
        if (req.reusedSocket && !retried && (errno === 'ECONNRESET' || errno === 'EPIPE')) {
          this.send(method, path, body, auth, request, true).then(resolve, reject);
          return;
        }
        reject(fromSocketError(err, this.safeUrl, request));
      };
      const req = http.request({ host: this.host, port: this.port, path, method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) });
        });
      });
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
        fail(new Error('timeout'));
      }, this.timeoutMs);
      req.on('error', fail);
      req.end(body);
    });
    const observe = this.onRequest;
    if (observe && !retried) {
      // By kind only (`getblock`, `REST block`): never a hash, so the label set stays small.
      const kind = request.startsWith('REST ') ? request.split(' ', 2).join(' ') : request;
      const done = (): void => observe(kind, (performance.now() - started) / 1000);
      reply.then(done, done);
    }
    return reply;
  }

  private hashResult(v: unknown, what: string): string {
    if (typeof v === 'string' && HASH_HEX.test(v)) return v.toLowerCase();
    throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl}: ${what} is not a 32-byte hex hash`, false, { request: what });
  }

  private intResult(v: unknown, what: string, allowNegative = false): number {
    if (typeof v === 'number' && Number.isSafeInteger(v) && (allowNegative || v >= 0)) return v;
    throw new NodeError('BAD_RESPONSE', `node at ${this.safeUrl}: ${what} is not an integer`, false, { request: what });
  }
}

function assertHash(hash: string): void {
  // Also keeps arbitrary text out of the REST path.
  if (!HASH_HEX.test(hash)) throw new RangeError(`not a block hash: ${hash}`);
}
