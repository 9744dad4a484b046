/**
 * keys.sqlite: the API keys, stored as SHA-256 digests only.
 *
 * | table    | key         | columns                                                         |
 * |----------|-------------|-----------------------------------------------------------------|
 * | api_keys | id (TEXT)   | digest BLOB UNIQUE (32 bytes), tier, label, created_at, revoked_at |
 *
 * Invariants: a digest is never removed or reused (revocation sets revoked_at, so `list` keeps the
 * history); created_at/revoked_at are ISO-8601 UTC text.
 * The `keys` CLI writes (creating the file and table); the API opens the file read-only. The file uses
 * SQLite's default rollback journal, not WAL: a read-only connection then needs no -shm file. The API
 * holds the keys in memory (key-cache.ts) and reloads them when this file changes, so a revocation
 * applies from the request after the CLI commits.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database, { type SqliteDatabase, type SqliteStatement } from './sqlite-driver.js';
import { generateKey, generateKeyId, keyDigest } from '../keys/key-format.js';
import { storedKey, type StoredKeyRow } from '../keys/stored-key.js';
import type { Tier } from '../keys/tier.js';
import type { KeyRecord, RevokeResult, StoredKey } from '../ports.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id         TEXT PRIMARY KEY,
  digest     BLOB NOT NULL UNIQUE CHECK (length(digest) = 32),
  tier       TEXT NOT NULL CHECK (tier IN ('default', 'private')),
  label      TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;
PRAGMA user_version = 1;
`;

const toRecord = (row: StoredKeyRow): StoredKey => storedKey(row, 'keys.sqlite');

export class KeyStore {
  private readonly byDigest: SqliteStatement<[Buffer], StoredKeyRow>;

  private constructor(private readonly db: SqliteDatabase) {
    this.byDigest = db.prepare<[Buffer], StoredKeyRow>('SELECT * FROM api_keys WHERE digest = ?');
  }

  /**
   * For the CLI: creates the directory (0700), the file (0600: it holds the key digests, readable by the
   * service's user only; SQLite gives its journal the same mode) and the table when missing.
   */
  static open(file: string): KeyStore {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Create the file ourselves with its mode: SQLite would create it 0644 (less the umask).
    closeSync(openSync(file, 'a', 0o600));
    const db = new Database(file);
    db.pragma('journal_mode = DELETE');
    db.exec(SCHEMA);
    return new KeyStore(db);
  }

  /** For the API: never creates or writes; throws when the file does not exist yet. */
  static openReadonly(file: string): KeyStore {
    return new KeyStore(new Database(file, { readonly: true, fileMustExist: true }));
  }

  /** Creates a key; the returned secret is shown once and never stored. */
  create(tier: Tier, label: string, now: Date = new Date()): { key: string; record: KeyRecord } {
    const key = generateKey();
    const record: KeyRecord = { id: generateKeyId(), tier, label, createdAt: now.toISOString(), revokedAt: null };
    this.db
      .prepare('INSERT INTO api_keys (id, digest, tier, label, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(record.id, keyDigest(key), tier, label, record.createdAt);
    return { key, record };
  }

  list(): KeyRecord[] {
    const rows = this.db.prepare<[], StoredKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id').all();
    return rows.map((row) => {
      const { digest: _digest, ...record } = toRecord(row);
      return record;
    });
  }

  revoke(id: string, now: Date = new Date()): RevokeResult {
    return this.db.transaction((): RevokeResult => {
      const row = this.db.prepare<[string], StoredKeyRow>('SELECT * FROM api_keys WHERE id = ?').get(id);
      if (!row) return { outcome: 'unknown' };
      if (row.revoked_at !== null) return { outcome: 'already', at: row.revoked_at };
      const at = now.toISOString();
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(at, id);
      return { outcome: 'revoked', at };
    })();
  }

  findByDigest(digest: Buffer): StoredKey | null {
    const row = this.byDigest.get(digest);
    return row ? toRecord(row) : null;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
