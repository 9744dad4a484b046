/**
 * Reading a page of one script's history, newest first (layout: ../history-chunk.ts). The head holds the
 * newest entries; sealed chunks are keyed by 1 + their newest transaction number, so the entries below a
 * cursor are in the one chunk whose key is the first above it (it may straddle the cursor) and in every
 * chunk at or below it, walked downwards. A page reads at most ⌈limit / HEAD_ENTRIES⌉ + 2 rows at any
 * depth, and then one txid row and one block row per item.
 *
 * With the mempool, the script's unconfirmed transactions (mempool_history, mempool-store.ts) come first,
 * newest (highest seq) first, then the confirmed ones: one key range of one table, then the above.
 */
import type Database from 'better-sqlite3';
import { decodeChunk, decodeHead, type HistoryEntry } from '../history-chunk.js';
import type { HistoryItem, HistoryPageRequest, HistoryPosition, UnconfirmedItem } from '../index-model.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';
import { StoreError } from '../errors.js';
import { TXIDS_PER_ROW } from './history-store.js';

interface MempoolRow {
  seq: number;
  txid: Buffer;
  received: number;
  sent: number;
}

export class HistoryPager {
  private readonly head: Database.Statement<[Buffer], Buffer>;
  private readonly straddler: Database.Statement<[Buffer, number], Buffer>;
  private readonly below: Database.Statement<[Buffer, number], Buffer>;
  private readonly txids: Database.Statement<[number], Buffer>;
  private readonly block: Database.Statement<[number], { first_tx: number; height: number }>;
  private readonly mempool: Database.Statement<[Buffer, number, number], MempoolRow>;

  constructor(db: Db) {
    // Amounts as numbers: one transaction's payments to one script stay below the supply (< 2^53).
    this.mempool = db.prepare<[Buffer, number, number], MempoolRow>(
      'SELECT seq, txid, received, sent FROM mempool_history WHERE script_key = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    );
    this.head = db.prepare<[Buffer], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk = 0').pluck();
    this.straddler = db
      .prepare<[Buffer, number], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk > ? ORDER BY chunk LIMIT 1')
      .pluck();
    this.below = db
      .prepare<[Buffer, number], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk > 0 AND chunk <= ? ORDER BY chunk DESC')
      .pluck();
    this.txids = db.prepare<[number], Buffer>('SELECT txids FROM history_txids WHERE grp = ?').pluck();
    this.block = db.prepare<[number], { first_tx: number; height: number }>(
      'SELECT first_tx, height FROM history_blocks WHERE first_tx <= ? ORDER BY first_tx DESC LIMIT 1',
    );
  }

  /**
   * Inside the caller's read transaction: with `mempool`, the unconfirmed part from `after` (or the top)
   * and, when it ends on this page, the confirmed part from its top; otherwise the confirmed part alone.
   * A page full of unconfirmed transactions names its last one as `next` while anything follows it.
   */
  page(req: HistoryPageRequest): { unconfirmed: UnconfirmedItem[]; items: HistoryItem[]; next: HistoryPosition | null } {
    const after = req.after;
    if (!req.mempool || after?.phase === 'confirmed') {
      const confirmed = this.read(req.key, after?.phase === 'confirmed' ? after.txNum : null, req.limit);
      return { unconfirmed: [], ...confirmed };
    }
    const rows = this.mempool.all(req.key, after === null ? Number.MAX_SAFE_INTEGER : after.seq, req.limit + 1);
    const unconfirmed = rows
      .slice(0, req.limit)
      .map((r) => ({ seq: r.seq, txid: r.txid, received: BigInt(r.received), sent: BigInt(r.sent) }));
    const last: HistoryPosition | null =
      unconfirmed.length > 0 ? { phase: 'mempool', seq: unconfirmed[unconfirmed.length - 1]!.seq } : null;
    if (rows.length > req.limit) return { unconfirmed, items: [], next: last };
    const room = req.limit - unconfirmed.length;
    if (room === 0) return { unconfirmed, items: [], next: this.read(req.key, null, 1).items.length > 0 ? last : null };
    return { unconfirmed, ...this.read(req.key, null, room) };
  }

  /** The confirmed part: transactions numbered below `beforeTx` (null: from the newest), at most `limit`. */
  private read(key: Buffer, beforeTx: number | null, limit: number): { items: HistoryItem[]; next: HistoryPosition | null } {
    const before = beforeTx ?? Number.MAX_SAFE_INTEGER;
    const want = limit + 1;
    const found: HistoryEntry[] = [];
    const take = (entries: readonly HistoryEntry[]): boolean => {
      for (let i = entries.length - 1; i >= 0 && found.length < want; i--) if (entries[i]!.txNum < before) found.push(entries[i]!);
      return found.length >= want;
    };
    const head = this.head.get(key);
    if (head && !take(decodeHead(head).entries)) {
      const straddler = beforeTx === null ? undefined : this.straddler.get(key, before);
      if (!straddler || !take(decodeChunk(straddler))) {
        for (const chunk of this.below.iterate(key, before)) if (take(decodeChunk(chunk))) break;
      }
    }
    const more = found.length > limit;
    const items = found.slice(0, limit).map((e) => this.item(e));
    return { items, next: more ? { phase: 'confirmed', txNum: items[items.length - 1]!.txNum } : null };
  }

  private item(e: HistoryEntry): HistoryItem {
    const row = this.txids.get(Math.floor(e.txNum / TXIDS_PER_ROW));
    const at = (e.txNum % TXIDS_PER_ROW) * TXID_BYTES;
    const block = this.block.get(e.txNum);
    if (!row || row.length < at + TXID_BYTES || !block)
      throw new StoreError('INCONSISTENT', `history names transaction ${e.txNum}, which the index does not hold`);
    return {
      txNum: e.txNum,
      txid: Buffer.from(row.subarray(at, at + TXID_BYTES)),
      height: block.height,
      position: e.txNum - block.first_tx,
      received: e.received,
      sent: e.sent,
    };
  }
}
