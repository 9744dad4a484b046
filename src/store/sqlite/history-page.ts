/**
 * Reading a page of one script's history, newest first (layout: ../history-chunk.ts). The head holds the
 * newest entries; sealed chunks are keyed by 1 + their newest transaction number, so the entries below a
 * cursor are in the one chunk whose key is the first above it (it may straddle the cursor) and in every
 * chunk at or below it, walked downwards. A page reads at most ⌈limit / HEAD_ENTRIES⌉ + 2 rows at any
 * depth, and then one txid row and one block row per item.
 */
import type Database from 'better-sqlite3';
import { decodeChunk, decodeHead, type HistoryEntry } from '../history-chunk.js';
import type { HistoryItem, HistoryPageRequest } from '../index-model.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';
import { StoreError } from '../errors.js';
import { TXIDS_PER_ROW } from './history-store.js';

export class HistoryPager {
  private readonly head: Database.Statement<[Buffer], Buffer>;
  private readonly straddler: Database.Statement<[Buffer, number], Buffer>;
  private readonly below: Database.Statement<[Buffer, number], Buffer>;
  private readonly txids: Database.Statement<[number], Buffer>;
  private readonly block: Database.Statement<[number], { first_tx: number; height: number }>;

  constructor(db: Db) {
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

  /** Inside the caller's read transaction. */
  read(req: HistoryPageRequest): { items: HistoryItem[]; next: number | null } {
    const before = req.before ?? Number.MAX_SAFE_INTEGER;
    const want = req.limit + 1;
    const found: HistoryEntry[] = [];
    const take = (entries: readonly HistoryEntry[]): boolean => {
      for (let i = entries.length - 1; i >= 0 && found.length < want; i--) if (entries[i]!.txNum < before) found.push(entries[i]!);
      return found.length >= want;
    };
    const head = this.head.get(req.key);
    if (head && !take(decodeHead(head).entries)) {
      const straddler = req.before === null ? undefined : this.straddler.get(req.key, before);
      if (!straddler || !take(decodeChunk(straddler))) {
        for (const chunk of this.below.iterate(req.key, before)) if (take(decodeChunk(chunk))) break;
      }
    }
    const more = found.length > req.limit;
    const items = found.slice(0, req.limit).map((e) => this.item(e));
    return { items, next: more ? items[items.length - 1]!.txNum : null };
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
