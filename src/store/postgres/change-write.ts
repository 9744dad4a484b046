/**
 * The PostgreSQL engine's side of a change set (../change-set.ts), inside the writer's one transaction:
 * resolving the coins its computation needs with ONE query, and writing what it computed with one
 * multi-row statement per table (unnest of arrays), whatever the number of rows.
 *
 * node-postgres hands bigint columns back as decimal text: amounts are read as BigInt(text), exactly,
 * and bound as text too (a JS bigint is not a parameter type it knows).
 */
import type { ChangeSet, Coin, ScriptDelta } from '../change-set.js';
import { StoreError } from '../errors.js';
import type { ChangeKind, Totals } from '../index-model.js';
import type { Queryable } from './pg-pool.js';

/** Feed rows kept, and scripts listed per row (beyond: null, "every script"), as the SQLite engine's. */
export const FEED_KEEP = 1000;
export const FEED_MAX_SCRIPTS = 1000;

export const KIND_CODES: Record<ChangeKind, number> = { block: 1, disconnect: 2, mempool: 3 };

interface CoinRow {
  outpoint: Buffer;
  script_key: Buffer;
  value: string;
  height: number;
}

const COIN_COLUMNS = 'outpoint, script_key, value::text AS value, height';

/**
 * The coins the index holds at `outpoints` (by id), in one query; an outpoint with no row is absent.
 * `table`: a coin table shaped as utxos (a history build's own, history-build.ts).
 */
export function resolveCoins(
  client: Queryable,
  schema: string,
  outpoints: ReadonlyMap<string, Buffer>,
  table = 'utxos',
): Promise<Map<string, Coin>> {
  return readCoins(client, `SELECT ${COIN_COLUMNS} FROM ${schema}.${table} WHERE outpoint = ANY($1::bytea[])`, outpoints);
}

/**
 * resolveCoins for a batch that spends every coin it finds (a connect: planBatch's `needed`): the coins
 * leave `table` in the statement that reads them, one pass over the key instead of a read now and a
 * delete later. The change set computed from them spends exactly these (write it with `spentTaken`); a
 * refusal rolls the transaction back, the coins with it.
 */
export function takeCoins(
  client: Queryable,
  schema: string,
  outpoints: ReadonlyMap<string, Buffer>,
  table = 'utxos',
): Promise<Map<string, Coin>> {
  return readCoins(client, `DELETE FROM ${schema}.${table} WHERE outpoint = ANY($1::bytea[]) RETURNING ${COIN_COLUMNS}`, outpoints);
}

/** Runs `sql` (one statement of COIN_COLUMNS rows, the outpoints as $1) and keys its coins by id. */
async function readCoins(client: Queryable, sql: string, outpoints: ReadonlyMap<string, Buffer>): Promise<Map<string, Coin>> {
  const coins = new Map<string, Coin>();
  if (outpoints.size === 0) return coins;
  const { rows } = await client.query<CoinRow>(sql, [[...outpoints.values()]]);
  for (const r of rows)
    coins.set(r.outpoint.toString('latin1'), { outpoint: r.outpoint, scriptKey: r.script_key, value: BigInt(r.value), height: r.height });
  return coins;
}

/**
 * Writes a change set: removes its spent coins (unless takeCoins already did: `spentTaken`), adds its new
 * ones, applies its aggregate deltas. Returns the totals after it. A new coin at an outpoint still unspent
 * throws INCONSISTENT with `conflict`'s message.
 */
export async function writeChangeSet(
  client: Queryable,
  schema: string,
  set: ChangeSet,
  before: Totals,
  conflict: (coin: Coin) => string,
  spentTaken = false,
): Promise<Totals> {
  await moveCoins(client, schema, 'utxos', set, conflict, spentTaken);
  const scripts = await writeDeltas(client, schema, set.deltas, before.scripts);
  return { utxos: before.utxos + set.utxos, amount: before.amount + set.amount, scripts };
}

/** Removes a change set's spent coins from `table` (shaped as utxos: see takeCoins) and adds its new ones; INCONSISTENT as writeChangeSet. */
export async function moveCoins(
  client: Queryable,
  schema: string,
  table: string,
  set: Pick<ChangeSet, 'spent' | 'created'>,
  conflict: (coin: Coin) => string,
  spentTaken = false,
): Promise<void> {
  if (!spentTaken && set.spent.length > 0)
    await client.query(`DELETE FROM ${schema}.${table} WHERE outpoint = ANY($1::bytea[])`, [set.spent.map((c) => c.outpoint)]);
  await insertCoins(client, `${schema}.${table}`, set.created, conflict);
}

