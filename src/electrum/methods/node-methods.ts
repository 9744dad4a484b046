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
import { BlockSource } from '../../serving/block-source.js';
import { chainNode } from '../../serving/chain-node.js';
import type { NodeViews } from '../../serving/node-views.js';
import { feeMethods } from './fee-methods.js';
import type { MethodSpec } from './registry.js';
import { transactionMethods } from './transaction-methods.js';

export function nodeMethods(
  config: Config,
  chain: ChainCode,
  handle: ChainHandle | undefined,
  /** The API's views of the chain's node, shared (their caches too); absent: a node of its own. */
  shared?: NodeViews,
): { methods: Record<string, MethodSpec>; close(): void } {
  const own = shared === undefined ? chainNode(config, chain) : null;
  const raw = shared?.node ?? own;
  const node = nodeLink(config, chain, raw);
  const index = indexAccess(handle);
  const blocks = shared?.blocks ?? (raw === null ? null : new BlockSource(chain, raw));
  return {
    methods: {
      ...transactionMethods({
        index,
        node,
        blockTxids: blockTxids(chain, index, blocks),
        broadcast: config.electrum.broadcast,
        // Only a chain with MWEB has transactions in the MWEB form Electrum cannot parse.
        stripMweb: chainParams(chain, config.chains[chain].network).mwebHrp !== null,
      }),
      ...feeMethods(node),
    },
    close: () => own?.close(),
  };
}
