/**
 * Bulk load of an empty index from a UTXO snapshot (indexer/bootstrap.ts feeds it).
 *
 * Two ways to fill `utxos`, both writing every b-tree page once, full, left to right:
 * - append (real files): Core and Litecoin Core write dumptxoutset by walking the chainstate, so coins
 *   come in ascending txid order and go straight into `utxos` with multi-row INSERTs — no sort at all.
 *   Only the txid part of the key is checked: outputs of one txid land next to each other whatever
 *   their order (vout 256's key sorts before vout 255's), which costs an append nothing.
 *   The append commits every `chunkCoins` coins, at a txid boundary. One transaction for the whole file
 *   would grow the WAL to the size of the index and copy it all into the database at the end: twice the
 *   writes, and the copy pushes the index out of the kernel's page cache just before blocks are applied
 *   on top. Chunks keep the WAL small (the checkpoint thread folds each one in while the next is read).
 * - sort (any other file): at the first txid that goes backwards, what was appended is deleted and the
 *   file is read again as a virtual table, `INSERT … SELECT … ORDER BY outpoint` sorting it with
 *   SQLite's external merge sort (vdbesort.c) in bounded memory: runs of at most the page-cache size
 *   (SORT_CACHE_KIB while sorting) are sorted in memory and spilled to temp files, then merged. This
 *   path is one transaction.
 * The aggregates go into `scripts` after the coins: appended from the source's per-script sums when it
 * has them (the snapshot decoder sums the coins as it reads them, indexer/script-sums.ts, so nothing is
 * sorted here), committed in chunks as the coins are; else one more sorted pass, `GROUP BY script_key`
 * over `utxos`. The final transaction writes the totals and the tip. temp_store is switched to FILE
 * for the load (the writer's default MEMORY would hold sort runs in RAM); the temp files live in
 * SQLite's temp directory (SQLITE_TMPDIR, else TMPDIR, /var/tmp, /usr/tmp, /tmp).
 *
 * Until that final commit the index has no tip, so the API answers CHAIN_SYNCING and never serves a
 * half-loaded table. What a kill leaves: the committed chunks (of coins, then of script sums) and meta
 * `bootstrap_base` (the snapshot's base hash). Loading the same snapshot again resumes after the last
 * committed txid and builds `scripts` anew; another snapshot discards them first; block sync refuses to
 * start on them (BOOTSTRAP_PENDING). A load that fails with an error (a bad file, a duplicate coin)
 * discards what it had committed, leaving the empty index.
 */
import { SatsSum } from '../../chain/amount.js';
import { raiseGeneration, type Db } from './db.js';
import { StoreError } from '../errors.js';
import { formatOutpoint, TXID_BYTES } from '../outpoint.js';
import type { BaseBlock, BootstrapProgress, BulkLoadOptions, LoadPhase, Totals } from '../index-model.js';

/** Meta key of the snapshot's base height: blocks rows exist from there up, undo only above it. */
export const BASE_HEIGHT_KEY = 'base_height';

/**
 * Meta key saying snapshot_coinbase is complete up to this height (the base): every coinbase coin of the
 * snapshot is there, so a height with no row has no unspent coinbase output.
 */
export const SNAPSHOT_COINBASE_KEY = 'snapshot_coinbase_height';

/** Meta key of an unfinished load: the base hash of the snapshot its committed chunks come from. */
const PENDING_BASE_KEY = 'bootstrap_base';

/**
 * Meta key of a load's progress, JSON {phase, coins, total}: written with each committed chunk (and so
 * seen by readers, whose snapshot has no tip yet: the status page shows it), deleted with the load's
 * last commit or its discard. `coins` counts the file's coins read so far, those kept from an
 * interrupted load included; `total` is null when the caller did not say.
 */
export const BOOTSTRAP_PROGRESS_KEY = 'bootstrap_progress';

/**
 * Coins per commit of the append path: about 6 MiB of pages, so the WAL stays a few chunks long, and a
 * kill loses at most a fraction of a second of reading.
 */
export const CHUNK_COINS = 100_000;

let tableSeq = 0;

/**
 * Page cache while SQLite sorts (the aggregate pass, and the sorting path's insert), KiB. The sorter
 * sorts runs as large as the page cache in memory, as a linked list: at the writer's page cache the run
 * sort is cache misses, and the extra merge level that small runs need costs less (figures in
 * BENCHMARKS.md).
 */
const SORT_CACHE_KIB = 8192;

