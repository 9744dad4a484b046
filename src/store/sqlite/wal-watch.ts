/**
 * Word of the indexer's commits to an API process without polling: the indexer's commits are writes to
 * the index's WAL file, which inotify (fs.watch) reports. The directory is watched, not the file: the WAL
 * is deleted when the last connection closes and made anew, and the index file may be replaced, while
 * the directory and the names stay. Best effort: a filesystem or a limit that refuses the watch leaves
 * the caller's polling as it was.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/** Calls `onWrite` when the WAL of the index at `file` is written; returns what stops it (a no-op when the watch cannot be made). */
export function watchWal(file: string, onWrite: () => void): () => void {
  const wal = `${path.basename(file)}-wal`;
  let watcher: FSWatcher;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name === wal) onWrite();
    });
  } catch {
    return () => undefined;
  }
  watcher.on('error', () => watcher.close());
  return () => watcher.close();
}
