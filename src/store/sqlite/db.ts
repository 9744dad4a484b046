/**
 * Opening a chain database: the one place that sets pragmas.
 *
 * Writer (the indexer):
 * - journal_mode=WAL: readers (the API) keep reading a consistent snapshot while the indexer writes,
 *   and a commit is one append to the -wal file.
 * - synchronous=NORMAL, chosen over FULL. What the requirement asks is kill -9 safety, and NORMAL gives
 *   it: a commit returns only after its WAL frames were handed to the kernel with write(), so they reach
 *   the disk even if the process dies the next instant; a killed writer leaves either the whole
 *   transaction or none of it, and the next open replays the WAL with no repair step. What NORMAL gives
 *   up (WAL is fsynced at checkpoints, not at each commit) is durability of the *last* commits across a
 *   power cut or kernel crash: the file is still never corrupt and still atomic, it just comes back at an
 *   older tip — which the indexer re-derives from the node, since the tip is stored in the same
 *   transaction as the UTXOs. FULL would add an fsync per commit (per block when following the tip, per
 *   batch during catch-up) for no gain in correctness here.
 * - journal_size_limit: a catch-up batch can grow the WAL to hundreds of MB; truncate it back after
 *   checkpoints instead of keeping the high-water mark on disk forever. Checkpoints themselves run on a
 *   thread of the store's own (checkpointer.ts), not at the writer's commits; while it runs, the limit
 *   is the size the WAL cycles through (checkpointer.ts says why).
 * - cache_size: the UTXO b-tree is read randomly (every input spends a random outpoint); a large page
 *   cache is what keeps catch-up off the disk. temp_store=MEMORY for the verify sort of small files.
 *
 * Reader (the API): `{ readonly: true, fileMustExist: true }` — it can never create, migrate or write.
 */
import { accessSync, constants, statSync } from 'node:fs';
import Database, { type SqliteDatabase } from './sqlite-driver.js';
import { StoreError } from '../errors.js';
import { walMismatch } from './wal-match.js';

export type Db = SqliteDatabase;

export interface WriterDbOptions {
  /** SQLite page cache for the writer, MiB. */
  cacheMiB?: number;
}

export const DEFAULT_WRITER_CACHE_MIB = 256;
/** The writer's journal_size_limit when no checkpoint thread runs, bytes. */
export const DEFAULT_WAL_LIMIT_BYTES = 64 * 2 ** 20;

export function openWriterDb(path: string, opts: WriterDbOptions = {}): Db {
  // Before SQLite opens the file: its first checkpoint would make a stale WAL's pages the file's own.
  const mismatch = path === ':memory:' || path === '' ? null : walMismatch(path);
  if (mismatch !== null) throw new StoreError('WAL_MISMATCH', mismatch);
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${-Math.round((opts.cacheMiB ?? DEFAULT_WRITER_CACHE_MIB) * 1024)}`);
    db.pragma(`journal_size_limit = ${DEFAULT_WAL_LIMIT_BYTES}`);
    db.pragma('temp_store = MEMORY');
    db.pragma('foreign_keys = OFF');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export interface ReaderDbOptions {
  cacheMiB?: number;
  /** How long a read may wait on a lock (only during WAL recovery after a writer crash), ms. */
  busyTimeoutMs?: number;
}

export function openReaderDb(path: string, opts: ReaderDbOptions = {}): Db {
  // Before SQLite opens the file: it would read a stale WAL's pages as the file's own (wal-match.ts).
  const mismatch = walMismatch(path);
  if (mismatch !== null) throw new StoreError('WAL_MISMATCH', mismatch);
  let db: Db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs ?? 5000 });
  } catch (err) {
    throw classifyOpenError(path, err);
  }
  try {
    db.pragma(`cache_size = ${-Math.round((opts.cacheMiB ?? 64) * 1024)}`);
    // SQLite opens lazily: read the header now so a truncated or foreign file fails here, with its name.
    db.pragma('schema_version');
  } catch (err) {
    db.close();
    throw classifyOpenError(path, err);
  }
  return db;
}

/** A StoreError naming what is wrong with the file, or `err` itself when it is not about the file. */
function classifyOpenError(path: string, err: unknown): unknown {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_IOERR')) {
    const why = cannotOpen(path, err);
    if (why) return why;
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_IOERR')) {
    return new StoreError('DAMAGED', `database ${path} is damaged or not an SQLite database (${code}); restore it or re-index`, {
      cause: err,
    });
  }
  return err;
}

/** SQLite says only "unable to open database file": tell a missing file from one we may not read. */
function cannotOpen(path: string, cause: unknown): StoreError | null {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return new StoreError(
      'UNREADABLE',
      `database ${path} cannot be reached by this process (${code}); check the directories' owner and mode`,
      { cause },
    );
  }
  if (!st) return new StoreError('NO_DATABASE', `database ${path} does not exist (has the indexer run?)`, { cause });
  if (st.isDirectory()) return new StoreError('UNREADABLE', `database ${path} is a directory, not a file`, { cause });
  try {
    accessSync(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return new StoreError('UNREADABLE', `database ${path} exists but cannot be read by this process (${code}); check its owner and mode`, {
      cause,
    });
  }
  if ((cause as { code?: string }).code !== 'SQLITE_CANTOPEN') return null;
  return new StoreError(
    'UNREADABLE',
    `database ${path} exists but SQLite cannot open it (is its directory readable and writable for the -shm file?)`,
    { cause },
  );
}

/**
 * Raises the file's generation by one, inside the caller's write transaction. Every transaction that
 * moves the tip calls it (ChainStore's writeTip, the bulk load's last step), so that walMismatch
 * (wal-match.ts) can place the file against its WAL.
 */
export function raiseGeneration(db: Db): void {
  const generation = db.pragma('user_version', { simple: true }) as number;
  // user_version is a signed 32-bit field; 2^31 commits is centuries of blocks.
  db.pragma(`user_version = ${(generation + 1) % 2 ** 31}`);
}
