/**
 * The distinct transactions of several scripts' histories together (a wallet's txCount). Per-script
 * counts cannot be added: one transaction may pay or spend several of the scripts. So every entry's
 * transaction number is read, from the heads the caller already holds and from each script's sealed
 * chunks: a cost in proportion to the scripts' whole history, however small the answer.
 */
import type Database from 'better-sqlite3';
import { decodeChunk, decodeHead, historyKey } from '../history-chunk.js';
import type { Db } from './db.js';

export class HistoryUnion {
  private readonly sealed: Database.Statement<[Buffer], Buffer>;

  constructor(db: Db) {
    this.sealed = db.prepare<[Buffer], Buffer>('SELECT data FROM history WHERE script_key = ? AND chunk > 0').pluck();
  }

  /**
   * Inside the caller's read transaction: `heads[i]` is the head row of `keys[i]` (null: no history).
   * A key given twice counts once, and so do two whose history keys collide (history-chunk.ts).
   */
  count(keys: readonly Buffer[], heads: readonly (Buffer | null | undefined)[]): number {
    const seen = new Set<string>();
    const txs = new Set<number>();
    keys.forEach((key, i) => {
      const head = heads[i];
      const hex = historyKey(key).toString('hex');
      if (!head || seen.has(hex)) return;
      seen.add(hex);
      const decoded = decodeHead(head);
      for (const e of decoded.entries) txs.add(e.txNum);
      if (decoded.sealed.txCount > 0)
        for (const chunk of this.sealed.iterate(historyKey(key))) for (const e of decodeChunk(chunk)) txs.add(e.txNum);
    });
    return txs.size;
  }
}
