/**
 * The node behind one chain's Electrum methods (transactions, fees): the serving layer's chain node
 * (src/serving/chain-node.ts), or, when the chain has no rpcUrl, a link that answers every call with an
 * error naming the setting. Every failure of the node becomes an error answer (DAEMON_ERROR, as
 * ElectrumX's "daemon error"), never a crash.
 */
import type { ChainCode } from '../../chain/params.js';
import type { Config } from '../../config.js';
import { NodeError } from '../../node/node-client.js';
import { chainNode, nodeSaid, type ChainNode } from '../../serving/chain-node.js';
import { settingWithVariables } from '../../setting-variables.js';
import { RpcError } from '../wire.js';

export { nodeRpcCode } from '../../serving/chain-node.js';

export interface NodeLink {
  /** The node's answer to `method`; a thrown RpcError (DAEMON_ERROR) when there is none. */
  call<T>(method: string, params?: readonly unknown[]): Promise<T>;
  close(): void;
}

/** What a method that needs the node answers on a chain without one: the setting to set. */
export function noNode(chain: ChainCode): RpcError {
  return new RpcError(
    'DAEMON_ERROR',
    `this server has no node for ${chain}, so it cannot serve this method: its operator sets ${settingWithVariables(`chains.${chain}.rpcUrl`)}`,
  );
}

/**
 * The chain's node link: over `node` (the API's own, by default one for `chains.<C>.rpcUrl`), or, without
 * one, a link that names the setting.
 */
export function nodeLink(config: Config, chain: ChainCode, node: ChainNode | null = chainNode(config, chain)): NodeLink {
  if (node === null) {
    const missing = noNode(chain);
    return { call: () => Promise.reject(missing), close: () => undefined };
  }
  return {
    call: async <T>(method: string, params: readonly unknown[] = []) => {
      try {
        return await node.call<T>(method, params);
      } catch (err) {
        if (!(err instanceof NodeError)) throw new RpcError('DAEMON_ERROR', `daemon error: ${method} failed`);
        throw new RpcError('DAEMON_ERROR', `daemon error: ${method}: ${nodeSaid(err)}`, { cause: err });
      }
    },
    close: () => node.close(),
  };
}
