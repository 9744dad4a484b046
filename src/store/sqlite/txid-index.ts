/**
 * history_txid_index (migrations/0011): each numbered transaction under its txid's first bytes, so that
 * IndexReader.txBlock finds the block of a txid without a scan. The writer keeps it with history_txids
 * (history-store.ts); the reader, here, checks each candidate number against the txid stored for it.
 */
import { TXID_BYTES } from '../outpoint.js';
import { txidPrefix, type TxBlock } from '../tx-block.js';
import type { Db } from './db.js';
import { TXIDS_PER_ROW } from './history-store.js';

/** The reader's side: call inside a read transaction (one snapshot with the tip it answers at). */
export function txidIndexReads(db: Db): (txid: Buffer) => TxBlock | null {
  const candidates = db.prepare<[Buffer], number>('SELECT tx_num FROM history_txid_index WHERE prefix = ?').pluck();
  const txids = db.prepare<[number], Buffer>('SELECT txids FROM history_txids WHERE grp = ?').pluck();
  const block = db.prepare<[number], { first_tx: number; height: number }>(
    'SELECT first_tx, height FROM history_blocks WHERE first_tx <= ? ORDER BY first_tx DESC LIMIT 1',
  );
  const hash = db.prepare<[number], Buffer>('SELECT hash FROM blocks WHERE height = ?').pluck();
  return (txid) => {
    for (const txNum of candidates.all(txidPrefix(txid))) {
      const at = (txNum % TXIDS_PER_ROW) * TXID_BYTES;
      const row = txids.get(Math.floor(txNum / TXIDS_PER_ROW));
      if (!row || !row.subarray(at, at + TXID_BYTES).equals(txid)) continue;
      const b = block.get(txNum);
      const h = b && hash.get(b.height);
      if (!b || !h) return null;
      return { height: b.height, hash: h, position: txNum - b.first_tx, txNum };
    }
    return null;
  };
}
