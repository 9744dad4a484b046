/**
 * One writer per database file.
 *
 * The lock is an open write transaction (`BEGIN IMMEDIATE`, never committed) on a tiny side file
 * `<db>.lock`, itself an empty SQLite database. SQLite takes that as a POSIX fcntl lock, which the
 * kernel drops when the process dies however it dies — a kill -9 never leaves a stale lock, and there
 * is no PID to check for liveness or reuse. A second `BEGIN IMMEDIATE` fails at once with SQLITE_BUSY,
 * also from another connection of the same process (SQLite tracks fcntl locks per inode in-process).
 * The database itself is not touched, so API readers keep reading the WAL database undisturbed.
 *
 * Do not delete `<db>.lock` while an indexer runs: a new file would be a new, unlocked inode.
 */
import Database, { type SqliteDatabase } from './sqlite-driver.js';
import { openReaderDb } from './db.js';
import { StoreError } from '../errors.js';

export class WriterLock {
  private constructor(
    private readonly conn: SqliteDatabase,
    readonly path: string,
  ) {}

  static lockPathFor(dbPath: string): string {
    return `${dbPath}.lock`;
  }

  /** Acquires the lock or throws StoreError LOCKED; `describeHolder` adds who holds it to the message. */
  static acquire(dbPath: string, describeHolder: () => string = () => ''): WriterLock {
    const path = WriterLock.lockPathFor(dbPath);
    const conn = new Database(path, { timeout: 0 });
    try {
      conn.exec('BEGIN IMMEDIATE');
    } catch (err) {
      conn.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        const holder = describeHolder();
        throw new StoreError(
          'LOCKED',
          `database ${dbPath} is already open for writing by another indexer${holder ? ` (${holder})` : ''}; ` +
            `only one indexer per chain may run — stop the other one first (lock: ${path})`,
          { cause: err },
        );
      }
      throw err;
    }
    return new WriterLock(conn, path);
  }

  release(): void {
    if (this.conn.open) this.conn.close();
  }
}

/** "pid 1234, since …" from the holder's meta rows, for the LOCKED message; best effort. */
export function describeWriter(path: string): string {
  try {
    const db = openReaderDb(path, { busyTimeoutMs: 200 });
    try {
      const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('writer_pid', 'writer_started_at')").all() as {
        key: string;
        value: unknown;
      }[];
      const meta = new Map(rows.map((r) => [r.key, r.value]));
      const pid = meta.get('writer_pid');
      const since = meta.get('writer_started_at');
      if (typeof pid !== 'number') return '';
      return `pid ${pid}${typeof since === 'number' ? `, since ${new Date(since).toISOString()}` : ''}`;
    } finally {
      db.close();
    }
  } catch {
    return '';
  }
}
