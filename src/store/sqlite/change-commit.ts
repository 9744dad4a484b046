/**
 * The SQLite engine's side of a change set (../change-set.ts), inside the caller's one transaction:
 * resolving the coins its computation needs, and writing what it computed.
 *
 * Resolving takes the coins with DELETE … RETURNING: the read and the removal are one b-tree search, as
 * when the logic ran against the table. That is sound because the computation consumes every coin it is
 * handed (each resolved outpoint is one it then takes, so each resolved coin is in the set's `spent`),
 * or throws and the transaction rolls back; the commit therefore does not delete `spent` again.
 */
import type { ChangeSet, Coin } from '../change-set.js';
import { StoreError } from '../errors.js';
import type { Totals } from '../index-model.js';
import { writeScriptDeltas } from './script-deltas.js';
import { CHUNK, type CoinStatements, type WriteStatements } from './statements.js';

/** Takes the coins at `outpoints` (by id) out of a coin table; an outpoint with no row is absent from the answer. */
export function takeCoins(table: CoinStatements, outpoints: ReadonlyMap<string, Buffer>): Map<string, Coin> {
  const coins = new Map<string, Coin>();
  for (const [id, outpoint] of outpoints) {
    const row = table.take.get(outpoint);
    // One coin's value is at most MAX_MONEY (< 2^53): exact as the number SQLite returns.
    if (row) coins.set(id, { outpoint, scriptKey: row.script_key, value: BigInt(row.value), height: row.height });
  }
  return coins;
}

/**
 * Writes a change set whose `spent` coins takeCoins already removed: its new coins, then its aggregate
 * deltas. Returns the totals after it. A new coin at an outpoint that is already unspent throws
 * StoreError INCONSISTENT with the message `conflict` gives for it.
 */
export function commitChangeSet(stmts: WriteStatements, set: ChangeSet, before: Totals, conflict: (coin: Coin) => string): Totals {
  insertCoins(stmts.coins, set.created, conflict);
  const scripts = writeScriptDeltas(stmts, set.deltas, before.scripts);
  return { utxos: before.utxos + set.utxos, amount: before.amount + set.amount, scripts };
}

/** Inserts in the order given, CHUNK rows per statement (one native call per CHUNK rows). */
export function insertCoins(table: CoinStatements, coins: readonly Coin[], conflict: (coin: Coin) => string): void {
  const args: unknown[] = new Array<unknown>(4 * CHUNK);
  let i = 0;
  for (; i + CHUNK <= coins.length; i += CHUNK) {
    for (let j = 0; j < CHUNK; j++) {
      const c = coins[i + j]!;
      args[4 * j] = c.outpoint;
      args[4 * j + 1] = c.scriptKey;
      args[4 * j + 2] = c.value;
      args[4 * j + 3] = c.height;
    }
    try {
      table.insertChunk.run(...args);
    } catch (err) {
      if (!isConflict(err)) throw err;
      // The failed statement was backed out whole: row by row, the first that conflicts is the one to name.
      for (const c of coins.slice(i, i + CHUNK)) insertOne(table, c, conflict);
    }
  }
  for (; i < coins.length; i++) insertOne(table, coins[i]!, conflict);
}

function insertOne(table: CoinStatements, c: Coin, conflict: (coin: Coin) => string): void {
  try {
    table.insert.run(c.outpoint, c.scriptKey, c.value, c.height);
  } catch (err) {
    if (!isConflict(err)) throw err;
    throw new StoreError('INCONSISTENT', conflict(c), { cause: err });
  }
}

const isConflict = (err: unknown): boolean => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
