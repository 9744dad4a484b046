/**
 * What Electrum calls a script's status: SHA-256 over `"{tx_hash}:{height}:"` for every entry of the
 * script's history, as hex; null for an empty history. Electrum recomputes it from `get_history` and
 * distrusts the server when the two differ, so the order here is the order get_history answers:
 * - confirmed transactions in blockchain order (height, then position in the block);
 * - then the mempool: height 0 when every input is confirmed, −1 otherwise, ordered by (−height,
 *   tx_hash) as protocol 1.6 fixes it (1.4 leaves it open; one order for every version).
 */
import { createHash } from 'node:crypto';

export interface ElectrumHistoryEntry {
  /** Display order (byte-reversed) hex, as the protocol names transactions. */
  readonly txHash: string;
  /** Confirmed: the block height (≥ 1); mempool: 0, or −1 with an unconfirmed input. */
  readonly height: number;
}

/** The order of the mempool part (a sort comparator): height 0 before −1, then by tx_hash. */
export function mempoolOrder(a: ElectrumHistoryEntry, b: ElectrumHistoryEntry): number {
  return b.height - a.height || (a.txHash < b.txHash ? -1 : a.txHash > b.txHash ? 1 : 0);
}

/** The status of a history already in the protocol's order; null when it is empty. */
export function historyStatus(history: readonly ElectrumHistoryEntry[]): string | null {
  if (history.length === 0) return null;
  const hash = createHash('sha256');
  for (const e of history) hash.update(`${e.txHash}:${e.height}:`);
  return hash.digest('hex');
}
