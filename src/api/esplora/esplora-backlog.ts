/**
 * Esplora's mempool figures as electrs computes them (new_index/mempool.rs, util/fees.rs). A
 * transaction's vsize there is its weight / 4 rounded down and its fee rate an f32 division; the
 * histogram walks the mempool from the highest rate down and closes a bin once it holds more than
 * 50,000 vB and the rate changes, so each entry is `[rate, vsize of what pays at least that rate]`.
 * Pure.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { DecodedOutput, DecodedTx } from '../../chain/tx-decode.js';
import type { MempoolFee } from '../../serving/mempool-fees.js';
import { F32 } from './esplora-json.js';
import { esploraFee } from './esplora-values.js';

const VSIZE_BIN_WIDTH = 50_000;
/** How many of the newest mempool transactions /mempool/recent shows. */
export const RECENT_TXS = 10;

/** electrs's vsize: weight / 4 rounded down (Core's rounds up); Core's own where the weight is not given. */
export const electrsVsize = (f: Pick<MempoolFee, 'vsize' | 'weight'>): number => (f.weight === null ? f.vsize : Math.floor(f.weight / 4));

export interface BacklogValue {
  readonly count: number;
  readonly vsize: number;
  readonly total_fee: number;
  readonly fee_histogram: readonly (readonly [F32, number])[];
}

export function backlogValue(fees: readonly MempoolFee[]): BacklogValue {
  let vsize = 0;
  let totalFee = 0;
  const rated: { rate: number; vsize: number }[] = [];
  for (const f of fees) {
    const v = electrsVsize(f);
    vsize += v;
    totalFee += f.feeSats;
    if (v > 0) rated.push({ rate: Math.fround(Math.fround(f.feeSats) / Math.fround(v)), vsize: v });
  }
  rated.sort((a, b) => b.rate - a.rate);
  const histogram: [F32, number][] = [];
  let binSize = 0;
  let lastRate = 0;
  for (const e of rated) {
    if (binSize > VSIZE_BIN_WIDTH && lastRate !== e.rate) {
      histogram.push([new F32(lastRate), binSize]);
      binSize = 0;
    }
    lastRate = e.rate;
    binSize += e.vsize;
  }
  if (binSize > 0) histogram.push([new F32(lastRate), binSize]);
  return { count: fees.length, vsize, total_fee: totalFee, fee_histogram: histogram };
}

/**
 * The newest `RECENT_TXS` by the node's arrival time, newest first; a child taken in within its parent's
 * second before the parent, and the txid deciding the rest, so an answer does not change by itself.
 */
export function newestFirst(fees: readonly MempoolFee[]): MempoolFee[] {
  return [...fees]
    .sort((a, b) => (b.time ?? 0) - (a.time ?? 0) || (b.ancestors ?? 0) - (a.ancestors ?? 0) || (a.txid < b.txid ? -1 : 1))
    .slice(0, RECENT_TXS);
}

/** /mempool/recent's entry: `value` is what the inputs spend (electrs sums the prevouts it knows). */
export function recentValue(
  tx: DecodedTx,
  prevouts: readonly (DecodedOutput | null)[],
): { txid: string; fee: number; vsize: number; value: number } {
  return {
    txid: toDisplayHex(tx.txid),
    fee: esploraFee(tx, prevouts),
    vsize: Math.floor(tx.weight / 4),
    value: Number(prevouts.reduce((sum, p) => sum + (p?.value ?? 0n), 0n)),
  };
}
