/**
 * One script's whole history, lean (../script-txs.ts ScriptTxList), for Electrum: its rows oldest first
 * (sealed chunks by key, then the head; after a position, only the rows holding what follows it), tx
 * numbers decoded into one array with amounts stepped over, then each number's txid and height. The
 * reads follow the numbers upwards, so a txid row (126 numbers) and a block are each read once however
 * many of the script's transactions they hold; a row holding one of them gives up only its 32 bytes.
 */
import type Database from 'better-sqlite3';
import { headTxCount, historyKey, rowTxNums } from '../history-chunk.js';
import type { ScriptTxsRead } from '../script-txs.js';
import { TXID_BYTES } from '../outpoint.js';
import { StoreError } from '../errors.js';
import type { Db } from './db.js';
import type { HistoryPager } from './history-page.js';
import { TXIDS_PER_ROW } from './history-store.js';

interface BlockSpan {
  first_tx: number;
  height: number;
  /** The next block's first number; null for the newest block. */
  next: number | null;
}

export type ScriptTxsAnswer = NonNullable<ScriptTxsRead['txs']>;

export class ScriptTxReads {
  private readonly head: Database.Statement<[Buffer], Buffer>;
  private readonly chunks: Database.Statement<[Buffer, number], Buffer>;
  private readonly newestSealed: Database.Statement<[Buffer], number>;
  private readonly row: Database.Statement<[number], Buffer>;
  private readonly one: Database.Statement<[number, number], Buffer>;
  private readonly block: Database.Statement<[number], BlockSpan>;

  constructor(
    db: Db,
    private readonly pager: HistoryPager,
  ) {
    this.head = db.prepare<[Buffer], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk = 0').pluck();
    this.chunks = db
      .prepare<[Buffer, number], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk > ? ORDER BY chunk')
      .pluck();
    this.newestSealed = db.prepare<[Buffer], number>('SELECT MAX(chunk) FROM history WHERE script_key = ?').pluck();
    this.row = db.prepare<[number], Buffer>('SELECT txids FROM history_txids WHERE grp = ?').pluck();
    this.one = db.prepare<[number, number], Buffer>('SELECT substr(txids, ?, 32) FROM history_txids WHERE grp = ?').pluck();
    this.block = db.prepare<[number], BlockSpan>(
      'SELECT b.first_tx, b.height, (SELECT MIN(first_tx) FROM history_blocks WHERE first_tx > b.first_tx) AS next ' +
        'FROM (SELECT first_tx, height FROM history_blocks WHERE first_tx <= ? ORDER BY first_tx DESC LIMIT 1) AS b',
    );
  }

  /**
   * Inside the caller's read transaction (history kept): the script's history (its confirmed part after
   * position `after` when given), or its count past `max`.
   */
  read(key: Buffer, max: number, after: number | undefined): ScriptTxsAnswer {
    const at = historyKey(key);
    const head = this.head.get(at);
    const confirmed = head ? headTxCount(head) : 0;
    if (confirmed > max) return { tooLarge: true, count: confirmed };
    const unconfirmed = this.pager.scriptUnconfirmed(key, max + 1 - confirmed);
    const count = confirmed + unconfirmed.length;
    if (count > max) return { tooLarge: true, count };
    const nums = new Float64Array(confirmed);
    let n = 0;
    if (head) {
      // A sealed chunk is keyed by 1 + its newest number: those above after + 1 hold what follows it.
      for (const chunk of this.chunks.iterate(at, after === undefined ? 0 : after + 1)) n = rowTxNums(chunk, false, nums, n);
      n = rowTxNums(head, true, nums, n);
    }
    if (after === undefined ? n !== confirmed : n > confirmed)
      throw new StoreError('INCONSISTENT', `a history holds ${n} entries where its head counts ${confirmed}`);
    const newest = n > 0 ? nums[n - 1]! : confirmed === 0 ? -1 : this.newestSealed.get(at)! - 1;
    let from = 0;
    if (after !== undefined) while (from < n && nums[from]! <= after) from++;
    return { tooLarge: false, confirmedCount: confirmed, newest, ...this.resolve(nums.subarray(from, n)), unconfirmed };
  }

  /** Each number's txid and height; `nums` ascending. */
  private resolve(nums: Float64Array): { txids: Buffer; heights: Uint32Array } {
    const txids = Buffer.allocUnsafe(nums.length * TXID_BYTES);
    const heights = new Uint32Array(nums.length);
    let block: BlockSpan | undefined;
    // The txid row last read whole, by its number.
    let rowGrp = -1;
    let row: Buffer | undefined;
    for (let i = 0; i < nums.length; i++) {
      const num = nums[i]!;
      if (!block || num < block.first_tx || (block.next !== null && num >= block.next)) block = this.block.get(num);
      const grp = Math.floor(num / TXIDS_PER_ROW);
      const slot = (num % TXIDS_PER_ROW) * TXID_BYTES;
      if (grp !== rowGrp && i + 1 < nums.length && Math.floor(nums[i + 1]! / TXIDS_PER_ROW) === grp) {
        rowGrp = grp;
        row = this.row.get(grp);
      }
      const txid = grp === rowGrp ? row?.subarray(slot, slot + TXID_BYTES) : this.one.get(slot + 1, grp);
      if (!block || txid?.length !== TXID_BYTES)
        throw new StoreError('INCONSISTENT', `history names transaction ${num}, which the index does not hold`);
      txid.copy(txids, i * TXID_BYTES);
      heights[i] = block.height;
    }
    return { txids, heights };
  }
}
