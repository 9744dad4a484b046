/** Typed store errors: callers branch on `code`, never on message text. */

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
  /** Aggregates or outpoints contradict each other (negative balance, overwritten unspent coin, …). */
  | 'INCONSISTENT'
  /** The file's schema is newer than this code knows. */
  | 'SCHEMA_TOO_NEW'
  /** The file's schema is older than this code expects (the indexer migrates it at start). */
  | 'SCHEMA_TOO_OLD'
  /** Reader: the database file does not exist. */
  | 'NO_DATABASE'
  /** Reader: the file exists but the indexer has not initialised it yet. */
  | 'NOT_INITIALIZED'
  /** A migrations directory that cannot be applied (gap, duplicate number, bad name). */
  | 'BAD_MIGRATIONS'
  /** A snapshot bulk load into an index that already holds blocks or coins. */
  | 'NOT_EMPTY'
  /** Rolling back the snapshot base block of a bootstrapped index: nothing below it is known. */
  | 'BELOW_BASE';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
