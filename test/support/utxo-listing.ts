/** Reading the UTXO listing's shards straight from SQLite, for tests that compare a build with a fresh one. */
import type { SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.js';
import { ALL_SHARDS, shardIndexName, shardIndexSql, shardTerms } from '../../src/store/sqlite/utxo-list-shards.js';

type Readable = Pick<SqliteDatabase, 'prepare'>;

/** Every shard's entries [script_key, height, outpoint], shard by shard, each read through its own index. */
export function* listedEntries(db: Readable): Generator<[Buffer, number, Buffer]> {
  for (const k of ALL_SHARDS) {
    yield* db
      .prepare(
        `SELECT script_key, height, outpoint FROM utxos INDEXED BY ${shardIndexName(k)} WHERE ${shardTerms(k)} ORDER BY script_key, height, outpoint`,
      )
      .raw()
      .iterate() as IterableIterator<[Buffer, number, Buffer]>;
  }
}

/** The same entries read from the table alone, in the same order. */
export function* tableEntries(db: Readable): Generator<[Buffer, number, Buffer]> {
  yield* db
    .prepare('SELECT script_key, height, outpoint FROM utxos NOT INDEXED ORDER BY script_key, height, outpoint')
    .raw()
    .iterate() as IterableIterator<[Buffer, number, Buffer]>;
}

/** Drops and creates every shard anew: a fresh build of the same UTXO set. */
export function rebuildShards(db: Pick<SqliteDatabase, 'exec'>): void {
  for (const k of ALL_SHARDS) db.exec(`DROP INDEX IF EXISTS ${shardIndexName(k)}; ${shardIndexSql(k)}`);
}
