/**
 * Every statement of the write path, prepared once per connection (ChainStore.open).
 *
 * Bulk writes go through multi-row statements of CHUNK rows: one native call and one VDBE program run
 * per CHUNK rows instead of per row, for the two writes that scale with the number of outputs and
 * scripts in a batch (UTXO inserts and aggregate upserts). Aggregate upserts return a key only for rows
 * that need a second look (see scriptAdd): materialising every returned key as a Buffer is costly.
 */
import type Database from 'better-sqlite3';
import type { Db } from './db.js';

/** `value` is a number: one coin is at most MAX_MONEY (< 2^53), exact; the reader makes it a bigint. */
export interface CoinRow {
  script_key: Buffer;
  value: number;
  height: number;
}

export const CHUNK = 64;

/** A table of coins shaped as `utxos` is: the UTXO set, or the one a history build keeps (history-build.ts). */
export interface CoinStatements {
  /** Spend: delete and return the coin in one b-tree search. */
  take: Database.Statement<[Buffer], CoinRow>;
  insert: Database.Statement<[Buffer, Buffer, bigint, number]>;
  /** insert for CHUNK rows: 4 × CHUNK parameters. */
  insertChunk: Database.Statement<unknown[]>;
}

export interface WriteStatements {
  /** The UTXO set. */
  coins: CoinStatements;
  /** Creates absent aggregate rows as (0, 0); `changes` = how many scripts are new. 1 and CHUNK keys. */
  scriptEnsure: Database.Statement<[Buffer]>;
  scriptEnsureChunk: Database.Statement<unknown[]>;
  /**
   * Adds (key, balance, count) deltas to existing rows. Returns, per row, the key only when the row
   * needs attention (count ≤ 0 or balance < 0) and NULL otherwise: returning every key as a Buffer
   * costs more than the update itself. 3 and 3 × CHUNK parameters.
   */
  scriptAdd: Database.Statement<[Buffer, bigint, number], Buffer | null>;
  scriptAddChunk: Database.Statement<unknown[], Buffer | null>;
  /** Read with safeIntegers (bigints): only for the rare rows scriptAdd flags, and the balance must print exactly. */
  scriptGet: Database.Statement<[Buffer], { balance: bigint; utxo_count: bigint }>;
  scriptDelete: Database.Statement<[Buffer]>;
  /** height, hash, prev_hash, coinbase txid (null: unknown). */
  blockInsert: Database.Statement<[number, Buffer, Buffer, Buffer | null]>;
  blockDelete: Database.Statement<[number]>;
  blockHash: Database.Statement<[number], Buffer>;
  undoInsert: Database.Statement<[number, Buffer]>;
  undoGet: Database.Statement<[number], Buffer>;
  undoDelete: Database.Statement<[number]>;
  /** Undo rows at or below a height: pruned in the transaction that moves the window. */
  undoPrune: Database.Statement<[number]>;
  metaSet: Database.Statement<[string, unknown]>;
  metaDelete: Database.Statement<[string]>;
}

const values = (n: number, row: string): string => Array<string>(n).fill(row).join(', ');

export function prepareCoinStatements(db: Db, table: string): CoinStatements {
  const insert = `INSERT INTO ${table} (outpoint, script_key, value, height) VALUES `;
  return {
    take: db.prepare(`DELETE FROM ${table} WHERE outpoint = ? RETURNING script_key, value, height`),
    insert: db.prepare(insert + values(1, '(?, ?, ?, ?)')),
    insertChunk: db.prepare(insert + values(CHUNK, '(?, ?, ?, ?)')),
  };
}

const SCRIPT_ENSURE = (rows: number): string =>
  `INSERT OR IGNORE INTO scripts (script_key, balance, utxo_count) VALUES ${values(rows, '(?, 0, 0)')}`;
// The rows exist (SCRIPT_ENSURE ran first), so this always takes the DO UPDATE path.
const SCRIPT_ADD = (rows: number): string =>
  `INSERT INTO scripts (script_key, balance, utxo_count) VALUES ${values(rows, '(?, ?, ?)')} ` +
  'ON CONFLICT (script_key) DO UPDATE SET balance = balance + excluded.balance, utxo_count = utxo_count + excluded.utxo_count ' +
  'RETURNING CASE WHEN utxo_count <= 0 OR balance < 0 THEN script_key END';

export function prepareWriteStatements(db: Db): WriteStatements {
  return {
    coins: prepareCoinStatements(db, 'utxos'),
    scriptEnsure: db.prepare(SCRIPT_ENSURE(1)),
    scriptEnsureChunk: db.prepare(SCRIPT_ENSURE(CHUNK)),
    scriptAdd: db.prepare<[Buffer, bigint, number], Buffer | null>(SCRIPT_ADD(1)).pluck(),
    scriptAddChunk: db.prepare<unknown[], Buffer | null>(SCRIPT_ADD(CHUNK)).pluck(),
    scriptGet: db
      .prepare<[Buffer], { balance: bigint; utxo_count: bigint }>('SELECT balance, utxo_count FROM scripts WHERE script_key = ?')
      .safeIntegers(true),
    scriptDelete: db.prepare('DELETE FROM scripts WHERE script_key = ?'),
    blockInsert: db.prepare('INSERT INTO blocks (height, hash, prev_hash, coinbase_txid) VALUES (?, ?, ?, ?)'),
    blockDelete: db.prepare('DELETE FROM blocks WHERE height = ?'),
    blockHash: db.prepare<[number], Buffer>('SELECT hash FROM blocks WHERE height = ?').pluck(),
    undoInsert: db.prepare('INSERT INTO undo (height, data) VALUES (?, ?)'),
    undoGet: db.prepare<[number], Buffer>('SELECT data FROM undo WHERE height = ?').pluck(),
    undoDelete: db.prepare('DELETE FROM undo WHERE height = ?'),
    undoPrune: db.prepare('DELETE FROM undo WHERE height <= ?'),
    metaSet: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    metaDelete: db.prepare('DELETE FROM meta WHERE key = ?'),
  };
}
