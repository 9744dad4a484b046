/**
 * The node behind one chain's Electrum methods (transactions, fees): the JSON-RPC client the indexer
 * uses (src/node/node-client.ts), or, when the chain has no rpcUrl, a link that answers every call with
 * an error naming the setting. Every failure of the node becomes an error answer (DAEMON_ERROR, as
 * ElectrumX's "daemon error"), never a crash, and every call is bounded by the client's timeout.
 */
import { NodeClient, NodeError } from '../../node/node-client.js';
import type { ChainCode } from '../../chain/params.js';
import type { Config } from '../../config.js';
import { settingWithVariables } from '../../setting-variables.js';
import { RpcError } from '../wire.js';

/** A wallet waits on its answer: a node slower than this is answered as down. */
export const NODE_TIMEOUT_MS = 15_000;

export interface NodeLink {
  /** The node's answer to `method`; a thrown RpcError (DAEMON_ERROR) when there is none. */
  call<T>(method: string, params?: readonly unknown[]): Promise<T>;
  close(): void;
}

/** What the wallet is told of a failed node call: never the node's address (even redacted), only what failed. */
function daemonError(err: unknown, method: string): RpcError {
  if (!(err instanceof NodeError)) return new RpcError('DAEMON_ERROR', `daemon error: ${method} failed`);
  const said: Record<NodeError['code'], string> = {
    UNREACHABLE: 'the node cannot be reached',
    AUTH: "the node refused this server's credentials",
    WARMING_UP: 'the node is starting; retry shortly',
    TIMEOUT: `the node did not answer within ${NODE_TIMEOUT_MS / 1000} s`,
    RPC: err.details.nodeMessage ?? 'the node refused the request',
    NOT_FOUND: err.details.nodeMessage ?? 'not found',
    BAD_RESPONSE: "the node's answer could not be read",
  };
  return new RpcError('DAEMON_ERROR', `daemon error: ${method}: ${said[err.code]}`, { cause: err });
}

/** The chain's node link: a client when `chains.<C>.rpcUrl` is set, else one that names the setting. */
export function nodeLink(config: Config, chain: ChainCode): NodeLink {
  const c = config.chains[chain];
  if (c.rpcUrl === undefined) {
    const missing = new RpcError(
      'DAEMON_ERROR',
      `this server has no node for ${chain}, so it cannot serve this method: its operator sets ${settingWithVariables(`chains.${chain}.rpcUrl`)}`,
    );
    return { call: () => Promise.reject(missing), close: () => undefined };
  }
  // A few sockets: the indexer holds its own client; the API's answers wallets' occasional asks.
  const client = new NodeClient({ url: c.rpcUrl, cookieFile: c.rpcCookieFile, timeoutMs: NODE_TIMEOUT_MS, maxSockets: 4 });
  return {
    call: async <T>(method: string, params: readonly unknown[] = []) => {
      try {
        return await client.call<T>(method, params);
      } catch (err) {
        throw daemonError(err, method);
      }
    },
    close: () => client.close(),
  };
}

/** The node's RPC error code of a DAEMON_ERROR made by this link (-5: not found, -26: rejected), if any. */
export function nodeRpcCode(err: unknown): number | undefined {
  const cause = err instanceof RpcError ? err.cause : undefined;
  return cause instanceof NodeError ? cause.details.rpcCode : undefined;
}
