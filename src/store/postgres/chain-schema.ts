/**
 * A chain's schema in PostgreSQL: one per chain (addrsum_btc, addrsum_ltc), its network recorded in
 * `state` (a mismatch is refused, as the SQLite engine's CHAIN_MISMATCH). Migrations are the files
 * migrations/postgres/NNNN_name.sql, applied by the writer only, all of them in ONE transaction under an
 * advisory lock together with the version they reach (`schema_version`), so two writers starting at
 * once never both migrate and a kill leaves the previous version. Readers only check the version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { packageFile } from '../../package-root.js';
import { StoreError } from '../errors.js';
import { inTransaction, isMissingSchema, type Queryable } from './pg-pool.js';

export const PG_MIGRATIONS_DIR = packageFile('migrations', 'postgres');

/** The version this code reads and writes: the highest migration file (a test keeps them equal). */
export const PG_SCHEMA_VERSION = 10;

const FILE_RE = /^(\d{4})_([a-z0-9_-]+)\.sql$/;

/** The schema of a chain's index: addrsum_btc, addrsum_ltc. */
export function chainSchema(chain: ChainCode): string {
  const name = `addrsum_${chain.toLowerCase()}`;
  if (!/^addrsum_[a-z0-9]+$/.test(name)) throw new RangeError(`no schema name for chain ${chain}`);
  return name;
}

/** The migration files in version order, numbered 1, 2, … without gaps (else BAD_MIGRATIONS). */
export function listPgMigrations(dir: string = PG_MIGRATIONS_DIR): { version: number; file: string }[] {
  const found = readdirSync(dir)
    .filter((entry) => entry.endsWith('.sql'))
    .map((entry) => {
      const m = FILE_RE.exec(entry);
      if (!m) throw new StoreError('BAD_MIGRATIONS', `migration file name ${entry} is not NNNN_name.sql`);
      return { version: Number(m[1]), file: join(dir, entry) };
    })
    .sort((a, b) => a.version - b.version);
  found.forEach((mig, i) => {
    if (mig.version !== i + 1)
      throw new StoreError(
        'BAD_MIGRATIONS',
        `migrations in ${dir} must be numbered 1, 2, … without gaps; found ${mig.version} at ${i + 1}`,
      );
  });
  return found;
}

/** The schema's version; 0 when the writer has not created it yet. */
export async function readPgSchemaVersion(client: Queryable, schema: string): Promise<number> {
  try {
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
    return rows[0]?.version ?? 0;
  } catch (err) {
    if (isMissingSchema(err)) return 0;
    throw err;
  }
}

const tooNew = (schema: string, found: number, known: number): StoreError =>
  new StoreError(
    'SCHEMA_TOO_NEW',
    `PostgreSQL schema ${schema} has version ${found}, newer than this program's ${known}: upgrade addrsum (or run the release that wrote it)`,
  );

/**
 * The writer's start: creates and migrates the schema in one transaction under an advisory lock, then
 * records the chain and network on a new schema or refuses another's (CHAIN_MISMATCH). Refuses a newer
 * schema with SCHEMA_TOO_NEW.
 */
export async function migratePgChain(
  client: Queryable,
  schema: string,
  id: { chain: ChainCode; network: NetworkName },
  dir: string = PG_MIGRATIONS_DIR,
): Promise<{ from: number; to: number }> {
  const migrations = listPgMigrations(dir);
  const latest = migrations.length;
  return inTransaction(client, async () => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.migrate`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_version (one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL)`,
    );
    const from = await readPgSchemaVersion(client, schema);
    if (from > latest) throw tooNew(schema, from, latest);
    if (from < latest) {
      await client.query(`SET LOCAL search_path TO ${schema}`);
      for (const mig of migrations.slice(from)) await client.query(readFileSync(mig.file, 'utf8'));
      await client.query('RESET search_path');
      await client.query(
        `INSERT INTO ${schema}.schema_version (version) VALUES ($1) ON CONFLICT (one) DO UPDATE SET version = excluded.version`,
        [latest],
      );
    }
    const { rows } = await client.query<{ chain: string; network: string }>(`SELECT chain, network FROM ${schema}.state`);
    const held = rows[0];
    if (!held) await client.query(`INSERT INTO ${schema}.state (chain, network) VALUES ($1, $2)`, [id.chain, id.network]);
    else if (held.chain !== id.chain || held.network !== id.network) throw chainMismatch(schema, held, id);
    return { from, to: latest };
  });
}

export function chainMismatch(
  schema: string,
  held: { chain: string; network: string },
  want: { chain: string; network: string },
): StoreError {
  return new StoreError(
    'CHAIN_MISMATCH',
    `PostgreSQL schema ${schema} holds ${held.chain} ${held.network}, not ${want.chain} ${want.network}: give each network its own database`,
  );
}

/** Readers: refuse a schema they do not understand (NOT_INITIALIZED, SCHEMA_TOO_NEW, SCHEMA_TOO_OLD). */
export async function checkPgSchemaVersion(client: Queryable, schema: string): Promise<void> {
  const version = await readPgSchemaVersion(client, schema);
  if (version === 0) throw new StoreError('NOT_INITIALIZED', `PostgreSQL schema ${schema} has not been created by the indexer yet`);
  if (version > PG_SCHEMA_VERSION) throw tooNew(schema, version, PG_SCHEMA_VERSION);
  if (version < PG_SCHEMA_VERSION)
    throw new StoreError(
      'SCHEMA_TOO_OLD',
      `PostgreSQL schema ${schema} has version ${version}, older than this program's ${PG_SCHEMA_VERSION}: start the indexer once to migrate it`,
    );
}
