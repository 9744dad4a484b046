/**
 * Bulk load of an empty index from a UTXO snapshot on PostgreSQL (indexer/bootstrap.ts feeds it), with
 * the semantics of ../sqlite/bulk-load.ts; only the way the rows go in differs:
 * - the coins go through binary COPY (copy-binary.ts, pg-copy.ts) straight into `utxos`, whose primary
 *   key the first chunk drops, committed every `chunkCoins` coins together with how many of the file's
 *   coins are in (state.bootstrap_coins), the outpoint of the last one and the progress readers see;
 * - the last transaction builds the index in bulk: the key of `utxos` added back (one sort, every b-tree
 *   page written once, and a coin given twice is found there: DUPLICATE_COIN), the aggregates from the
 *   source's per-script sums (COPY, in key order) or a GROUP BY over the coins, the snapshot's coinbase
 *   txids, the totals, the base block and the tip.
 * Each coin is written once: no staging table copied into utxos at the end (at 20M coins that copy was
 * the largest part of the build, and the staging table a second copy of every coin on disk).
 * The order of the file does not matter (the index build sorts): coins out of txid order only change the
 * phase readers see to 'reading and sorting coins', and the file is read once.
 *
 * Until that last commit the index has no tip: readers answer as for an empty index (the API says
 * CHAIN_SYNCING) and see the progress (bootstrap()); no reader reads utxos without a tip. What a kill
 * leaves: the committed chunks (utxos without its key) and state.bootstrap_base. Loading the same
 * snapshot again skips the coins already in (the file's first bootstrap_coins, checked against the
 * outpoint recorded for the last of them) and goes on; another snapshot starts over. Block sync refuses
 * to start on them (BOOTSTRAP_PENDING). A load that fails with an error (a bad file, a duplicate coin)
 * discards what it had committed, leaving the empty index with its key.
 */
import { SatsSum } from '../../chain/amount.js';
import { StoreError } from '../errors.js';
import type { BaseBlock, BootstrapProgress, BulkLoadOptions, LoadPhase, Totals } from '../index-model.js';
import { TXID_BYTES } from '../outpoint.js';
import { binaryCopy, type CopyColumn } from './copy-binary.js';
import { copyIn } from './pg-copy.js';
import { inTransaction, longStatement, NO_READ_TIMEOUT_MS, sqlState, type PoolClient } from './pg-pool.js';

/**
 * Coins per committed chunk: at the ~600k coins/s binary COPY takes, a commit every fraction of a
 * second, so a kill loses little and the COPY's fixed cost (a transaction, one round trip) is noise.
 */
export const CHUNK_COINS = 100_000;

const COIN_COLUMNS: readonly CopyColumn[] = ['bytea', 'bytea', 'int8', 'int4'];
const SUM_COLUMNS: readonly CopyColumn[] = ['bytea', 'int8', 'int8'];
const COINBASE_COLUMNS: readonly CopyColumn[] = ['int4', 'bytea'];

/** An unfinished load: the snapshot its chunks come from, how many of the file's coins they hold, the last of them. */
export interface PendingLoad {
  readonly base: Buffer;
  readonly coins: number;
  readonly last: Buffer | null;
}

export async function readPendingLoad(client: PoolClient, schema: string): Promise<PendingLoad | null> {
  const { rows } = await client.query<{ bootstrap_base: Buffer | null; bootstrap_coins: string | null; bootstrap_last: Buffer | null }>(
    `SELECT bootstrap_base, bootstrap_coins::text, bootstrap_last FROM ${schema}.state`,
  );
  const row = rows[0];
  return row?.bootstrap_base ? { base: row.bootstrap_base, coins: Number(row.bootstrap_coins ?? 0), last: row.bootstrap_last } : null;
}

/** The snapshot base height of a bootstrapped index; null for one synced from genesis. */
export async function readBaseHeight(client: PoolClient, schema: string): Promise<number | null> {
  const { rows } = await client.query<{ base_height: number | null }>(`SELECT base_height FROM ${schema}.state`);
  return rows[0]?.base_height ?? null;
}

