/**
 * A database the API reads but never creates (a chain index made by its indexer, keys.sqlite made by the
 * keys CLI), kept open and checked on every use against the file its path names now:
 *   - missing: answered as missing at once (the open handle, if any, is closed: a deleted index must never
 *     keep answering from the unlinked file);
 *   - replaced or re-created (device + inode changed): the old handle is closed and the new file opened;
 *   - damaged (a read failed, see drop()): closed, and reopened on a later use, so a restored file answers
 *     again without a restart.
 *   - truncated (its size disagrees with its header; checked at most once per `retryMs`): closed as damaged.
 *   - written since it was opened (its mtime moved; checked with the above): closed and opened again. SQLite
 *     keeps its page cache while the WAL says nothing changed, so a file overwritten in place (same inode)
 *     would go on answering from cached pages; a fresh handle reads the file as it is now. The indexer's
 *     checkpoints move the mtime too: that costs a reopen at most once per `retryMs`.
 * Opening is tried at most once per `retryMs` while it fails, so a missing or broken file costs one stat
 * per request, not one open. The stat happens before the open: if the file is swapped in between, the
 * next use sees a different identity and reopens, never the reverse.
 */
import { statSync } from 'node:fs';
import { fileIdentity, sameFile, type FileIdentity } from '../file-identity.js';
import type { Clock } from './clock.js';

class DamagedFile extends Error {}

export type Watched<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string; readonly damaged: boolean };

export interface WatchedFileEvents {
  /** A distinct open failure (each is reported once, not once per retry). */
  onOpenError?(err: unknown): void;
  /** The open handle was closed because the path now names another file, or none. */
  onReplaced?(what: 'deleted' | 'replaced'): void;
}

export class WatchedFile<T extends { close(): void | Promise<void> }> {
  private value: T | null = null;
  /** The answer while the file is open and unchanged, made once per open: get() runs on every request. */
  private held: Watched<T> | null = null;
  private identity: FileIdentity | null = null;
  private nextTry = 0;
  private lastError: { text: string; damaged: boolean } | null = null;
  private nextValidate = 0;
  /** The file's mtime when opened (ms, fractional). */
  private modified: number | null = null;

  constructor(
    readonly path: string,
    private readonly open: () => T,
    private readonly clock: Clock,
    /** Whether an open failure means the file is there but unusable (vs. not created/initialised yet). */
    private readonly isDamage: (err: unknown) => boolean,
    private readonly events: WatchedFileEvents = {},
    private readonly retryMs = 1000,
    /** A cheap whole-file check (e.g. truncation), run when opening and at most once per `retryMs` while open. */
    private readonly validate: (path: string) => string | null = () => null,
  ) {}

  get(): Watched<T> {
    const now = fileIdentity(this.path);
    if (this.value) {
      if (sameFile(now, this.identity)) {
        const t = this.clock.now();
        if (t < this.nextValidate) return this.held!;
        this.nextValidate = t + this.retryMs;
        const problem = this.validate(this.path);
        if (problem !== null) {
          this.events.onOpenError?.(new Error(problem));
          this.drop(problem);
          return { ok: false, reason: problem, damaged: true };
        }
        if (modifiedAt(this.path) === this.modified) return this.held!;
        this.close();
        this.nextTry = 0;
      } else {
        this.close();
        this.events.onReplaced?.(now === null ? 'deleted' : 'replaced');
        this.nextTry = 0;
      }
    }
    if (now === null) return { ok: false, reason: `${this.path} does not exist`, damaged: false };
    const t = this.clock.now();
    if (t < this.nextTry && this.lastError) return { ok: false, reason: this.lastError.text, damaged: this.lastError.damaged };
    this.nextTry = t + this.retryMs;
    try {
      const problem = this.validate(this.path);
      if (problem !== null) throw new DamagedFile(problem);
      const modified = modifiedAt(this.path);
      this.value = this.open();
      this.modified = modified;
      this.held = { ok: true, value: this.value };
      this.identity = now;
      this.nextValidate = t + this.retryMs;
      this.lastError = null;
      return this.held;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      if (text !== this.lastError?.text) this.events.onOpenError?.(err);
      this.lastError = { text, damaged: err instanceof DamagedFile || this.isDamage(err) };
      return { ok: false, reason: text, damaged: this.lastError.damaged };
    }
  }

  /** A read failed in a way that says the file is unusable: close now, try to reopen after `retryMs`. */
  drop(reason: string): void {
    this.close();
    this.lastError = { text: reason, damaged: true };
    this.nextTry = this.clock.now() + this.retryMs;
  }

  close(): void {
    const value = this.value;
    this.value = null;
    this.held = null;
    this.identity = null;
    // An engine's close may settle later (the reader port): a handle that fails to close is dropped all the same.
    value?.close()?.catch(() => undefined);
  }
}

function modifiedAt(path: string): number | null {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? null;
}
