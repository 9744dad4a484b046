/**
 * The UTXO listing's paging, engine-free: where a page's phases start, how each script's rows (read by
 * the engine from its listing index, at most limit + 1 per script) merge into one page, and the
 * position the next page starts after. Every engine's pager (../store/sqlite/utxo-page.ts,
 * ./postgres/utxo-page.ts) reads its rows and leaves the rest to these, so the order and the cursors
 * are one and the same whatever the engine.
 *
 * Order: confirmed rows by height, then the outpoint key's bytes (outpoint.ts), then the script's
 * index in the request (a key given twice lists its coins twice); then, with the mempool, the
 * unconfirmed rows by outpoint key, then script index. Total and stable: what keyset paging needs.
 */
import { TXID_BYTES } from './outpoint.js';
import type { UtxoPosition, UtxoRow } from './index-model.js';

/** Where the confirmed phase resumes (height −1 and an empty outpoint: from its start); null: it is over. */
export function confirmedAfter(after: UtxoPosition | null): { height: number; outpoint: Buffer } | null {
  if (after === null) return { height: -1, outpoint: Buffer.alloc(0) };
  return after.phase === 'confirmed' ? { height: after.height, outpoint: after.outpoint } : null;
}

/** Where the mempool phase resumes: after this outpoint key (empty: from its start). */
export function mempoolAfter(after: UtxoPosition | null): Buffer {
  return after?.phase === 'mempool' ? after.outpoint : Buffer.alloc(0);
}

/**
 * Whether an output is its block's coinbase output, from the height's coinbase txid: null when that is
 * unknown; an empty txid (a height known to hold no coinbase coin) is no coinbase.
 */
export function coinbaseFlag(coinbaseTxid: Buffer | null, outpoint: Buffer): boolean | null {
  return coinbaseTxid === null ? null : coinbaseTxid.equals(outpoint.subarray(0, TXID_BYTES));
}

/** The scripts' confirmed rows merged in listing order, at most `want` of them. */
export function mergeConfirmed(rows: UtxoRow[], want: number): UtxoRow[] {
  rows.sort((a, b) => a.height! - b.height! || Buffer.compare(a.outpoint, b.outpoint) || a.script - b.script);
  rows.length = Math.min(rows.length, want);
  return rows;
}

/** The scripts' unconfirmed rows merged in listing order, at most `room` of them. */
export function mergeUnconfirmed(rows: UtxoRow[], room: number): UtxoRow[] {
  rows.sort((a, b) => Buffer.compare(a.outpoint, b.outpoint) || a.script - b.script);
  rows.length = Math.min(rows.length, Math.max(room, 0));
  return rows;
}

/**
 * The page out of up to limit + 1 merged rows: the first `limit`, and the position after the last of
 * them when a further row shows that more follow (null: the last page).
 */
export function closePage(rows: UtxoRow[], limit: number): { rows: UtxoRow[]; next: UtxoPosition | null } {
  if (rows.length <= limit) return { rows, next: null };
  rows.length = limit;
  const last = rows[rows.length - 1]!;
  const next: UtxoPosition =
    last.height === null
      ? { phase: 'mempool', outpoint: last.outpoint }
      : { phase: 'confirmed', height: last.height, outpoint: last.outpoint };
  return { rows, next };
}
