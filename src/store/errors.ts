/** Typed store errors: callers branch on `code`, never on message text. */
import { CodedError } from '../coded-error.js';

export type StoreErrorCode =
  /** Another process (or connection) holds this database for writing. */
  | 'LOCKED'
  /** The database was created for another chain or network. */
  | 'CHAIN_MISMATCH'
  /** A block does not extend the tip (height or prevHash). */
  | 'NOT_CONNECTED'
  /** A block spends an outpoint that is not in the UTXO set: the index is inconsistent with the chain. */
  | 'MISSING_UTXO'
  /** Rolling back a block whose undo data was pruned (reorg deeper than the undo window). */
  | 'NO_UNDO'
  /** Rolling back an empty store. */
  | 'EMPTY'
  /** A block header that is not 80 bytes, does not hash to its block's hash, or does not link to the header below or above it. */
  | 'BAD_HEADER'
  /** Aggregates or outpoints contradict each other (negative balance, overwritten unspent coin, …). */
  | 'INCONSISTENT'
  /** The file's schema is newer than this code knows. */
  | 'SCHEMA_TOO_NEW'
  /** The file's schema is older than this code expects (the indexer migrates it at start). */
  | 'SCHEMA_TOO_OLD'
  /** Reader: the database file does not exist. */
  | 'NO_DATABASE'
  /** Reader: the file exists but this process may not read it (permissions, a directory, …). */
  | 'UNREADABLE'
  /** Reader: the file is not a readable SQLite database (truncated, overwritten, damaged). */
  | 'DAMAGED'
  /** Reader: the file exists but the indexer has not initialised it yet. */
  | 'NOT_INITIALIZED'
  /** A migrations directory that cannot be applied (gap, duplicate number, bad name). */
  | 'BAD_MIGRATIONS'
  /** A snapshot bulk load into an index that already holds blocks or coins. */
  | 'NOT_EMPTY'
  /** Block sync on an index holding the committed part of an interrupted snapshot load. */
  | 'BOOTSTRAP_PENDING'
  /** Rolling back the snapshot base block of a bootstrapped index: nothing below it is known. */
  | 'BELOW_BASE'
  /** A snapshot bulk load met an outpoint twice: the snapshot is malformed (nothing of the load is kept past its last commit). */
  | 'DUPLICATE_COIN'
  /** A snapshot's rows stopped ascending: the bulk load falls back to sorting (it never escapes the load). */
  | 'OUT_OF_ORDER'
  /** Writer: the path no longer names the file this process opened (deleted, renamed over, restored). */
  | 'REPLACED'
  /** The `-wal` beside the file was written on another file (an index restored beside a stale WAL, wal-match.ts). */
  | 'WAL_MISMATCH'
  /** Reader (PostgreSQL): every connection is in use and the bounded queue of callers waiting for one is full. */
  | 'BUSY';

export class StoreError extends CodedError<StoreErrorCode> {}

/**
 * Whether `err` says the database file cannot be used as it is: any failure SQLite reported (better-sqlite3's
 * SqliteError carries `SQLITE_*` in `code`: corrupt, not a database, I/O error, a foreign schema), or a
 * DAMAGED or WAL_MISMATCH StoreError. A reader that gets one closes the file and reopens it later.
 */
export function isUnusableDatabase(err: unknown): boolean {
  if (err instanceof StoreError) return err.code === 'DAMAGED' || err.code === 'WAL_MISMATCH';
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') && !isBusy(err);
}

/** A lock wait that outlasted the busy timeout (e.g. WAL recovery after a writer crash): transient, not damage. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
