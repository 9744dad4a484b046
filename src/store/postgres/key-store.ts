/**
 * The API keys in PostgreSQL (ADDRSUM_KEYS_URL), in a schema of their own, stored as SHA-256 digests only:
 *
 * | table                | key          | columns                                                          |
 * |----------------------|--------------|------------------------------------------------------------------|
 * | addrsum_keys.api_keys | id (text)   | digest bytea UNIQUE (32 bytes), tier, label, created_at, revoked_at |
 * | addrsum_keys.state    | one row     | schema_version, revision (moved by every create and revoke)     |
 *
 * The same invariants as keys.sqlite (../sqlite/key-store.ts): a digest is never removed or reused, and
 * dates are ISO-8601 UTC text. The `keys` CLI writes (creating the schema on first use); APIs only read,
 * holding the keys in memory and reloading them when `revision` moves (key-mirror.ts), which is why every
 * write moves it in the same transaction.
 */
import { generateKey, generateKeyId, keyDigest } from '../keys/key-format.js';
import { storedKey, type StoredKeyRow } from '../keys/stored-key.js';
import type { Tier } from '../keys/tier.js';
import { StoreError } from '../errors.js';
import type { KeyRecord, KeyStore, RevokeResult, StoredKey } from '../ports.js';
import { isMissingSchema, openPool, type Pool, type PoolClient } from './pg-pool.js';

export const KEYS_SCHEMA = 'addrsum_keys';
export const KEYS_SCHEMA_VERSION = 1;

const CREATE = `
CREATE SCHEMA IF NOT EXISTS ${KEYS_SCHEMA};
CREATE TABLE IF NOT EXISTS ${KEYS_SCHEMA}.api_keys (
  id         text PRIMARY KEY,
  digest     bytea NOT NULL UNIQUE CHECK (octet_length(digest) = 32),
  tier       text NOT NULL CHECK (tier IN ('default', 'private')),
  label      text NOT NULL DEFAULT '',
  created_at text NOT NULL,
  revoked_at text
);
CREATE TABLE IF NOT EXISTS ${KEYS_SCHEMA}.state (
  one            boolean PRIMARY KEY DEFAULT true CHECK (one),
  schema_version integer NOT NULL,
  revision       bigint NOT NULL
);
INSERT INTO ${KEYS_SCHEMA}.state (schema_version, revision) VALUES (${KEYS_SCHEMA_VERSION}, 0) ON CONFLICT DO NOTHING;
`;

const toRecord = (row: StoredKeyRow): StoredKey => storedKey(row, `${KEYS_SCHEMA}.api_keys`);

/** A schema written by another version of addrsum: refused with what to do, never read as ours. */
export function schemaVersionProblem(found: number): string | null {
  if (found === KEYS_SCHEMA_VERSION) return null;
  return `${KEYS_SCHEMA} has schema version ${found}, this addrsum reads version ${KEYS_SCHEMA_VERSION}: run the addrsum release that wrote it, or upgrade this one`;
}

export class PgKeyStore implements KeyStore {
  private ready: Promise<void> | null = null;

  private constructor(private readonly pool: Pool) {}

  /** For the keys CLI: the schema is created on the first write, never by a read. */
  static open(url: string): PgKeyStore {
    return new PgKeyStore(openPool(url, { max: 1, name: 'addrsum-keys' }));
  }

  async create(tier: Tier, label: string, now: Date = new Date()): Promise<{ key: string; record: KeyRecord }> {
    await this.schema();
    const key = generateKey();
    const record: KeyRecord = { id: generateKeyId(), tier, label, createdAt: now.toISOString(), revokedAt: null };
    await this.write(async (client) => {
      await client.query(`INSERT INTO ${KEYS_SCHEMA}.api_keys (id, digest, tier, label, created_at) VALUES ($1, $2, $3, $4, $5)`, [
        record.id,
        keyDigest(key),
        tier,
        label,
        record.createdAt,
      ]);
    });
    return { key, record };
  }

  async list(): Promise<KeyRecord[]> {
    const rows = await this.read<StoredKeyRow>(`SELECT * FROM ${KEYS_SCHEMA}.api_keys ORDER BY created_at, id`, []);
    return rows.map((row) => {
      const { digest: _digest, ...record } = toRecord(row);
      return record;
    });
  }

  async revoke(id: string, now: Date = new Date()): Promise<RevokeResult> {
    if ((await this.read<StoredKeyRow>(`SELECT * FROM ${KEYS_SCHEMA}.api_keys WHERE id = $1`, [id])).length === 0)
      return { outcome: 'unknown' };
    const at = now.toISOString();
    return this.write(async (client): Promise<RevokeResult> => {
      // The row lock orders two revokes of one key: the second sees the first's date.
      const { rows } = await client.query<StoredKeyRow>(`SELECT * FROM ${KEYS_SCHEMA}.api_keys WHERE id = $1 FOR UPDATE`, [id]);
      const row = rows[0];
      if (!row) return { outcome: 'unknown' };
      if (row.revoked_at !== null) return { outcome: 'already', at: row.revoked_at };
      await client.query(`UPDATE ${KEYS_SCHEMA}.api_keys SET revoked_at = $1 WHERE id = $2`, [at, id]);
      return { outcome: 'revoked', at };
    });
  }

  async findByDigest(digest: Buffer): Promise<StoredKey | null> {
    const rows = await this.read<StoredKeyRow>(`SELECT * FROM ${KEYS_SCHEMA}.api_keys WHERE digest = $1`, [digest]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** A read of a schema nobody created yet finds nothing. */
  private async read<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      await this.checkVersion();
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      if (isMissingSchema(err)) return [];
      throw err;
    }
  }

  private async checkVersion(): Promise<void> {
    const { rows } = await this.pool.query<{ schema_version: number }>(`SELECT schema_version FROM ${KEYS_SCHEMA}.state`);
    const found = rows[0]?.schema_version ?? KEYS_SCHEMA_VERSION;
    const problem = schemaVersionProblem(found);
    if (problem) throw new StoreError(found > KEYS_SCHEMA_VERSION ? 'SCHEMA_TOO_NEW' : 'SCHEMA_TOO_OLD', problem);
  }

  /** Creates the schema once per process; an advisory lock keeps two first writers from racing on it. */
  private schema(): Promise<void> {
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('${KEYS_SCHEMA}'))`);
        await client.query(CREATE);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      await this.checkVersion();
    })();
    return this.ready;
  }

  /** One transaction that also moves the revision, so every API reloads. */
  private async write<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.schema();
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await body(client);
      await client.query(`UPDATE ${KEYS_SCHEMA}.state SET revision = revision + 1`);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
