/**
 * Which file a path names right now: (device, inode). An open SQLite connection keeps reading the inode it
 * opened, so a file replaced under the same name (`cp f f.new && mv f.new f`, a restored backup) goes
 * unnoticed by the connection itself; comparing identities tells a reader to reopen.
 */
import { statSync } from 'node:fs';

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The identity of the file at `path`, or null when nothing is there. */
export function fileIdentity(path: string): FileIdentity | null {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? { dev: st.dev, ino: st.ino } : null;
}

/** True when both name the same file; two nulls (both missing) count as the same. */
export function sameFile(a: FileIdentity | null, b: FileIdentity | null): boolean {
  if (a === null || b === null) return a === b;
  return a.dev === b.dev && a.ino === b.ino;
}
