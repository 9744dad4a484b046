/**
 * One chain's transactions and blocks as read from its node with the index's help, shared by every door
 * that shows them (the HTTP views today; the Esplora and Blockbook dialects on top of them).
 */
import type { ChainCode } from '../chain/params.js';
import { BlockSource } from './block-source.js';
import type { ChainNode } from './chain-node.js';
import { TxSource } from './tx-source.js';

export interface NodeViews {
  readonly node: ChainNode;
  readonly txs: TxSource;
  readonly blocks: BlockSource;
  close(): void;
}

export function nodeViews(chain: ChainCode, node: ChainNode): NodeViews {
  return { node, txs: new TxSource(chain, node), blocks: new BlockSource(chain, node), close: () => node.close() };
}
