/**
 * The status of one outpoint (blockchain.outpoint.*, protocol 1.6): the height of the transaction that
 * funds it and, once something spends it, the spender's txid and height, "taking the mempool into
 * consideration". The funding transaction is read as every door reads one (src/serving/tx-source.ts),
 * its spender from history's spend index; a mempool transaction's height is 0, or -1 while it spends an
 * output of another mempool transaction (the node's getmempoolentry `depends`), as in get_history.
 */
import type { ChainCode } from '../../chain/params.js';
import { toDisplayHex } from '../../chain/hash.js';
import { scriptKey } from '../../store/script-key.js';
import type { ChainNode } from '../../serving/chain-node.js';
import { askNode } from '../../serving/node-answers.js';
import type { TxSource } from '../../serving/tx-source.js';
import { rpcErrorOf } from '../serving-errors.js';
import { RpcError } from '../wire.js';
import type { IndexAccess } from './access.js';

/** The protocol's status: no key (no funding transaction), `height` only (unspent), or all three. */
export interface OutpointStatus {
  readonly height?: number;
  readonly spender_txhash?: string;
  readonly spender_height?: number;
}

export interface OutpointRead {
  readonly status: OutpointStatus;
  /**
   * The script key whose history changes with the status (a funding or spending transaction appears,
   * is mined or leaves): the funding output's; null while no funding transaction is known.
   */
  readonly key: Buffer | null;
}

export interface OutpointSource {
  readonly chain: ChainCode;
  readonly index: IndexAccess;
  readonly txs: TxSource;
  readonly node: ChainNode;
}

/** Heights 0 and -1 of the protocol for a mempool transaction (txid in internal byte order). */
async function mempoolHeight(source: OutpointSource, txid: Buffer): Promise<number> {
  const entry = await askNode<{ depends?: unknown }>(source.chain, source.node, 'getmempoolentry', [toDisplayHex(txid)]);
  // Gone from the mempool since it was read (mined, replaced): the next change reads it again.
  return Array.isArray(entry?.depends) && entry.depends.length > 0 ? -1 : 0;
}

/** Reads the outpoint's status now; an index or node that cannot answer is an RpcError. */
export async function readOutpoint(source: OutpointSource, txid: Buffer, vout: number): Promise<OutpointRead> {
  try {
    const index = source.index();
    const found = await source.txs.find(index, txid);
    // A transaction without that output never will have it (its txid commits to its outputs).
    if (found === null || vout >= found.tx.outputs.length) return { status: {}, key: null };
    const key = scriptKey(found.tx.outputs[vout]!.script);
    const height = found.block?.height ?? (await mempoolHeight(source, txid));
    const read = await source.txs.outspend(index, found, vout);
    if (read === null) throw new RpcError('SERVER_BUSY', 'the index keeps no history right now, so spends cannot be read; retry shortly');
    const { spend } = read;
    if (spend === null) return { status: { height }, key };
    if (spend.txid === null) {
      throw new RpcError(
        'BAD_REQUEST',
        'this output was spent before the index kept spends, so its spender is unknown here (rebuilding history records it)',
      );
    }
    const spenderHeight = spend.height ?? (await mempoolHeight(source, spend.txid));
    return { status: { height, spender_txhash: toDisplayHex(spend.txid), spender_height: spenderHeight }, key };
  } catch (err) {
    throw rpcErrorOf(err, 'daemon error: ') ?? err;
  }
}

/** The funding transaction is in the indexed blocks: one index read, no node call (txid internal order). */
export async function fundingMined(source: OutpointSource, txid: Buffer): Promise<boolean> {
  return (await source.index().txBlock(txid)) !== null;
}
