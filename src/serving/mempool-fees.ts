/**
 * The node's mempool as `getrawmempool true` describes it: each transaction's fee, size and arrival.
 * Every door's mempool figures (Electrum's fee histogram, Esplora's /mempool) are computed from this one
 * reading. Pure.
 */

export interface MempoolFee {
  /** Display hex. */
  readonly txid: string;
  readonly feeSats: number;
  /** Core's virtual size (weight / 4 rounded up, raised for sigops). */
  readonly vsize: number;
  /** Weight units; null from a node that does not give them (before Core 0.19). */
  readonly weight: number | null;
  /** When the node took it in, in Unix seconds; null when not given. */
  readonly time: number | null;
  /** Its unconfirmed ancestors and itself; a child taken in the same second as its parent counts more. */
  readonly ancestors: number | null;
}

/** The entries of getrawmempool true: the fee from `fees.base` (coins, Core ≥ 0.19) or `fee` before. */
export function mempoolFees(verbose: unknown): MempoolFee[] {
  if (verbose === null || typeof verbose !== 'object') return [];
  const out: MempoolFee[] = [];
  for (const [txid, entry] of Object.entries(verbose as Record<string, unknown>)) {
    const e = entry as Record<string, unknown> & { fees?: { base?: unknown } };
    const fee = typeof e.fees?.base === 'number' ? e.fees.base : e.fee;
    if (typeof fee !== 'number' || typeof e.vsize !== 'number') continue;
    out.push({
      txid,
      // A double of coins holds at most 21e14 satoshis, exactly enough for the nearest integer.
      feeSats: Math.round(fee * 1e8),
      vsize: e.vsize,
      weight: typeof e.weight === 'number' ? e.weight : null,
      time: typeof e.time === 'number' ? e.time : null,
      ancestors: typeof e.ancestorcount === 'number' ? e.ancestorcount : null,
    });
  }
  return out;
}
