/**
 * Reading the spend index (migrations/0013, ../spend-key.ts) for IndexReader.outspends: per output of a
 * transaction, whether the UTXO set holds it, the confirmed inputs under its spend key with their txids
 * (history_txids) and heights (history_blocks), and the mempool transaction spending it.
 */
import { outpointKey, TXID_BYTES } from '../outpoint.js';
import { spendKey, type OutputSpends, type Spender } from '../spend-key.js';
import type { Db } from './db.js';
import { SPENDS_FROM_KEY, TXIDS_PER_ROW } from './history-store.js';

/** The reader's side: call inside a read transaction (one snapshot with the tip it answers at). */
export function spendsReads(db: Db): { outputs(txid: Buffer, count: number): OutputSpends[]; spendsFrom(): number | null } {
  const utxo = db.prepare<[Buffer], number>('SELECT 1 FROM utxos WHERE outpoint = ?').pluck();
  const rows = db.prepare<[Buffer], { tx_num: number; vin: number }>('SELECT tx_num, vin FROM history_spends WHERE spend_key = ?');
  const txids = db.prepare<[number], Buffer>('SELECT txids FROM history_txids WHERE grp = ?').pluck();
  const block = db
    .prepare<[number], number>('SELECT height FROM history_blocks WHERE first_tx <= ? ORDER BY first_tx DESC LIMIT 1')
    .pluck();
  const mempool = db.prepare<[Buffer], Buffer>('SELECT txid FROM mempool_spends WHERE outpoint = ?').pluck();
  const meta = db.prepare<[string], unknown>('SELECT value FROM meta WHERE key = ?').pluck();
  const spender = (txNum: number, vin: number): Spender | null => {
    const at = (txNum % TXIDS_PER_ROW) * TXID_BYTES;
    const row = txids.get(Math.floor(txNum / TXIDS_PER_ROW));
    const height = block.get(txNum);
    if (!row || row.length < at + TXID_BYTES || height === undefined) return null;
    return { txid: Buffer.from(row.subarray(at, at + TXID_BYTES)), vin, height };
  };
  return {
    outputs(txid, count) {
      const out: OutputSpends[] = [];
      for (let vout = 0; vout < count; vout++) {
        const outpoint = outpointKey(txid, vout);
        const spenders = rows.all(spendKey(outpoint)).flatMap((r) => spender(r.tx_num, r.vin) ?? []);
        out.push({ unspent: utxo.get(outpoint) !== undefined, spenders, mempool: mempool.get(outpoint) ?? null });
      }
      return out;
    },
    spendsFrom() {
      const v = meta.get(SPENDS_FROM_KEY);
      return v === undefined || v === null ? null : Number(v);
    },
  };
}
