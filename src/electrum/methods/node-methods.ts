/**
 * The node-backed group of one chain's methods (transactions, outpoints and fees), with the node link they
 * share: the service closes it with the listeners.
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
import { TxSource } from '../../serving/tx-source.js';
import type { Logger } from '../../logger.js';
import type { ChangeFeed } from '../index/change-feed.js';
import { OutpointSubscriptions } from '../index/outpoint-subscriptions.js';
import { feeMethods } from './fee-methods.js';
import { outpointMethods } from './outpoint-methods.js';
import type { MethodSpec } from './registry.js';
import { transactionMethods } from './transaction-methods.js';

export function nodeMethods(
  config: Config,
  chain: ChainCode,
  handle: ChainHandle | undefined,
  /** The process's feed hub (outpoint subscriptions) and the chain's log. */
  live: { readonly feed: ChangeFeed; readonly log: Logger },
  /** The API's views of the chain's node, shared (their caches too); absent: a node of its own. */
  shared?: NodeViews,
): { methods: Record<string, MethodSpec>; close(): void } {
  const own = shared === undefined ? chainNode(config, chain) : null;
  const raw = shared?.node ?? own;
  const node = nodeLink(config, chain, raw);
  const index = indexAccess(handle);
  const blocks = shared?.blocks ?? (raw === null ? null : new BlockSource(chain, raw));
  const txs = shared?.txs ?? (raw === null ? null : new TxSource(chain, raw));
  const source = raw === null || txs === null ? null : { chain, index, txs, node: raw };
  const subscriptions =
    source === null ? null : new OutpointSubscriptions(chain, live.feed, source, config.electrum.subscriptionsPerConnection, live.log);
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
      ...outpointMethods(chain, { source, subscriptions }),
      ...feeMethods(node),
    },
    close: () => own?.close(),
  };
}
