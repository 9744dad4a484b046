/**
 * Reading a page of one script's history, or of several merged (a wallet's), newest first (layout:
 * ../history-chunk.ts). The head holds the newest entries; sealed chunks are keyed by 1 + their newest
 * transaction number, so the entries below a cursor are in the one chunk whose key is the first above it
 * (it may straddle the cursor) and in every chunk at or below it, walked downwards. A page reads at most
 * ⌈limit / HEAD_ENTRIES⌉ + 2 rows per script at any depth, and then one txid row and one block row per item.
 *
 * Several scripts: each script's newest limit + 1 entries below the cursor hold every entry of the merged
 * page's limit + 1 newest transactions, so their merge (../history-merge.ts) is exact. One script is the
 * case of one key.
 *
 * With the mempool, the scripts' unconfirmed transactions (mempool_history, mempool-store.ts) come first,
 * newest (highest seq) first, merged the same way by seq, then the confirmed ones: per script one key
 * range of one table, then the above.
 */
import type Database from 'better-sqlite3';
import { decodeChunk, decodeHead, historyKey, type HistoryEntry } from '../history-chunk.js';
import type {
  HistoryItem,
  HistoryPageRequest,
  HistoryPosition,
  UnconfirmedItem,
  WalletHistoryItem,
  WalletHistoryRequest,
  WalletUnconfirmedItem,
} from '../index-model.js';
import { distinctKeys, mergeNewest, type MergedEntry, type RankedList } from '../history-merge.js';
import { mempoolTxFacts, unconfirmedItem, type MempoolTxFacts } from '../mempool-item.js';
import { TXID_BYTES } from '../outpoint.js';
import type { Db } from './db.js';
import { StoreError } from '../errors.js';
import { TXIDS_PER_ROW } from './history-store.js';

interface MempoolRow {
  seq: number;
  txid: Buffer;
  received: number;
  sent: number;
  fee: number | null;
  unconfirmed_inputs: number;
}

type Keys = ReturnType<typeof distinctKeys>;

export class HistoryPager {
  private readonly head: Database.Statement<[Buffer], Buffer>;
  private readonly straddler: Database.Statement<[Buffer, number], Buffer>;
  private readonly below: Database.Statement<[Buffer, number], Buffer>;
  private readonly txids: Database.Statement<[number], Buffer>;
  private readonly block: Database.Statement<[number], { first_tx: number; height: number }>;
  private readonly mempool: Database.Statement<[Buffer, number, number], MempoolRow>;

