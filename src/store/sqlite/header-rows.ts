/**
 * The `headers` table (migration 0009; invariants in ../header-chain.ts): one contiguous run of 80-byte
 * headers ending at the tip. The writer adds a block's header in the block's transaction, removes the
 * rolled-back tip's in the rollback's, and adds backfilled runs below the lowest; readers take a range in
 * the snapshot of their status. Height is the rowid, so the lowest row is one b-tree step away.
 */
import type Database from 'better-sqlite3';
import { headerPrevHash } from '../../chain/block-header.js';
import { checkHeaderRun, headersFromOf } from '../header-chain.js';
import { StoreError } from '../errors.js';
import type { Tip } from '../index-model.js';
import type { Db } from './db.js';

/** The lowest stored height (null: none): with the tip, what headersFrom is (../header-chain.ts). */
const LOWEST_HEADER_SQL = '(SELECT MIN(height) FROM headers)';

export class HeaderRows {
  private readonly insertStmt: Database.Statement<[number, Buffer]>;
  private readonly removeStmt: Database.Statement<[number]>;
  private readonly lowestStmt: Database.Statement<[], number | null>;
  private readonly getStmt: Database.Statement<[number], Buffer>;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare('INSERT INTO headers (height, header) VALUES (?, ?)');
    this.removeStmt = db.prepare('DELETE FROM headers WHERE height >= ?');
    this.lowestStmt = db.prepare<[], number | null>(`SELECT ${LOWEST_HEADER_SQL}`).pluck();
    this.getStmt = db.prepare<[number], Buffer>('SELECT header FROM headers WHERE height = ?').pluck();
  }

  /** Inside the block's transaction. */
  add(height: number, header: Buffer): void {
    this.insertStmt.run(height, header);
  }

  /** Inside a rollback's transaction: the headers of `height` and above leave. */
  removeFrom(height: number): void {
    this.removeStmt.run(height);
  }

  /** The index's headersFrom at `tip` (null while nothing is indexed). */
  headersFrom(tip: Tip | null): number | null {
    return tip && headersFromOf(this.lowestStmt.get() ?? null, tip.height);
  }

  /** A backfilled run, checked against the header above it, in one transaction; returns the new headersFrom. */
  addBelow(from: number, headers: readonly Buffer[], tip: Tip | null): number {
    if (!tip) throw new StoreError('EMPTY', 'no headers to add below: the index is empty');
    return this.db
      .transaction(() => {
        const headersFrom = headersFromOf(this.lowestStmt.get() ?? null, tip.height);
        const above = headersFrom > tip.height ? tip.hash : headerPrevHash(this.getStmt.get(headersFrom)!);
        checkHeaderRun(from, headers, { headersFrom, above });
        headers.forEach((header, i) => this.insertStmt.run(from + i, header));
        return headers.length === 0 ? headersFrom : from;
      })
      .immediate();
  }
}

/** A reader's reads, inside the caller's read transaction (the snapshot of its status). */
export interface HeaderReads {
  lowest(): number | null;
  range(from: number, to: number): Buffer[];
}

export function headerReads(db: Db): HeaderReads {
  const lowest = db.prepare<[], number | null>(`SELECT ${LOWEST_HEADER_SQL}`).pluck();
  const range = db.prepare<[number, number], Buffer>('SELECT header FROM headers WHERE height BETWEEN ? AND ? ORDER BY height').pluck();
  return { lowest: () => lowest.get() ?? null, range: (from, to) => range.all(from, to) };
}
