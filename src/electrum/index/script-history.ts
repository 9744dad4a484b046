/**
 * A script's history as Electrum wants it, read in one snapshot: historyPage with its mempool part and
 * electrum.maxHistory as its limit, so a longer history is known from the one read (a next page) and refused
 * (HISTORY_TOO_LARGE) rather than answered in part. The page lists newest first; electrumHistory puts it
 * in the protocol's order (status.ts), which is what get_history answers and the status hashes.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { HistoryPage, UnconfirmedItem } from '../../store/index-model.js';
import { historyStatus, mempoolOrder, type ElectrumHistoryEntry } from '../status.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';

/** A mempool entry of get_history and get_mempool: Electrum requires its fee. */
export interface MempoolEntry extends ElectrumHistoryEntry {
  readonly fee: number;
}

export interface ScriptHistory {
  /** Confirmed entries (heights ascending, then position in block), then mempool ones: the protocol's order. */
  readonly entries: readonly (ElectrumHistoryEntry | MempoolEntry)[];
  /** The mempool entries, also the tail of `entries`. */
  readonly mempool: readonly MempoolEntry[];
}

/**
 * A mempool item's fee and height as Electrum lists them. A fee the index does not know (null: an MWEB
 * part) is answered as 0, since Electrum refuses a mempool entry without a non-negative integer fee.
 */
export function mempoolFacts(item: UnconfirmedItem): { fee: number; height: 0 | -1 } {
  return { fee: item.fee === null ? 0 : Number(item.fee), height: item.spendsUnconfirmed ? -1 : 0 };
}

/** The protocol's order from a page read newest first (items by txNum: blockchain order reversed). */
export function electrumHistory(page: NonNullable<HistoryPage['page']>): ScriptHistory {
  const entries: (ElectrumHistoryEntry | MempoolEntry)[] = [];
  for (let i = page.items.length - 1; i >= 0; i--) {
    const item = page.items[i]!;
    entries.push({ txHash: toDisplayHex(item.txid), height: item.height });
  }
  const mempool: MempoolEntry[] = page.unconfirmed.map((item) => ({ txHash: toDisplayHex(item.txid), ...mempoolFacts(item) }));
  mempool.sort(mempoolOrder);
  for (const m of mempool) entries.push(m);
  return { entries, mempool };
}

export function historyTooLarge(max: number): RpcError {
  return new RpcError('HISTORY_TOO_LARGE', `history too large: this server answers histories of at most ${max} transactions`);
}

/** The script's whole history in one snapshot; HISTORY_TOO_LARGE past `max` transactions. */
export async function readScriptHistory(index: ElectrumIndex, key: Buffer, max: number): Promise<ScriptHistory> {
  const read = await index.historyPage({ key, after: null, limit: max, mempool: true });
  if (read === null) throw notIndexed();
  if (read.page === null) {
    const why = read.building ? `being built (height ${read.building.height} of ${read.building.tipHeight})` : 'not kept';
    throw new RpcError('SERVER_BUSY', `address history is ${why} on this index; retry later`);
  }
  if (read.page.next !== null || read.page.items.length + read.page.unconfirmed.length > max) throw historyTooLarge(max);
  return electrumHistory(read.page);
}

/** The status of a script now (status.ts), what subscribe answers and notifications carry, and its history's length. */
export async function readScriptStatus(index: ElectrumIndex, key: Buffer, max: number): Promise<{ status: string | null; length: number }> {
  const { entries } = await readScriptHistory(index, key, max);
  return { status: historyStatus(entries), length: entries.length };
}
