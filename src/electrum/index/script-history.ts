/**
 * A script's history as Electrum wants it, read in one snapshot (IndexReader.scriptTxs, lean: no object
 * per confirmed transaction) with electrum.maxHistory as its limit, so a longer history is refused
 * (HISTORY_TOO_LARGE) rather than answered in part. What get_history answers and the status hashes are
 * built together in one pass (status.ts), the confirmed part apart from the mempool part, so a long
 * history kept by history-cache.ts is brought up to date from a read of what follows its newest
 * confirmed transaction, and a fresh mempool part.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { UnconfirmedItem } from '../../store/index-model.js';
import type { ScriptTxList } from '../../store/script-txs.js';
import {
  historyText,
  mempoolOrder,
  moreConfirmed,
  NO_CONFIRMED,
  type ConfirmedText,
  type HistoryText,
  type MempoolEntry,
} from '../status.js';
import { RpcError } from '../wire.js';
import { notIndexed, type ElectrumIndex } from './access.js';

export interface ScriptHistory extends HistoryText {
  readonly confirmed: ConfirmedText;
  /** The mempool entries in the protocol's order (get_mempool), also the tail of `json`'s list. */
  readonly mempool: readonly MempoolEntry[];
}

/**
 * A mempool item's fee and height as Electrum lists them. A fee the index does not know (null: an MWEB
 * part) is answered as 0, since Electrum refuses a mempool entry without a non-negative integer fee.
 */
export function mempoolFacts(item: UnconfirmedItem): { fee: number; height: 0 | -1 } {
  return { fee: item.fee === null ? 0 : Number(item.fee), height: item.spendsUnconfirmed ? -1 : 0 };
}

/** The history with a confirmed part already built and the mempool part as read: the protocol's order. */
export function withMempool(confirmed: ConfirmedText, unconfirmed: readonly UnconfirmedItem[]): ScriptHistory {
  const mempool: MempoolEntry[] = unconfirmed.map((item) => ({ txHash: toDisplayHex(item.txid), ...mempoolFacts(item) }));
  mempool.sort(mempoolOrder);
  return { ...historyText(confirmed, mempool), confirmed, mempool };
}

/**
 * From a read: confirmed in blockchain order, then the mempool. `kept`: the confirmed part of an earlier
 * read, which this one (read after its newest) continues.
 */
export function electrumHistory(list: ScriptTxList, kept: ConfirmedText = NO_CONFIRMED): ScriptHistory {
  return withMempool(moreConfirmed(kept, list.txids, list.heights, list.newest), list.unconfirmed);
}

export function historyTooLarge(max: number): RpcError {
  return new RpcError('HISTORY_TOO_LARGE', `history too large: this server answers histories of at most ${max} transactions`);
}

/** A read in one snapshot and the change-feed position it is true at. */
export interface ListRead {
  readonly list: ScriptTxList;
  readonly feedSeq: number;
}

/** The script's history in one snapshot (its confirmed part after `after` when given); HISTORY_TOO_LARGE past `max`. */
export async function readScriptTxs(index: ElectrumIndex, key: Buffer, max: number, after?: number): Promise<ListRead> {
  const read = await index.scriptTxs(key, max, after);
  if (read === null) throw notIndexed();
  if (read.txs === null) {
    const why = read.building ? `being built (height ${read.building.height} of ${read.building.tipHeight})` : 'not kept';
    throw new RpcError('SERVER_BUSY', `address history is ${why} on this index; retry later`);
  }
  if (read.txs.tooLarge) throw historyTooLarge(max);
  return { list: read.txs, feedSeq: read.feedSeq };
}