/** Runs `fn` (one sorting statement) with the sorter's page cache, then restores the writer's. */
function sorting<T>(db: Db, fn: () => T): T {
  const before = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = -${SORT_CACHE_KIB}`);
  try {
    return fn();
  } finally {
    db.pragma(`cache_size = ${before}`);
  }
}

/** Rows per INSERT statement: one call binds many rows. */
const ROWS_PER_INSERT = 128;
const UTXO_COLUMNS = ['outpoint', 'script_key', 'value', 'height'];
const SCRIPT_COLUMNS = ['script_key', 'balance', 'utxo_count'];

/**
 * Inserts rows of `columns` into `table` through multi-row INSERTs: add() buffers a row, flush() writes
 * the rest, commit() writes the rest and commits a chunk of the load (leaving a new transaction open).
 */
function rowWriter(db: Db, table: string, columns: string[]): { add(row: unknown[]): void; flush(): void; commit(): void } {
  const width = columns.length;
  const tuple = `(${Array<string>(width).fill('?').join(', ')})`;
  const many = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array<string>(ROWS_PER_INSERT).fill(tuple).join(', ')}`);
  const one = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuple}`);
  const args = new Array<unknown>(ROWS_PER_INSERT * width);
  let n = 0;
  const flush = (): void => {
    for (let i = 0; i < n; i += width) one.run(args.slice(i, i + width));
    n = 0;
  };
  return {
    add(row: unknown[]): void {
      for (let i = 0; i < width; i++) args[n++] = row[i];
      if (n === args.length) {
        many.run(args);
        n = 0;
      }
    },
    flush,
    commit(): void {
      flush();
      db.exec('COMMIT');
      db.exec('BEGIN IMMEDIATE');
    },
  };
}

/**
 * Inserts rows in file order while their txids ascend, skipping those up to `after` (already committed)
 * and committing every `chunk` rows at a txid boundary (`onCommit` first, with the rows read so far);
 * throws OUT_OF_ORDER at the first txid that goes back. Runs inside an open transaction and leaves one
 * open; returns the rows read.
 */
function append(db: Db, rows: Iterable<unknown[]>, after: Buffer | null, chunk: number, onCommit: (coins: number) => void): number {
  const utxos = rowWriter(db, 'utxos', UTXO_COLUMNS);
  let inChunk = 0;
  let read = 0;
  let prev: Buffer | null = null;
  for (const row of rows) {
    const key = row[0] as Buffer;
    if (prev !== null) {
      const order = key.compare(prev, 0, TXID_BYTES, 0, TXID_BYTES);
      if (order < 0) throw new StoreError('OUT_OF_ORDER', `outpoint ${formatOutpoint(key)} comes after ${formatOutpoint(prev)}`);
      if (order > 0 && inChunk >= chunk) {
        onCommit(read);
        utxos.commit();
        inChunk = 0;
      }
    }
    read++;
    prev = key;
    if (after !== null && key.compare(after, 0, TXID_BYTES, 0, TXID_BYTES) <= 0) continue;
    inChunk++;
    utxos.add(row);
  }
  utxos.flush();
  return read;
}

/** The txid after which an interrupted load of `base` resumes, or null for a fresh load; discards another snapshot's chunks. */
function startingPoint(db: Db, base: BaseBlock, opts: BulkLoadOptions): Buffer | null {
  const blocks = db.prepare('SELECT COUNT(*) FROM (SELECT 1 FROM blocks LIMIT 1)').pluck().get() as number;
  const last = db.prepare('SELECT outpoint FROM utxos ORDER BY outpoint DESC LIMIT 1').pluck().get() as Buffer | undefined;
  const pending = pendingBase(db);
  if (blocks > 0 || (last !== undefined && pending === null))
    throw new StoreError('NOT_EMPTY', 'the index already holds blocks or coins: a snapshot can only be loaded into an empty index');
  if (pending === null || last === undefined) return null;
  if (pending.equals(base.hash)) {
    const after = last.subarray(0, TXID_BYTES);
    opts.onResume?.(after);
    return after;
  }
  opts.onDiscard?.(pending);
  discard(db);
  return null;
}

/** The base hash of the snapshot whose unfinished load left committed chunks in `utxos`; null when there is none. */
export function pendingBase(db: Db): Buffer | null {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(PENDING_BASE_KEY) as Buffer | undefined) ?? null;
}

/** Deletes the committed chunks of an unfinished load: back to the empty index. */
function discard(db: Db): void {
  db.transaction(() => {
    db.prepare('DELETE FROM utxos').run();
    db.prepare('DELETE FROM scripts').run();
    db.prepare('DELETE FROM snapshot_coinbase').run();
    db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(PENDING_BASE_KEY, BOOTSTRAP_PROGRESS_KEY);
  }).immediate();
}

/** Loads `rows` ([outpoint, script_key, value, height]) into an empty index and sets the tip to `base`. */
export function bulkLoad(db: Db, rows: () => Iterable<unknown[]>, base: BaseBlock, opts: BulkLoadOptions = {}): Totals {
  const after = startingPoint(db, base, opts);
  // One virtual table per load: better-sqlite3 keeps a registered module for the connection's life.
  const table = `snapshot_rows_${++tableSeq}`;
  db.table(table, {
    columns: ['outpoint', 'script_key', 'value', 'height'],
    rows: function* () {
      yield* rows();
    },
  });
  const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  let progress: BootstrapProgress = { phase: 'reading coins in txid order', coins: 0, total: opts.totalCoins ?? null };
  const record = (next: Partial<BootstrapProgress>): void => {
    progress = { ...progress, ...next };
    meta.run(BOOTSTRAP_PROGRESS_KEY, JSON.stringify(progress));
  };
  // Recorded in the open transaction: readers see a phase with the next chunk that commits in it.
  const phase = (p: LoadPhase): void => {
    record({ phase: p });
    opts.onPhase?.(p);
  };
  const chunk = opts.chunkCoins ?? CHUNK_COINS;
  db.pragma('temp_store = FILE');
  db.pragma(`threads = ${opts.sortThreads ?? 1}`);
  try {
    try {
      db.exec('BEGIN IMMEDIATE');
      meta.run(PENDING_BASE_KEY, base.hash);
      phase('reading coins in txid order');
      record({ coins: append(db, rows(), after, chunk, (coins) => record({ coins })) });
      const totals = finish(db, base, meta, phase, opts, chunk);
      db.exec('COMMIT');
      return totals;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (!(err instanceof StoreError && err.code === 'OUT_OF_ORDER')) throw err;
    }
    phase('reading and sorting coins');
    return db
      .transaction((): Totals => {
        db.prepare('DELETE FROM utxos').run();
        const insert = db.prepare(
          `INSERT INTO utxos (${UTXO_COLUMNS.join(', ')}) SELECT outpoint, script_key, value, height FROM ${table} ORDER BY outpoint`,
        );
        sorting(db, () => insert.run());
        return finish(db, base, meta, phase, opts, null);
      })
      .immediate();
  } catch (err) {
    try {
      discard(db);
    } catch {
      // Left as they are, the chunks are resumed or discarded by the next load; the load's own error matters.
    }
    throw err;
  } finally {
    db.pragma('temp_store = MEMORY');
    db.pragma('threads = 0');
  }
}

/**
 * The aggregates (from opts.sums when it gives them, committed every `chunk` rows when that is not
 * null), the snapshot's coinbase txids, then the totals and the tip, in the transaction left open and
 * committed by the caller. Rows of an interrupted finish are deleted first: a resumed load builds them
 * again.
 */
function finish(
  db: Db,
  base: BaseBlock,
  meta: { run(key: string, value: unknown): unknown },
  phase: (p: LoadPhase) => void,
  opts: BulkLoadOptions,
  chunk: number | null,
): Totals {
  const coinbases = opts.coinbases?.() ?? null;
  const scriptSums = opts.sums?.() ?? null;
  phase('building aggregates');
  db.prepare('DELETE FROM scripts').run();
  let totals: Totals;
  if (scriptSums) {
    const scripts = rowWriter(db, 'scripts', SCRIPT_COLUMNS);
    // The sums come as numbers (a snapshot's balances are below the supply, exact as doubles): SatsSum
    // adds them without a BigInt per script, exactly.
    const amount = new SatsSum();
    totals = { scripts: 0, utxos: 0, amount: 0n };
    for (const row of scriptSums) {
      scripts.add(row);
      amount.add(row[1] as number | bigint);
      totals.utxos += row[2] as number;
      if (++totals.scripts % (chunk ?? Infinity) === 0) scripts.commit();
    }
    scripts.flush();
    totals.amount = amount.total;
    phase('committing');
  } else {
    const aggregate = db.prepare(
      'INSERT INTO scripts (script_key, balance, utxo_count) SELECT script_key, SUM(value), COUNT(*) FROM utxos GROUP BY script_key ORDER BY script_key',
    );
    sorting(db, () => aggregate.run());
    phase('committing');
    // The aggregates stay in SQL; the one row of totals is read with safeIntegers (the amount exact as a bigint).
    const sums = db
      .prepare('SELECT COUNT(*) AS scripts, COALESCE(SUM(utxo_count), 0) AS utxos, COALESCE(SUM(balance), 0) AS amount FROM scripts')
      .safeIntegers(true)
      .get() as { scripts: bigint; utxos: bigint; amount: bigint };
    totals = { scripts: Number(sums.scripts), utxos: Number(sums.utxos), amount: sums.amount };
  }
  db.prepare('DELETE FROM snapshot_coinbase').run();
  if (coinbases) {
    const insert = db.prepare('INSERT INTO snapshot_coinbase (height, txid) VALUES (?, ?)');
    for (const [height, txid] of coinbases) insert.run(height, txid);
    meta.run(SNAPSHOT_COINBASE_KEY, base.height);
  }
  db.prepare('INSERT INTO blocks (height, hash, prev_hash) VALUES (?, ?, ?)').run(base.height, base.hash, base.prevHash);
  db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(PENDING_BASE_KEY, BOOTSTRAP_PROGRESS_KEY);
  meta.run(BASE_HEIGHT_KEY, base.height);
  meta.run('tip_height', base.height);
  meta.run('tip_hash', base.hash);
  meta.run('utxo_count', totals.utxos);
  meta.run('utxo_amount', totals.amount);
  meta.run('script_count', totals.scripts);
  raiseGeneration(db);
  return totals;
}
