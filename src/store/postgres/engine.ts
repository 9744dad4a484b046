/**
 * The PostgreSQL engine's entry points, as ../sqlite/engine.ts is SQLite's: what the CLIs and the API's
 * wiring open. Today the API keys (ADDRSUM_KEYS_URL); the chain indexes follow.
 */
import type { KeyStore } from '../ports.js';
import { PgKeyMirror, type KeyMirrorEvents } from './key-mirror.js';
import { PgKeyStore } from './key-store.js';

/** The keys CLI's store: creates the schema on the first key. */
export function openPostgresKeyStore(url: string): KeyStore {
  return PgKeyStore.open(url);
}

/** The API's key check: keys in memory, reloaded when they change anywhere (key-mirror.ts). */
export function openPostgresKeyMirror(url: string, events?: KeyMirrorEvents): PgKeyMirror {
  return PgKeyMirror.open(url, events);
}
