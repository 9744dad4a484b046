/**
 * The node-backed group of one chain's methods (transactions and fees), with the node link they share:
 * the service closes it with the listeners.
 */
import type { ChainHandle } from '../../serving/chain-handle.js';
import { chainParams, type ChainCode } from '../../chain/params.js';
import type { Config } from '../../config.js';
import { blockTxids } from '../node/block-txids.js';
import { indexAccess } from '../index/access.js';
import { nodeLink } from '../node/node-link.js';
import { feeMethods } from './fee-methods.js';
import type { MethodSpec } from './registry.js';
import { transactionMethods } from './transaction-methods.js';

export function nodeMethods(
  config: Config,
  chain: ChainCode,
  handle: ChainHandle | undefined,
): { methods: Record<string, MethodSpec>; close(): void } {
  const node = nodeLink(config, chain);
  const index = indexAccess(handle);
  return {
    methods: {
      ...transactionMethods({
        index,
        node,
        blockTxids: blockTxids(index, node),
        broadcast: config.electrum.broadcast,
        // Only a chain with MWEB has transactions in the MWEB form Electrum cannot parse.
        stripMweb: chainParams(chain, config.chains[chain].network).mwebHrp !== null,
      }),
      ...feeMethods(node),
    },
    close: () => node.close(),
  };
}
