/**
 * A cheap check that a database file has not been cut short: the SQLite header (first 100 bytes) records
 * how many pages the file holds as of its last write to the main file (a WAL checkpoint, or a commit in
 * rollback-journal mode); a file shorter than that lost its tail, unless a checkpoint is writing it now. Reading 100 bytes costs microseconds,
 * unlike `PRAGMA quick_check`, which reads the whole file.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The first `bytes` of the file (fewer when it is shorter) and its size; null when it cannot be opened. */
export function readHead(path: string, bytes: number): { head: Buffer; size: number } | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(bytes);
    const got = readSync(fd, head, 0, bytes, 0);
    return { head: head.subarray(0, got), size: fstatSync(fd).size };
  } finally {
    closeSync(fd);
  }
}

/** Whether `head` starts like an SQLite database file. */
export function isSqliteHeader(head: Buffer): boolean {
  return head.length >= 100 && head.toString('latin1', 0, 16) === 'SQLite format 3\0';
}

/** Why the file at `path` is not a whole SQLite database, or null when its size agrees with its header (or it is gone). */
export function truncationProblem(path: string): string | null {
  const read = readHead(path, 100);
  // 0 bytes: a database the indexer has not written yet, not a damaged one.
  if (read === null || read.size === 0) return null;
  const { head: header, size } = read;
  if (header.length < 100) return `${path} is ${size} bytes, shorter than an SQLite header`;
  if (!isSqliteHeader(header)) return `${path} is not an SQLite database (bad header)`;
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const pages = header.readUInt32BE(28);
  // The page count is only meaningful when "version-valid-for" matches the change counter.
  if (header.readUInt32BE(92) !== header.readUInt32BE(24) || pages === 0) return null;
  if (size >= pages * pageSize) return null;
  // A checkpoint copies the log's pages in page order, page 1 (this header) first, so while one runs the
  // header may count pages not yet written: inconclusive while the log holds frames. A file that really
  // lost its tail then fails its first read of a missing page (SQLITE_CORRUPT), which says damaged too.
  if ((readHead(`${path}-wal`, 0)?.size ?? 0) > WAL_HEADER_BYTES) return null;
  return `${path} is truncated: ${size} bytes, but its header records ${pages} pages of ${pageSize} bytes`;
}

/** A write-ahead log no longer than its header holds no frame. */
const WAL_HEADER_BYTES = 32;