/** Loads `rows` ([outpoint, script_key, value, height]) into an empty index and makes `base` the tip. */
export async function loadPgSnapshot(
  client: PoolClient,
  schema: string,
  rows: () => Iterable<unknown[]>,
  base: BaseBlock,
  opts: BulkLoadOptions = {},
): Promise<Totals> {
  try {
    const pending = await startingPoint(client, schema, base, opts);
    const loader = new Loader(client, schema, base, opts);
    if (!(await loader.read(rows, pending))) {
      // The file is not the one the kept coins came from (other coins where they end): start over.
      await discard(client, schema);
      await loader.read(rows, null);
    }
    return await loader.finish();
  } catch (err) {
    try {
      await discard(client, schema);
    } catch {
      // Left as they are, the chunks are resumed or discarded by the next load; the load's own error matters.
    }
    if (sqlState(err) === '23505') throw new StoreError('DUPLICATE_COIN', 'snapshot malformed: an outpoint appears twice', { cause: err });
    throw err;
  }
}

/** The load to resume (null: a fresh one); refuses an index that is not empty, discards another snapshot's chunks. */
async function startingPoint(client: PoolClient, schema: string, base: BaseBlock, opts: BulkLoadOptions): Promise<PendingLoad | null> {
  const { rows } = await client.query<{ blocks: boolean; staged: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${schema}.blocks) AS blocks, EXISTS (SELECT 1 FROM ${schema}.utxos) AS staged`,
  );
  const { blocks, staged } = rows[0]!;
  const pending = await readPendingLoad(client, schema);
  if (blocks || (staged && pending === null))
    throw new StoreError('NOT_EMPTY', 'the index already holds blocks or coins: a snapshot can only be loaded into an empty index');
  if (pending === null) return null;
  if (!pending.base.equals(base.hash)) {
    opts.onDiscard?.(pending.base);
    await discard(client, schema);
    return null;
  }
  // Nothing committed but the base (a snapshot without coins): nothing to resume.
  return staged && pending.last !== null ? pending : null;
}

/** Deletes the committed chunks of an unfinished load: back to the empty index, with its key. */
async function discard(client: PoolClient, schema: string): Promise<void> {
  await inTransaction(client, async () => {
    await client.query(`TRUNCATE ${schema}.utxos, ${schema}.snapshot_coinbase`);
    const { rows } = await client.query(`SELECT 1 FROM pg_constraint WHERE conrelid = '${schema}.utxos'::regclass AND contype = 'p'`);
    if (rows.length === 0) await client.query(`ALTER TABLE ${schema}.utxos ADD CONSTRAINT utxos_pkey PRIMARY KEY (outpoint)`);
    await client.query(
      `UPDATE ${schema}.state SET bootstrap_base = NULL, bootstrap_coins = NULL, bootstrap_last = NULL, bootstrap_progress = NULL`,
    );
  });
}

/** One load: the coins in chunks (read), then the last transaction (finish). */
class Loader {
  private progress: BootstrapProgress;
  private readonly chunk: number;

  constructor(
    private readonly client: PoolClient,
    private readonly schema: string,
    private readonly base: BaseBlock,
    private readonly opts: BulkLoadOptions,
  ) {
    this.progress = { phase: 'reading coins in txid order', coins: 0, total: opts.totalCoins ?? null };
    this.chunk = Math.max(1, opts.chunkCoins ?? CHUNK_COINS);
  }

  private phase(p: LoadPhase): void {
    this.progress = { ...this.progress, phase: p };
    this.opts.onPhase?.(p);
  }

  /**
   * Stages the file's coins after those `pending` holds, a chunk per commit; false when the file's first
   * coins are not those (nothing written then).
   */
  async read(rows: () => Iterable<unknown[]>, pending: PendingLoad | null): Promise<boolean> {
    const { client, schema } = this;
    const it = rows()[Symbol.iterator]();
    let read = 0;
    let prev: Buffer | null = null;
    let next = it.next();
    const take = (): unknown[] => {
      const row = next.value as unknown[];
      const key = row[0] as Buffer;
      if (prev !== null && this.progress.phase === 'reading coins in txid order' && key.compare(prev, 0, TXID_BYTES, 0, TXID_BYTES) < 0)
        this.phase('reading and sorting coins');
      prev = key;
      read++;
      next = it.next();
      return row;
    };
    this.phase('reading coins in txid order');
    if (pending !== null) {
      while (read < pending.coins && !next.done) take();
      if (read < pending.coins || prev === null || !(prev as Buffer).equals(pending.last!)) return false;
      this.opts.onResume?.((prev as Buffer).subarray(0, TXID_BYTES));
    }
    let first = pending === null;
    while (first || !next.done) {
      const chunk = this.chunk;
      let inChunk = 0;
      const batch = function* (): Generator<unknown[]> {
        while (inChunk < chunk && !next.done) {
          inChunk++;
          yield take();
        }
      };
      await inTransaction(client, async () => {
        if (first) {
          await client.query(`UPDATE ${schema}.state SET bootstrap_base = $1`, [this.base.hash]);
          // Rows go in without a b-tree to keep in order; finish() sorts them once into the key.
          await client.query(`ALTER TABLE ${schema}.utxos DROP CONSTRAINT IF EXISTS utxos_pkey`);
        }
        await copyIn(
          client,
          `COPY ${schema}.utxos (outpoint, script_key, value, height) FROM STDIN (FORMAT binary)`,
          binaryCopy(COIN_COLUMNS, batch()),
        );
        this.progress = { ...this.progress, coins: read };
        await client.query(`UPDATE ${schema}.state SET bootstrap_coins = $1, bootstrap_last = $2, bootstrap_progress = $3`, [
          read,
          prev,
          JSON.stringify(this.progress),
        ]);
      });
      first = false;
    }
    return true;
  }

  /** The last transaction: utxos and their index, the aggregates, the coinbases, the totals and the tip. */
  async finish(): Promise<Totals> {
    const { client, schema, base, opts } = this;
    const long = <R extends Record<string, unknown>>(text: string) => longStatement<R>(client, text);
    return inTransaction(client, async () => {
      await client.query('SET LOCAL statement_timeout = 0');
      const coinbases = opts.coinbases?.() ?? null;
      const scriptSums = opts.sums?.() ?? null;
      this.phase('building aggregates');
      await long(`ALTER TABLE ${schema}.utxos ADD CONSTRAINT utxos_pkey PRIMARY KEY (outpoint)`);
      // Readers read `scripts` (an empty one until this commits): filled in key order under its index, so
      // that no lock of this load ever keeps them waiting.
      let totals: Totals;
      if (scriptSums) {
        // The sums come as numbers (a snapshot's balances are below the supply, exact as doubles).
        const amount = new SatsSum();
        totals = { scripts: 0, utxos: 0, amount: 0n };
        const counted = function* (): Generator<unknown[]> {
          for (const row of scriptSums) {
            amount.add(row[1] as number | bigint);
            totals.utxos += row[2] as number;
            totals.scripts++;
            yield row;
          }
        };
        await copyIn(
          client,
          `COPY ${schema}.scripts (script_key, balance, utxo_count) FROM STDIN (FORMAT binary)`,
          binaryCopy(SUM_COLUMNS, counted()),
          NO_READ_TIMEOUT_MS,
        );
        totals.amount = amount.total;
      } else {
        await long(
          `INSERT INTO ${schema}.scripts (script_key, balance, utxo_count) ` +
            `SELECT script_key, SUM(value), COUNT(*) FROM ${schema}.utxos GROUP BY script_key ORDER BY script_key`,
        );
        const { rows } = await long<{ scripts: string; utxos: string; amount: string }>(
          `SELECT COUNT(*)::text AS scripts, COALESCE(SUM(utxo_count), 0)::text AS utxos, COALESCE(SUM(balance), 0)::text AS amount FROM ${schema}.scripts`,
        );
        const sums = rows[0]!;
        totals = { scripts: Number(sums.scripts), utxos: Number(sums.utxos), amount: BigInt(sums.amount) };
      }
      this.phase('committing');
      await client.query(`TRUNCATE ${schema}.snapshot_coinbase`);
      if (coinbases)
        await copyIn(
          client,
          `COPY ${schema}.snapshot_coinbase (height, txid) FROM STDIN (FORMAT binary)`,
          binaryCopy(COINBASE_COLUMNS, coinbases),
          NO_READ_TIMEOUT_MS,
        );
      await client.query(`INSERT INTO ${schema}.blocks (height, hash, prev_hash) VALUES ($1, $2, $3)`, [
        base.height,
        base.hash,
        base.prevHash,
      ]);
      await client.query(
        `UPDATE ${schema}.state SET tip_height = $1, tip_hash = $2, tip_time = NULL, base_height = $1, snapshot_coinbase_height = $3, ` +
          'utxo_count = $4, utxo_amount = $5, script_count = $6, ' +
          'bootstrap_base = NULL, bootstrap_coins = NULL, bootstrap_last = NULL, bootstrap_progress = NULL',
        [base.height, base.hash, coinbases ? base.height : null, totals.utxos, totals.amount.toString(), totals.scripts],
      );
      return totals;
    });
  }
}