  constructor(db: Db) {
    // Amounts as numbers: one transaction's payments to one script, and its fee, stay below the supply (< 2^53).
    // Each row's transaction by its key: fee and held parents come with the page's rows, no statement more.
    this.mempool = db.prepare<[Buffer, number, number], MempoolRow>(
      'SELECT h.seq, h.txid, h.received, h.sent, t.fee, t.unconfirmed_inputs FROM mempool_history AS h ' +
        'JOIN mempool_txs AS t ON t.txid = h.txid WHERE h.script_key = ? AND h.seq < ? ORDER BY h.seq DESC LIMIT ?',
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

  /** Inside the caller's read transaction: one script's page, the wallet page of its one key without parts. */
  scriptPage(req: HistoryPageRequest): { unconfirmed: UnconfirmedItem[]; items: HistoryItem[]; next: HistoryPosition | null } {
    const { unconfirmed, items, next } = this.page({ ...req, keys: [req.key] });
    return {
      unconfirmed: unconfirmed.map(({ parts: _, ...u }) => u),
      items: items.map(({ parts: _, ...i }) => i),
      next,
    };
  }

  /**
   * Inside the caller's read transaction: with `mempool`, the unconfirmed part from `after` (or the top)
   * and, when it ends on this page, the confirmed part from its top; otherwise the confirmed part alone.
   * A page full of unconfirmed transactions names its last one as `next` while anything follows it.
   */
  page(req: WalletHistoryRequest): { unconfirmed: WalletUnconfirmedItem[]; items: WalletHistoryItem[]; next: HistoryPosition | null } {
    const keys = distinctKeys(req.keys);
    const after = req.after;
    if (!req.mempool || after?.phase === 'confirmed') {
      const confirmed = this.confirmed(keys, after?.phase === 'confirmed' ? after.txNum : null, req.limit);
      return { unconfirmed: [], ...confirmed };
    }
    const merged = this.unconfirmed(keys, after === null ? Number.MAX_SAFE_INTEGER : after.seq, req.limit + 1);
    const unconfirmed = merged.slice(0, req.limit);
    const last: HistoryPosition | null =
      unconfirmed.length > 0 ? { phase: 'mempool', seq: unconfirmed[unconfirmed.length - 1]!.seq } : null;
    if (merged.length > req.limit) return { unconfirmed, items: [], next: last };
    const room = req.limit - unconfirmed.length;
    if (room === 0) return { unconfirmed, items: [], next: this.confirmed(keys, null, 1).items.length > 0 ? last : null };
    return { unconfirmed, ...this.confirmed(keys, null, room) };
  }

  /** Inside the caller's read transaction: one script's `want` newest mempool transactions, newest first. */
  scriptUnconfirmed(key: Buffer, want: number): UnconfirmedItem[] {
    return this.unconfirmed(distinctKeys([key]), Number.MAX_SAFE_INTEGER, want).map(({ parts: _, ...u }) => u);
  }

  /** The mempool part: the scripts' `want` newest transactions with seq below `belowSeq`, merged. */
  private unconfirmed(keys: Keys, belowSeq: number, want: number): WalletUnconfirmedItem[] {
    const txs = new Map<number, MempoolTxFacts>();
    const lists: RankedList[] = keys.map(({ script, key }) => ({
      script,
      entries: this.mempool.all(key, belowSeq, want).map((r) => {
        txs.set(r.seq, mempoolTxFacts(r.txid, r.fee, r.unconfirmed_inputs));
        return { rank: r.seq, received: BigInt(r.received), sent: BigInt(r.sent) };
      }),
    }));
    return mergeNewest(lists, want).map((m) => unconfirmedItem(m, txs.get(m.rank)!));
  }

  /** The confirmed part: transactions numbered below `beforeTx` (null: from the newest), at most `limit`, merged. */
  private confirmed(keys: Keys, beforeTx: number | null, limit: number): { items: WalletHistoryItem[]; next: HistoryPosition | null } {
    const want = limit + 1;
    // Two scripts whose history keys collide share one history (history-chunk.ts): it is read once.
    const read = new Set<string>();
    const lists: RankedList[] = keys.flatMap(({ script, key }) => {
      const at = historyKey(key);
      if (read.has(at.toString('latin1'))) return [];
      read.add(at.toString('latin1'));
      return [{ script, entries: this.newest(at, beforeTx, want).map((e) => ({ rank: e.txNum, received: e.received, sent: e.sent })) }];
    });
    const merged = mergeNewest(lists, want);
    const items = this.items(merged.slice(0, limit));
    return { items, next: merged.length > limit ? { phase: 'confirmed', txNum: items[items.length - 1]!.txNum } : null };
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

  /**
   * The entries' txids, heights and positions; `entries` come newest first, so each one's txid row and
   * block are read once per page: a block holds a range of numbers, and the block found for one entry
   * also holds every lower number down to its first.
   */
  private items(entries: readonly MergedEntry[]): WalletHistoryItem[] {
    let row: { grp: number; txids: Buffer | undefined } | null = null;
    let block: { first_tx: number; height: number } | undefined;
    return entries.map(({ rank: txNum, parts, received, sent }) => {
      const grp = Math.floor(txNum / TXIDS_PER_ROW);
      if (row?.grp !== grp) row = { grp, txids: this.txids.get(grp) };
      if (!block || txNum < block.first_tx) block = this.block.get(txNum);
      const at = (txNum % TXIDS_PER_ROW) * TXID_BYTES;
      if (!row.txids || row.txids.length < at + TXID_BYTES || !block)
        throw new StoreError('INCONSISTENT', `history names transaction ${txNum}, which the index does not hold`);
      return {
        txNum,
        txid: Buffer.from(row.txids.subarray(at, at + TXID_BYTES)),
        height: block.height,
        position: txNum - block.first_tx,
        received,
        sent,
        parts,
      };
    });
  }
}
