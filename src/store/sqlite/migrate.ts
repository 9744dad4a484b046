/**
 * Schema migrations: `migrations/NNNN_name.sql`, applied in number order by the indexer only (readers
 * merely check the version). Each file runs in its own transaction together with the update of
 * meta.schema_version, so a kill mid-migration leaves the previous version intact and the next start
 * applies the file again.
 *
 * SCHEMA_VERSION is the version this code reads and writes; a test keeps it equal to the highest file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageFile } from '../../package-root.js';
import type { Db } from './db.js';
import { StoreError } from '../errors.js';

export const SCHEMA_VERSION = 13;

export const MIGRATIONS_DIR = packageFile('migrations');

export interface Migration {
  version: number;
  name: string;
  file: string;
}

const FILE_RE = /^(\d{4})_([a-z0-9_-]+)\.sql$/;

/** The migration files in version order; numbering must start at 1 and have no gaps or duplicates. */
export function listMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const found: Migration[] = [];
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith('.sql')) continue;
    const m = FILE_RE.exec(entry);
    if (!m) throw new StoreError('BAD_MIGRATIONS', `migration file name ${entry} is not NNNN_name.sql`);
    found.push({ version: Number(m[1]), name: m[2]!, file: join(dir, entry) });
  }
  found.sort((a, b) => a.version - b.version);
  found.forEach((mig, i) => {
    if (mig.version !== i + 1) {
      throw new StoreError(
        'BAD_MIGRATIONS',
        `migrations in ${dir} must be numbered 1, 2, … without gaps; found ${mig.version} at position ${i + 1}`,
      );
    }
  });
  return found;
}

/** meta.schema_version, or 0 for a file the indexer has not initialised. */
export function readSchemaVersion(db: Db): number {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: number } | undefined;
  return row?.value ?? 0;
}

/** Applies every migration above the file's version. Returns the versions before and after. */
export function migrate(db: Db, dir: string = MIGRATIONS_DIR): { from: number; to: number } {
  const migrations = listMigrations(dir);
  const latest = migrations.length;
  const from = readSchemaVersion(db);
  if (from > latest) {
    throw new StoreError('SCHEMA_TOO_NEW', `database schema version ${from} is newer than this program's (${latest}); upgrade addrsum`);
  }
  for (const mig of migrations.slice(from)) {
    const sql = readFileSync(mig.file, 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
        mig.version,
      );
    })();
  }
  return { from, to: latest };
}

/** Readers: refuse a schema they do not understand, with a message that says what to do. */
export function checkSchemaVersion(db: Db, path: string): void {
  const version = readSchemaVersion(db);
  if (version === 0) {
    throw new StoreError('NOT_INITIALIZED', `database ${path} has not been initialised by the indexer yet`);
  }
  if (version > SCHEMA_VERSION) {
    throw new StoreError(
      'SCHEMA_TOO_NEW',
      `database ${path} has schema version ${version}, newer than this program's ${SCHEMA_VERSION}; upgrade addrsum`,
    );
  }
  if (version < SCHEMA_VERSION) {
    throw new StoreError(
      'SCHEMA_TOO_OLD',
      `database ${path} has schema version ${version}, older than ${SCHEMA_VERSION}; start the indexer once to migrate it`,
    );
  }
}
