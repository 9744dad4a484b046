/**
 * The API's key check, answered from memory. keys.sqlite is loaded whole (it holds one small row per
 * key) and reloaded before a request is checked whenever the file changed:
 *   - the same file was written by the keys CLI: the file change counter in the SQLite header (bytes
 *     24–27), which every commit in rollback-journal mode moves (the keys store uses journal_mode=DELETE),
 *     read with one pread on a descriptor we keep. A file switched to WAL does not move it per commit:
 *     then `PRAGMA data_version` on our read-only connection is asked instead, which costs a read
 *     transaction (file locks) per request;
 *   - the name now points to another file (a restored backup, `cp keys.sqlite k && mv k keys.sqlite`):
 *     its (dev, ino) differs from the one we opened, so we reopen by name and reload.
 * Both checks run on every request that presents a well-formed key, so a revocation or a new key
 * applies from the next request, as it did when every request ran a SELECT, at a fraction of the cost.
 * An overwrite in place (`cp other.sqlite keys.sqlite`) keeps the inode, and the copy's change counter
 * can equal ours: so once a second the file's bytes are hashed too (it holds one small row per key), and
 * a different hash reopens the file (SQLite's own page cache trusts the counter, so a reload would not do).
 * The check itself is ../keys/key-table.ts.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { truncationProblem } from './file-header.js';
import { fileIdentity, sameFile, type FileIdentity } from '../../file-identity.js';
import Database, { type SqliteDatabase, type SqliteStatement } from './sqlite-driver.js';
import { isWellFormedKey } from '../keys/key-format.js';
import { KeyTable, type KeyRow } from '../keys/key-table.js';
import type { KeyCheck, KeyVerifier } from '../keys/key-verifier.js';

export interface KeyCacheEvents {
  /** The file could not be opened or read; every key counts as unknown until it can. */
  onError?(err: unknown): void;
  /** Keys were (re)loaded: how many, and why. */
  onLoad?(count: number, why: 'opened' | 'changed' | 'replaced'): void;
}

/** A file that failed to open is tried again after this long, or at once when the name points elsewhere. */
const RETRY_MS = 1000;

/** Offsets in the SQLite file header: the file change counter, and the read version (2 = WAL). */
const CHANGE_COUNTER_AT = 24;
const READ_VERSION_AT = 18;
const WAL_VERSION = 2;

export class KeyCache implements KeyVerifier {
  private db: SqliteDatabase | null = null;
  private dataVersion: SqliteStatement<[], number> | null = null;
  /** A descriptor on the opened file, for the change counter (null while using data_version). */
  private fd: number | null = null;
  private readonly header = Buffer.alloc(4);
  private opened: FileIdentity | null = null;
  private version = -1;
  private keys = KeyTable.EMPTY;
  private failed: { at: number; file: FileIdentity } | null = null;
  private truncationCheckedAt = 0;
  /** SHA-256 of the file's bytes when it was loaded (null while using data_version: WAL mode). */
  private contentHash: string | null = null;

  private readonly check: () => void;

  /**
   * `coalesce` wraps the change check (default: it runs on every verify). The API passes perTurn
   * (src/api-process/per-turn.ts), so one check serves every request read in one turn of the event loop.
   */
  constructor(
    private readonly file: string,
    private readonly events: KeyCacheEvents = {},
    private readonly now: () => number = Date.now,
    coalesce: (check: () => void) => () => void = (check) => check,
  ) {
    this.check = coalesce(() => this.refresh());
  }

  verify(presented: string): KeyCheck {
    if (!isWellFormedKey(presented)) return { ok: false, reason: 'malformed' };
    this.check();
    return this.keys.check(presented);
  }

  /**
   * The file is there but cannot be read (damaged, truncated, not a keys database): every key counts as
   * unknown, and the API says KEYS_UNAVAILABLE rather than blaming the caller's key.
   */
  get unreadable(): boolean {
    // Asked by /ready too, with no key presented: bring the cache level with the file first.
    this.check();
    return this.failed !== null;
  }

  /** Number of keys held (revoked ones included). */
  get size(): number {
    return this.keys.size;
  }

