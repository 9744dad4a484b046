/**
 * The change feed (migrations/0003_changes.sql): one row per committed change of a chain's index, naming
 * the scripts whose confirmed or mempool aggregate it may have changed. API processes tail it to push
 * new summaries to subscribers (src/api/live/), each on its own, without talking to the indexer.
 *
 * Written inside the transaction of the change itself (ChainStore's block and rollback transactions,
 * MempoolStore's add/remove), so a reader never sees a change without its row or a row without its
 * change. Bounded: each write prunes rows older than the newest FEED_KEEP in the same transaction, and a
 * row lists at most FEED_MAX_SCRIPTS scripts (beyond that it says "every script": NULL). So the feed
 * holds at most FEED_KEEP × FEED_MAX_SCRIPTS × 16 bytes (16 MB), whatever the chain does. A reader that
 * fell behind the kept window, or a row that lists no scripts, treats every script as touched.
 */
import type Database from 'better-sqlite3';
import type { Db } from './db.js';
import { splitScriptKeys } from '../script-key.js';
import type { ChangeKind, FeedBounds, FeedEntry } from '../index-model.js';

/** Rows kept: at one mempool update per 250 ms, a minute of history; far more at block pace. */
export const FEED_KEEP = 1000;
/** Scripts listed per row; a larger change (a catch-up batch, a big reorg) is recorded as "every script". */
export const FEED_MAX_SCRIPTS = 1000;

const KIND_CODES: Record<ChangeKind, number> = { block: 1, disconnect: 2, mempool: 3 };
const KINDS: Record<number, ChangeKind> = { 1: 'block', 2: 'disconnect', 3: 'mempool' };

/** The writer's side: collects touched scripts during a transaction, then records them in one row. */
export class ChangeFeed {
  private readonly touched = new Map<string, Buffer>();
  private everything = false;
  private readonly insert: Database.Statement<[number, number | null, Buffer | null]>;
  private readonly prune: Database.Statement<[number]>;

  constructor(db: Db) {
    this.insert = db.prepare('INSERT INTO changes (kind, tip_height, scripts) VALUES (?, ?, ?)');
    this.prune = db.prepare('DELETE FROM changes WHERE seq <= ?');
  }

  /** Notes a script (its 16-byte key) whose aggregate the current transaction changes. */
  touch(key: Buffer): void {
    if (this.everything) return;
    if (this.touched.size >= FEED_MAX_SCRIPTS) {
      this.touchEverything();
      return;
    }
    this.touched.set(key.toString('latin1'), key);
  }

  /** Too many to list (or unknown): the row will say that every script may have changed. */
  touchEverything(): void {
    this.everything = true;
    this.touched.clear();
  }

  get pending(): boolean {
    return this.everything || this.touched.size > 0;
  }

  /**
   * Inside the caller's write transaction: writes one row with what was touched since the last record
   * (plus `keys`) and prunes the rows that left the window. A mempool update that touched nothing writes nothing.
   */
  record(kind: ChangeKind, tipHeight: number | null, keys: Iterable<Buffer> = []): void {
    for (const key of keys) this.touch(key);
    if (kind === 'mempool' && !this.pending) return;
    const scripts = this.everything ? null : Buffer.concat([...this.touched.values()]);
    this.discard();
    const seq = Number(this.insert.run(KIND_CODES[kind], tipHeight, scripts).lastInsertRowid);
    if (seq > FEED_KEEP) this.prune.run(seq - FEED_KEEP);
  }

  /** Forgets what was collected: the transaction it belonged to rolled back. */
  discard(): void {
    this.touched.clear();
    this.everything = false;
  }
}

interface Row {
  seq: number;
  kind: number;
  tip_height: number | null;
  scripts: Buffer | null;
}

/** The reader's side (the API opens the index read-only): the feed's bounds and the rows after a seq. */
export class FeedReader {
  private readonly boundsStmt: Database.Statement<[], { first: number | null; last: number | null }>;
  private readonly sinceStmt: Database.Statement<[number, number], Row>;

  constructor(db: Db) {
    this.boundsStmt = db.prepare('SELECT MIN(seq) AS first, MAX(seq) AS last FROM changes');
    this.sinceStmt = db.prepare('SELECT seq, kind, tip_height, scripts FROM changes WHERE seq > ? ORDER BY seq LIMIT ?');
  }

  bounds(): FeedBounds | null {
    const row = this.boundsStmt.get()!;
    return row.first === null || row.last === null ? null : { first: row.first, last: row.last };
  }

  /** Rows with seq > `after`, oldest first, at most `limit`. */
  since(after: number, limit: number): FeedEntry[] {
    return this.sinceStmt.all(after, limit).map((r) => ({
      seq: r.seq,
      kind: KINDS[r.kind] ?? 'block',
      tipHeight: r.tip_height,
      scripts: r.scripts === null ? null : splitScriptKeys(r.scripts),
    }));
  }
}
