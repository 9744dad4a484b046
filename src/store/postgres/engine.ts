/**
 * The PostgreSQL engine's entry points, as ../sqlite/engine.ts is SQLite's: what the CLIs and the API's
 * wiring open. The API keys (ADDRSUM_KEYS_URL), and the chain indexes' core (issue 34: blocks, UTXOs,
 * aggregates, undo, the change feed, the mempool view, the UTXO listing, address history and the
 * snapshot bootstrap).
 */
import type { ChainCode, NetworkName } from '../../chain/params.js';
import type { IndexReader, IndexVerifier, IndexWriter, KeyStore } from '../ports.js';
import { PgIndexReader } from './chain-reader.js';
import { PgIndexWriter, type PgWriterOptions } from './chain-writer.js';
import { PgKeyMirror, type KeyMirrorEvents } from './key-mirror.js';
import { PgKeyStore } from './key-store.js';
import { openPgVerifier } from './verify.js';
import { readFailure } from './pg-pool.js';

/** The keys CLI's store: creates the schema on the first key. */
export function openPostgresKeyStore(url: string): KeyStore {
  return PgKeyStore.open(url);
}

/** The API's key check: keys in memory, reloaded when they change anywhere (key-mirror.ts). */
export function openPostgresKeyMirror(url: string, events?: KeyMirrorEvents): PgKeyMirror {
  return PgKeyMirror.open(url, events);
}

/** Opens (creating and migrating its schema) a chain's index for writing: the indexer, one per index. */
export function openPostgresWriter(url: string, opts: PgWriterOptions): Promise<IndexWriter> {
  return PgIndexWriter.open(url, opts);
}

/** Opens a chain's index for reading (the API), on the primary or a standby. */
export function openPostgresReader(url: string, id: { chain: ChainCode; network: NetworkName }): Promise<IndexReader> {
  return PgIndexReader.open(url, id);
}

/** Opens a chain's index for the offline checks (`addrsum-verify`). */
export function openPostgresVerifier(url: string, chain: ChainCode): Promise<IndexVerifier> {
  return openPgVerifier(url, chain);
}

/** Why a read failed when the database is at fault (unreachable, overloaded, slow, a standby's conflict); null: a bug. */
export function postgresReadFailure(err: unknown): string | null {
  return readFailure(err);
}