async function insertCoins(client: Queryable, table: string, coins: readonly Coin[], conflict: (coin: Coin) => string): Promise<void> {
  if (coins.length === 0) return;
  const { rows } = await client.query<{ outpoint: Buffer }>(
    `INSERT INTO ${table} (outpoint, script_key, value, height) ` +
      'SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bigint[], $4::integer[]) ON CONFLICT (outpoint) DO NOTHING RETURNING outpoint',
    [coins.map((c) => c.outpoint), coins.map((c) => c.scriptKey), coins.map((c) => c.value.toString()), coins.map((c) => c.height)],
  );
  if (rows.length === coins.length) return;
  // The first coin in the given order that was not inserted: the one to name (the caller rolls back).
  const inserted = new Set(rows.map((r) => r.outpoint.toString('latin1')));
  const first = coins.find((c) => !inserted.has(c.outpoint.toString('latin1')))!;
  throw new StoreError('INCONSISTENT', conflict(first));
}

/** A script row the deltas left empty or negative; the first row instead counts the rows the upsert inserted. */
interface ScriptRow {
  script_key: Buffer | null;
  balance: string | null;
  utxo_count: string | null;
  inserted: number | null;
}

/**
 * Adds the deltas to the aggregate rows in one upsert (a missing row starts at the delta), then deletes
 * the rows left with no UTXO. Returns the script count after. A negative count or balance, or a balance
 * without UTXOs, means the index is inconsistent. Only the rows that need a look come back (the count
 * of new ones, then the emptied or negative ones), not one row per delta.
 */
async function writeDeltas(client: Queryable, schema: string, deltas: readonly ScriptDelta[], before: number): Promise<number> {
  if (deltas.length === 0) return before;
  const { rows } = await client.query<ScriptRow>(
    `WITH up AS (INSERT INTO ${schema}.scripts AS s (script_key, balance, utxo_count) ` +
      'SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bigint[]) ON CONFLICT (script_key) DO UPDATE ' +
      'SET balance = s.balance + excluded.balance, utxo_count = s.utxo_count + excluded.utxo_count ' +
      'RETURNING s.script_key, s.balance, s.utxo_count, (s.xmax = 0) AS inserted) ' +
      'SELECT NULL::bytea AS script_key, NULL::text AS balance, NULL::text AS utxo_count, (count(*) FILTER (WHERE inserted))::int AS inserted FROM up ' +
      'UNION ALL SELECT script_key, balance::text, utxo_count::text, NULL FROM up WHERE utxo_count <= 0 OR balance < 0',
    [deltas.map((d) => d.key), deltas.map((d) => d.balance.toString()), deltas.map((d) => d.count)],
  );
  let scripts = before + (rows[0]?.inserted ?? 0);
  const emptied: Buffer[] = [];
  for (const row of rows.slice(1)) {
    const balance = BigInt(row.balance!);
    const count = BigInt(row.utxo_count!);
    // Only an emptied row is fine: no UTXO and no balance.
    if (count !== 0n || balance !== 0n)
      throw new StoreError(
        'INCONSISTENT',
        `aggregate of script ${row.script_key!.toString('hex')} would become balance ${balance} with ${count} UTXOs`,
      );
    emptied.push(row.script_key!);
    scripts--;
  }
  if (emptied.length > 0) await client.query(`DELETE FROM ${schema}.scripts WHERE script_key = ANY($1::bytea[])`, [emptied]);
  return scripts;
}

/**
 * What one commit touched, collected as the SQLite engine's ChangeFeed does (../sqlite/change-feed.ts):
 * past FEED_MAX_SCRIPTS keys it becomes "every script".
 */
export class Touched {
  private readonly keys = new Map<string, Buffer>();
  private everything = false;

  touch(key: Buffer): void {
    if (this.everything) return;
    if (this.keys.size >= FEED_MAX_SCRIPTS) {
      this.touchEverything();
      return;
    }
    this.keys.set(key.toString('latin1'), key);
  }

  touchEverything(): void {
    this.everything = true;
    this.keys.clear();
  }

  get pending(): boolean {
    return this.everything || this.keys.size > 0;
  }

  /** The keys to record, with `more` touched after the others; null: every script. */
  list(more: Iterable<Buffer> = []): Buffer[] | null {
    for (const key of more) this.touch(key);
    return this.everything ? null : [...this.keys.values()];
  }
}

/**
 * One feed row naming `touched` (null, or past FEED_MAX_SCRIPTS: every script), and the pruning of the
 * rows that left the window.
 */
export async function recordChange(
  client: Queryable,
  schema: string,
  kind: ChangeKind,
  tipHeight: number | null,
  touched: readonly Buffer[] | null,
): Promise<void> {
  const scripts = touched === null || touched.length > FEED_MAX_SCRIPTS ? null : Buffer.concat(touched);
  // One writer per index: MAX + 1 is gapless and in commit order.
  const { rows } = await client.query<{ seq: string }>(
    `INSERT INTO ${schema}.changes (seq, kind, tip_height, scripts) ` +
      `SELECT COALESCE(MAX(seq), 0) + 1, $1, $2, $3 FROM ${schema}.changes RETURNING seq::text AS seq`,
    [KIND_CODES[kind], tipHeight, scripts],
  );
  const seq = Number(rows[0]!.seq);
  if (seq > FEED_KEEP) await client.query(`DELETE FROM ${schema}.changes WHERE seq <= $1`, [seq - FEED_KEEP]);
}
