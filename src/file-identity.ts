/**
 * Which file a path names right now (device + inode). A process that keeps a database open keeps reading
 * the file it opened even after that path was deleted, replaced (`mv new old`) or re-created: comparing
 * the identity it opened with the path's current one is how it notices and reopens.
 */
import { statSync } from 'node:fs';

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The identity of the file at `path`, or null when nothing is there (or it cannot be stat'ed). */
export function fileIdentity(path: string): FileIdentity | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? { dev: st.dev, ino: st.ino } : null;
}

/** Two identities name the same file; a missing file is never the same as anything. */
export function sameFile(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}
