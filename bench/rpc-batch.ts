/**
 * Batched JSON-RPC for the benchmarks' chain generation: one HTTP request carries hundreds of calls.
 *
 * Bitcoin Core (and Litecoin Core) runs the calls of a batch one after another, in order, on one RPC
 * thread (JSONRPCExecBatch), so a batch such as [sendrawtransaction × 28, generatetoaddress] mines
 * exactly those transactions. The indexer's NodeClient has no batch call on purpose (it never needs
 * one); this helper is for generating load only.
 */
import http from 'node:http';

export interface RpcCall {
  method: string;
  params: unknown[];
}

interface RpcReply {
  id: number;
  result: unknown;
  error: { code: number; message: string } | null;
}

export class RpcBatchError extends Error {
  constructor(
    message: string,
    readonly rpcCode: number,
    readonly call: RpcCall,
  ) {
    super(message);
  }
}

export class RpcBatch {
  private readonly url: URL;
  private readonly authorization: string;
  // Our own keep-alive agent, closed by close(): Core waits for open HTTP connections before it exits.
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  /** `rpcUrl` as startLitecoind gives it: http://user:pass@127.0.0.1:port. */
  constructor(rpcUrl: string) {
    this.url = new URL(rpcUrl);
    this.authorization = `Basic ${Buffer.from(`${decodeURIComponent(this.url.username)}:${decodeURIComponent(this.url.password)}`).toString('base64')}`;
  }

  /** Runs `calls` as one batch; returns results in order, or throws on the first call that failed. */
  async run<T = unknown>(calls: readonly RpcCall[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const body = JSON.stringify(calls.map((c, id) => ({ jsonrpc: '1.0', id, method: c.method, params: c.params })));
    const { status, text } = await this.post(body);
    if (!text.startsWith('[')) throw new Error(`RPC batch: HTTP ${status}: ${text.slice(0, 300)}`);
    const replies = JSON.parse(text) as RpcReply[];
    const out = new Array<T>(calls.length);
    for (const r of replies) {
      const call = calls[r.id]!;
      if (r.error) throw new RpcBatchError(`${call.method} failed: ${r.error.message} (${r.error.code})`, r.error.code, call);
      out[r.id] = r.result as T;
    }
    return out;
  }

  /** One call, without a batch around it. */
  async call<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
    const [result] = await this.run<T>([{ method, params }]);
    return result as T;
  }

  /** Drops the idle connection (call before stopping the node). */
  close(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: '/',
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', authorization: this.authorization, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
