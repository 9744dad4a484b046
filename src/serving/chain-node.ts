/**
 * The node behind one chain, for the doors that ask it (Electrum's transactions and fees, the HTTP
 * transaction and block views): the JSON-RPC client the indexer uses (src/node/node-client.ts), a few
 * sockets, every call bounded by a timeout. A failed call rejects with the client's NodeError; each door
 * says it in its own words, from nodeSaid, which never names the node's address (even redacted).
 */
import type { ChainCode } from '../chain/params.js';
import type { Config } from '../config.js';
import { NodeClient, NodeError, type CallOptions } from '../node/node-client.js';

/** A client waits on its answer: a node slower than this is answered as down. */
export const NODE_TIMEOUT_MS = 15_000;

export interface ChainNode {
  /** The node's answer to `method`; rejects with a NodeError when there is none. */
  call<T>(method: string, params?: readonly unknown[], opts?: CallOptions): Promise<T>;
  close(): void;
}

/** The chain's node when `chains.<C>.rpcUrl` is set; null otherwise. */
export function chainNode(config: Config, chain: ChainCode): ChainNode | null {
  const c = config.chains[chain];
  if (c.rpcUrl === undefined) return null;
  // A few sockets: the indexer holds its own client; the API's answers clients' occasional asks.
  const client = new NodeClient({ url: c.rpcUrl, cookieFile: c.rpcCookieFile, timeoutMs: NODE_TIMEOUT_MS, maxSockets: 4 });
  return { call: (method, params = [], opts) => client.call(method, params, opts), close: () => client.close() };
}

/** What a client may be told of a failed node call: what failed, never where the node is. */
export function nodeSaid(err: unknown): string {
  if (!(err instanceof NodeError)) return 'the call failed';
  const said: Record<NodeError['code'], string> = {
    UNREACHABLE: 'the node cannot be reached',
    AUTH: "the node refused this server's credentials",
    WARMING_UP: 'the node is starting; retry shortly',
    TIMEOUT: `the node did not answer within ${NODE_TIMEOUT_MS / 1000} s`,
    RPC: err.details.nodeMessage ?? 'the node refused the request',
    NOT_FOUND: err.details.nodeMessage ?? 'not found',
    BAD_RESPONSE: "the node's answer could not be read",
  };
  return said[err.code];
}

/** The node's RPC error code of a failed call (-5: not found, -26: rejected), on it or on its cause. */
export function nodeRpcCode(err: unknown): number | undefined {
  if (err instanceof NodeError) return err.details.rpcCode;
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof NodeError ? cause.details.rpcCode : undefined;
}
