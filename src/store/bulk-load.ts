/**
 * Bulk load of an empty index from a UTXO snapshot (indexer/bootstrap.ts feeds it), as ONE
 * transaction: a kill at any instant leaves the empty index it started from (no tip, so the API answers
 * CHAIN_SYNCING), and a restart simply loads again.
 *
 * Two ways to fill `utxos`, both writing every b-tree page once, full, left to right:
 * - append (real files): Core and Litecoin Core write dumptxoutset by walking the chainstate, so coins
 *   come in ascending txid order and go straight into `utxos` with multi-row INSERTs — no sort at all.
 *   Only the txid part of the key is checked: outputs of one txid land next to each other whatever
 *   their order (vout 256's key sorts before vout 255's), which costs an append nothing.
 * - sort (any other file): at the first txid that goes backwards, the appended rows are rolled back to
 *   a savepoint and the file is read again as a virtual table, `INSERT … SELECT … ORDER BY outpoint`
 *   sorting it with SQLite's external merge sort (vdbesort.c) in bounded memory: runs of at most the
 *   page-cache size are sorted in memory and spilled to temp files, then merged.
 * The aggregates are one more sorted pass: `GROUP BY script_key` over `utxos`. temp_store is switched
 * to FILE for the load (the writer's default MEMORY would hold sort runs in RAM); the temp files live in
 * SQLite's temp directory (SQLITE_TMPDIR, else /var/tmp, /usr/tmp, /tmp).
 */
import type { Db } from './db.js';
import { StoreError } from './errors.js';
import { formatOutpoint, TXID_BYTES } from './outpoint.js';
import type { Totals } from './script-deltas.js';

export interface BaseBlock {
  height: number;
  hash: Buffer;
  prevHash: Buffer;
}

export type LoadPhase = 'reading coins in txid order' | 'reading and sorting coins' | 'building aggregates' | 'committing';

export interface BulkLoadOptions {
  /** Called as each phase starts. */
  onPhase?: (phase: LoadPhase) => void;
  /** SQLite sorter helper threads (PRAGMA threads); 0 sorts on the loading thread only. */
  sortThreads?: number;
}

/** Meta key of the snapshot's base height: blocks rows exist from there up, undo only above it. */
export const BASE_HEIGHT_KEY = 'base_height';

let tableSeq = 0;

/** Rows per INSERT statement of the append path: one call binds many rows. */
const ROWS_PER_INSERT = 128;
const COLUMNS = '(outpoint, script_key, value, height)';

/** Inserts rows in file order while their txids ascend; throws OUT_OF_ORDER at the first that does not. */
function append(db: Db, rows: Iterable<unknown[]>): void {
  const many = db.prepare(`INSERT INTO utxos ${COLUMNS} VALUES ${Array<string>(ROWS_PER_INSERT).fill('(?, ?, ?, ?)').join(', ')}`);
  const one = db.prepare(`INSERT INTO utxos ${COLUMNS} VALUES (?, ?, ?, ?)`);
  const args = new Array<unknown>(ROWS_PER_INSERT * 4);
  let n = 0;
  let prev: Buffer | null = null;
  for (const row of rows) {
    const key = row[0] as Buffer;
    if (prev !== null && key.compare(prev, 0, TXID_BYTES, 0, TXID_BYTES) < 0)
      throw new StoreError('OUT_OF_ORDER', `outpoint ${formatOutpoint(key)} comes after ${formatOutpoint(prev)}`);
    prev = key;
    args[n++] = key;
    args[n++] = row[1];
    args[n++] = row[2];
    args[n++] = row[3];
    if (n === args.length) {
      many.run(args);
      n = 0;
    }
  }
  for (let i = 0; i < n; i += 4) one.run(args[i], args[i + 1], args[i + 2], args[i + 3]);
}

/** Loads `rows` ([outpoint, script_key, value, height]) into an empty index and sets the tip to `base`. */
export function bulkLoad(db: Db, rows: () => Iterable<unknown[]>, base: BaseBlock, opts: BulkLoadOptions = {}): Totals {
  const nonEmpty = db
    .prepare('SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM utxos LIMIT 1)) + (SELECT COUNT(*) FROM (SELECT 1 FROM blocks LIMIT 1))')
    .pluck()
    .get() as number;
  if (nonEmpty > 0)
    throw new StoreError('NOT_EMPTY', 'the index already holds blocks or coins: a snapshot can only be loaded into an empty index');
  // One virtual table per load: better-sqlite3 keeps a registered module for the connection's life.
  const table = `snapshot_rows_${++tableSeq}`;
  db.table(table, {
    columns: ['outpoint', 'script_key', 'value', 'height'],
    rows: function* () {
      yield* rows();
    },
  });
  const phase = opts.onPhase ?? (() => undefined);
  db.pragma('temp_store = FILE');
  db.pragma(`threads = ${opts.sortThreads ?? 1}`);
  try {
    const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    return db
      .transaction((): Totals => {
        phase('reading coins in txid order');
        try {
          // A nested transaction is a savepoint: an out-of-order file leaves nothing of this attempt.
          db.transaction(() => append(db, rows()))();
        } catch (err) {
          if (!(err instanceof StoreError && err.code === 'OUT_OF_ORDER')) throw err;
          phase('reading and sorting coins');
          db.prepare(`INSERT INTO utxos ${COLUMNS} SELECT outpoint, script_key, value, height FROM ${table} ORDER BY outpoint`).run();
        }
        phase('building aggregates');
        db.prepare(
          'INSERT INTO scripts (script_key, balance, utxo_count) SELECT script_key, SUM(value), COUNT(*) FROM utxos GROUP BY script_key ORDER BY script_key',
        ).run();
        phase('committing');
        const sums = db
          .prepare('SELECT COUNT(*) AS scripts, COALESCE(SUM(utxo_count), 0) AS utxos, COALESCE(SUM(balance), 0) AS amount FROM scripts')
          .get() as Totals;
        db.prepare('INSERT INTO blocks (height, hash, prev_hash) VALUES (?, ?, ?)').run(base.height, base.hash, base.prevHash);
        meta.run(BASE_HEIGHT_KEY, base.height);
        meta.run('tip_height', base.height);
        meta.run('tip_hash', base.hash);
        meta.run('utxo_count', sums.utxos);
        meta.run('utxo_amount', sums.amount);
        meta.run('script_count', sums.scripts);
        return sums;
      })
      .immediate();
  } finally {
    db.pragma('temp_store = MEMORY');
    db.pragma('threads = 0');
  }
}
