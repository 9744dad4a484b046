/**
 * Reading a page of one script's history, or of several merged (a wallet's), newest first (layout:
 * ../history-chunk.ts). The head holds the newest entries; sealed chunks are keyed by 1 + their newest
 * transaction number, so the entries below a cursor are in the one chunk whose key is the first above it
 * (it may straddle the cursor) and in every chunk at or below it, walked downwards. A page reads at most
 * ⌈limit / HEAD_ENTRIES⌉ + 2 rows per script at any depth, and then one txid row and one block row per item.
 *
 * Several scripts: each script's newest limit + 1 entries below the cursor hold every entry of the merged
 * page's limit + 1 newest transactions (a transaction's rank within one script is never above its rank in
 * the merge), so the merge of those lists, each transaction once with a part per script, is exact.
 *
 * With the mempool, the script's unconfirmed transactions (mempool_history, mempool-store.ts) come first,
 * newest (highest seq) first, then the confirmed ones: one key range of one table, then the above.
 */
import type Database from 'better-sqlite3';
import { decodeChunk, decodeHead, historyKey, type HistoryEntry } from '../history-chunk.js';
import type {
  HistoryItem,
  HistoryPageRequest,
  HistoryPart,
  HistoryPosition,
  UnconfirmedItem,
  WalletHistoryItem,
  WalletHistoryRequest,
} from '../index-model.js';
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
    const { items, next } = this.readMerged({ keys: [key], before: beforeTx, limit });
    return { items: items.map(({ parts: _, ...item }) => item), next: next === null ? null : { phase: 'confirmed', txNum: next } };
  }

  /** Inside the caller's read transaction: the scripts' histories merged by transaction number, descending. */
  readMerged(req: WalletHistoryRequest): { items: WalletHistoryItem[]; next: number | null } {
    const want = req.limit + 1;
    const seen = new Set<string>();
    const lists: { script: number; entries: HistoryEntry[]; at: number }[] = [];
    req.keys.forEach((scriptKey, script) => {
      // Two scripts whose history keys collide share one history (history-chunk.ts): read it once.
      const key = historyKey(scriptKey);
      const hex = key.toString('hex');
      if (seen.has(hex)) return;
      seen.add(hex);
      const entries = this.newest(key, req.before, want);
      if (entries.length > 0) lists.push({ script, entries, at: 0 });
    });
    // The k-way merge: the largest head among the lists, taken from every list that holds it.
    const merged: { txNum: number; parts: HistoryPart[] }[] = [];
    while (merged.length < want) {
      let top = -1;
      for (const l of lists) if (l.at < l.entries.length) top = Math.max(top, l.entries[l.at]!.txNum);
      if (top < 0) break;
      const parts: HistoryPart[] = [];
      for (const l of lists) {
        const e = l.entries[l.at];
        if (e?.txNum !== top) continue;
        parts.push({ script: l.script, received: e.received, sent: e.sent });
        l.at++;
      }
      merged.push({ txNum: top, parts });
    }
    const more = merged.length > req.limit;
    const items = merged.slice(0, req.limit).map((m) => this.item(m.txNum, m.parts));
    return { items, next: more ? items[items.length - 1]!.txNum : null };
  }

  /** The newest `want` entries of history key `key` numbered below `before` (null: from the newest), newest first. */
  private newest(key: Buffer, before: number | null, want: number): HistoryEntry[] {
    const below = before ?? Number.MAX_SAFE_INTEGER;
    const found: HistoryEntry[] = [];
    const take = (entries: readonly HistoryEntry[]): boolean => {
      for (let i = entries.length - 1; i >= 0 && found.length < want; i--) if (entries[i]!.txNum < below) found.push(entries[i]!);
      return found.length >= want;
    };
    const head = this.head.get(key);
    if (head && !take(decodeHead(head).entries)) {
      const straddler = before === null ? undefined : this.straddler.get(key, below);
      if (!straddler || !take(decodeChunk(straddler))) {
        for (const chunk of this.below.iterate(key, below)) if (take(decodeChunk(chunk))) break;
      }
    }
    return found;
  }

  private item(txNum: number, parts: HistoryPart[]): WalletHistoryItem {
    const row = this.txids.get(Math.floor(txNum / TXIDS_PER_ROW));
    const at = (txNum % TXIDS_PER_ROW) * TXID_BYTES;
    const block = this.block.get(txNum);
    if (!row || row.length < at + TXID_BYTES || !block)
      throw new StoreError('INCONSISTENT', `history names transaction ${txNum}, which the index does not hold`);
    let [received, sent] = [0n, 0n];
    for (const p of parts) [received, sent] = [received + p.received, sent + p.sent];
    return {
      txNum,
      txid: Buffer.from(row.subarray(at, at + TXID_BYTES)),
      height: block.height,
      position: txNum - block.first_tx,
      received,
      sent,
      parts,
    };
  }
}
