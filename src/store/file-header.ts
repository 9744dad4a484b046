/**
 * A cheap check that a database file has not been cut short: the SQLite header (first 100 bytes) records
 * how many pages the file holds as of its last write to the main file (a WAL checkpoint, or a commit in
 * rollback-journal mode); a file shorter than that lost its tail. Reading 100 bytes costs microseconds,
 * unlike `PRAGMA quick_check`, which reads the whole file.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Why the file at `path` is not a whole SQLite database, or null when its size agrees with its header (or it is gone). */
export function truncationProblem(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    // 0 bytes: a database the indexer has not written yet, not a damaged one.
    if (size === 0) return null;
    const header = Buffer.alloc(100);
    const got = readSync(fd, header, 0, 100, 0);
    if (got < 100) return `${path} is ${size} bytes, shorter than an SQLite header`;
    if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return `${path} is not an SQLite database (bad header)`;
    const raw = header.readUInt16BE(16);
    const pageSize = raw === 1 ? 65536 : raw;
    const pages = header.readUInt32BE(28);
    // The page count is only meaningful when "version-valid-for" matches the change counter.
    if (header.readUInt32BE(92) !== header.readUInt32BE(24) || pages === 0) return null;
    if (size < pages * pageSize) return `${path} is truncated: ${size} bytes, but its header records ${pages} pages of ${pageSize} bytes`;
    return null;
  } finally {
    closeSync(fd);
  }
}
