/**
 * mempool.get_fee_histogram's answer: `[[fee_rate, vsize], …]`, fee rates (sat/vB) descending, each
 * entry the virtual size of the transactions paying from that rate up to the previous entry's. Binned
 * as ElectrumX's mempool.py (_update_histogram): rates floored to 0.1 sat/vB, accumulated from the
 * highest until a bin reaches its size (100,000 vB, each next bin 10% larger), a large lump at one rate
 * closing the bin before it, so wallets (Electrum's fee slider) read our histogram as ElectrumX's.
 */
import type { MempoolFee } from '../../serving/mempool-fees.js';

/** ElectrumX's first bin size, in virtual bytes. */
export const FIRST_BIN_VBYTES = 100_000;

export function feeHistogram(txs: Iterable<Pick<MempoolFee, 'feeSats' | 'vsize'>>, firstBin = FIRST_BIN_VBYTES): [number, number][] {
  const byRate = new Map<number, number>();
  for (const tx of txs) {
    if (!(tx.vsize > 0)) continue;
    // Floored, never rounded: a transaction paying a rate counts in the bin that rate promises.
    const rate = Math.floor((10 * tx.feeSats) / tx.vsize) / 10;
    byRate.set(rate, (byRate.get(rate) ?? 0) + tx.vsize);
  }
  const compact: [number, number][] = [];
  let binSize = firstBin;
  let cumSize = 0;
  let overshoot = 0;
  let prevRate: number | null = null;
  for (const [rate, size] of [...byRate].sort((a, b) => b[0] - a[0])) {
    // A big lump at this very rate: close what came before it first.
    if (size > 2 * binSize && prevRate !== null && cumSize > 0) {
      compact.push([prevRate, cumSize]);
      overshoot += cumSize - binSize;
      cumSize = 0;
      binSize *= 1.1;
    }
    cumSize += size;
    if (cumSize + overshoot > binSize) {
      compact.push([rate, cumSize]);
      overshoot += cumSize - binSize;
      cumSize = 0;
      binSize *= 1.1;
    }
    prevRate = rate;
  }
  return compact;
}
