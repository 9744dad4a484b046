/**
 * The node's own account of its chain, for the view suites to compare with: every block with its
 * transactions (`getblock … 2`, amounts as exact text), every transaction by txid with its block and
 * position, and the input that spent each output (in a block, or in the mempool).
 */
import type { Litecoind } from '../../harness/litecoind.js';

export interface NodeVout {
  value: string;
  n: number;
  scriptPubKey: { hex: string; type: string; addresses?: string[]; address?: string };
}
export interface NodeVin {
  txid?: string;
  vout?: number;
  coinbase?: string;
  scriptSig?: { hex: string };
  txinwitness?: string[];
  sequence: number;
}
export interface NodeTx {
  txid: string;
  hash: string;
  version: number;
  locktime: number;
  size: number;
  vsize: number;
  weight: number;
  vin: NodeVin[];
  vout: NodeVout[];
  hex: string;
}
export interface NodeBlock {
  hash: string;
  height: number;
  version: number;
  time: number;
  mediantime: number;
  bits: string;
  nonce: number;
  difficulty: string;
  merkleroot: string;
  previousblockhash?: string;
  nextblockhash?: string;
  confirmations: number;
  nTx: number;
  size: number;
  strippedsize: number;
  weight: number;
  tx: NodeTx[];
}

export interface Walked {
  readonly tx: NodeTx;
  readonly block: NodeBlock;
  readonly position: number;
}

export interface SpentBy {
  txid: string;
  vin: number;
  height: number | null;
}

export interface Walk {
  blocks: NodeBlock[];
  txs: Map<string, Walked>;
  /** By `txid:vout`: the input that spent it, in a block or (height null) in the node's mempool. */
  spentBy: Map<string, SpentBy>;
}

/** Every block of the node's chain with its transactions (`getblock … 2`), every transaction by txid, and what spent each output. */
export async function walkChain(node: Litecoind): Promise<Walk> {
  const tip = await node.cli<number>('getblockcount');
  const blocks: NodeBlock[] = [];
  const txs = new Map<string, Walked>();
  const spentBy = new Map<string, SpentBy>();
  const spends = (tx: NodeTx, height: number | null) =>
    tx.vin.forEach((i, vin) => {
      if (i.txid !== undefined) spentBy.set(`${i.txid}:${i.vout}`, { txid: tx.txid, vin, height });
    });
  for (let h = 0; h <= tip; h++) {
    const block = await node.cliExact<NodeBlock>('getblock', await node.cli<string>('getblockhash', h), 2);
    blocks.push(block);
    block.tx.forEach((tx, position) => {
      txs.set(tx.txid, { tx, block, position });
      spends(tx, block.height);
    });
  }
  for (const txid of await node.cli<string[]>('getrawmempool')) spends(await node.cliExact<NodeTx>('getrawtransaction', txid, true), null);
  return { blocks, txs, spentBy };
}