  close(): void {
    if (this.db?.open) this.db.close();
    if (this.fd !== null) closeSync(this.fd);
    this.db = null;
    this.fd = null;
    this.dataVersion = null;
    this.opened = null;
  }

  /** SHA-256 of the opened file's bytes, read through our descriptor. */
  private fileHash(): string {
    const fd = this.fd!;
    const bytes = Buffer.alloc(fstatSync(fd).size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return createHash('sha256').update(bytes.subarray(0, got)).digest('base64');
  }

  /** The opened file's version now: its change counter, or data_version for a file in WAL mode. */
  private currentVersion(): number {
    if (this.fd === null) return this.dataVersion!.get()!;
    if (readSync(this.fd, this.header, 0, 4, CHANGE_COUNTER_AT) !== 4) throw new Error(`${this.file} is shorter than an SQLite header`);
    return this.header.readUInt32BE(0);
  }

  /** Brings the cache level with the file: the checks above, then a reload only when something changed. */
  private refresh(): void {
    const current = fileIdentity(this.file);
    if (current === null) {
      // No file (not created yet, or moved away): no key is valid. Keep nothing of a file that is gone.
      if (this.db !== null || this.keys.size > 0) {
        this.close();
        this.keys = KeyTable.EMPTY;
      }
      this.failed = null;
      return;
    }
    try {
      let rewritten = false;
      if (this.db !== null && sameFile(current, this.opened)) {
        // A file cut short or overwritten in place keeps its identity (and maybe its counter): look at its
        // size and bytes now and then.
        const due = this.now() - this.truncationCheckedAt >= RETRY_MS;
        if (due) {
          this.truncationCheckedAt = this.now();
          const problem = truncationProblem(this.file);
          if (problem !== null) throw new Error(problem);
        }
        if (this.currentVersion() !== this.version) return this.load('changed');
        if (!due || this.contentHash === null || this.fileHash() === this.contentHash) return;
        rewritten = true;
      }
      if (this.failed !== null && sameFile(current, this.failed.file) && this.now() - this.failed.at < RETRY_MS) return;
      const why = this.db === null && !rewritten ? 'opened' : 'replaced';
      this.close();
      this.db = new Database(this.file, { readonly: true, fileMustExist: true });
      this.dataVersion = this.db.prepare<[], number>('PRAGMA data_version').pluck();
      // The descriptor, like the connection, is opened after the identity was read: if the name moved
      // again in between, the next request sees a mismatch and reopens, so a race costs one extra
      // reload, never a stale cache. Both must be the file that identity names, or neither is used.
      const fd = openSync(this.file, 'r');
      this.fd = fd;
      if (!sameFile(current, fstatSync(fd))) throw new Error(`${this.file} was replaced while it was being opened`);
      this.opened = current;
      this.load(why);
      this.failed = null;
    } catch (err) {
      // Unreadable (half-written by the CLI, not an addrsum keys file): no key is valid until it reads.
      this.close();
      this.keys = KeyTable.EMPTY;
      this.failed = { at: this.now(), file: current };
      this.events.onError?.(err);
    }
  }

  private load(why: 'opened' | 'changed' | 'replaced'): void {
    const db = this.db!;
    // Version and rows from one read transaction (its shared lock keeps writers out): a commit between
    // them would otherwise leave rows older than the version we record, and that change would never be loaded.
    const { version, rows, hash } = db.transaction(() => {
      const rows = db.prepare<[], KeyRow>('SELECT id, digest, tier, revoked_at FROM api_keys').all();
      if (this.fd !== null && readSync(this.fd, this.header, 0, 2, READ_VERSION_AT) === 2 && this.header[0] === WAL_VERSION) {
        closeSync(this.fd);
        this.fd = null;
      }
      return { version: this.currentVersion(), rows, hash: this.fd === null ? null : this.fileHash() };
    })();
    const keys = new KeyTable(rows, 'keys.sqlite');
    this.keys = keys;
    this.version = version;
    this.contentHash = hash;
    this.events.onLoad?.(keys.size, why);
  }
}
