/**
 * A mempool item of a history page (index-model.ts WalletUnconfirmedItem), as both engines build it from
 * the merged amounts and the columns of its mempool_txs row: fee, and unconfirmed_inputs (the inputs
 * spending an output of a transaction still held, kept current as parents leave the view).
 */
import type { MergedEntry } from './history-merge.js';
import type { WalletUnconfirmedItem } from './index-model.js';

/** What a page says of a mempool transaction beside its amounts. */
export interface MempoolTxFacts {
  readonly txid: Buffer;
  readonly fee: bigint | null;
  readonly spendsUnconfirmed: boolean;
}

/** From a row: the fee as the engine's driver gives it (a number, a decimal string), NULL when not known. */
export function mempoolTxFacts(txid: Buffer, fee: number | string | null, unconfirmedInputs: number | string): MempoolTxFacts {
  return { txid, fee: fee === null ? null : BigInt(fee), spendsUnconfirmed: Number(unconfirmedInputs) > 0 };
}

export function unconfirmedItem(m: MergedEntry, tx: MempoolTxFacts): WalletUnconfirmedItem {
  return {
    seq: m.rank,
    txid: tx.txid,
    received: m.received,
    sent: m.sent,
    fee: tx.fee,
    spendsUnconfirmed: tx.spendsUnconfirmed,
    parts: m.parts,
  };
}
