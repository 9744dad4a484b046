/**
 * WAL checkpoints on a second thread, so that the writer does not copy pages into the database file
 * (and fsync it) between blocks.
 *
 * Why: with SQLite's own auto-checkpoint (every 1,000 WAL pages, at commit, on the committing thread),
 * each block of a large index dirties thousands of random pages, so nearly every block commit also
 * writes them all a second time into the database file and waits for the fsync (BENCHMARKS.md has the
 * scale bench's figures).
 *
 * How: a worker thread with its own connection runs `wal_checkpoint(PASSIVE)` every POLL_MS. PASSIVE
 * never waits for the writer or for readers: it copies what is committed and not in use, and an idle
 * poll with nothing new costs no I/O. The writer keeps SQLite's auto-checkpoint, raised to
 * WRITER_BOUND_PAGES, as the bound on the WAL: should the thread fall behind or fail, the writer
 * checkpoints at commit as before, only less often. Checkpoints are crash-safe whoever runs them, so a
 * kill at any point leaves the same recoverable file as before.
 *
 * WAL size: under back-to-back commits the WAL grows to the bound, restarts after the writer's
 * checkpoint, and grows again. The writer truncates it only down to WAL_KEEP_PAGES, so each cycle
 * overwrites blocks the file already has instead of extending it again from db.ts's 64 MiB: on ext4
 * every extending write allocates. Block apply on a large index is faster for it (BENCHMARKS.md); the
 * price is a WAL of up to WAL_KEEP_PAGES left on disk.
 *
 * The worker is CommonJS evaluated from a string and loads the SQLite driver by path: no loader is
 * needed, so it runs the same from sources (tsx), from dist and in tests.
 */
import { Worker } from 'node:worker_threads';
import { SQLITE_MODULE_PATH } from './sqlite-driver.js';
import { DEFAULT_WAL_LIMIT_BYTES, type Db } from './db.js';

/** How often the thread looks for committed WAL frames to copy, ms. */
const POLL_MS = 50;
/** The writer's own auto-checkpoint threshold while the thread runs (pages; 256 MiB at 4 KiB pages). */
export const WRITER_BOUND_PAGES = 65_536;
/** What the writer truncates the WAL back to while the thread runs: the bound plus one large block. */
export const WAL_KEEP_PAGES = WRITER_BOUND_PAGES + 16_384;
/** SQLite's default, restored when the thread is gone. */
const SQLITE_DEFAULT_PAGES = 1_000;
/** How long close() waits for the thread to finish a checkpoint in progress, ms. */
const CLOSE_WAIT_MS = 60_000;

// Slots of the shared Int32Array.
const STOP = 0;
const CLOSED = 1;
const RUNS = 2;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const flags = new Int32Array(workerData.flags);
let db = null;
try {
  const Database = require(workerData.driver);
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  let last = '';
  while (Atomics.wait(flags, ${STOP}, 0, ${POLL_MS}) === 'timed-out') {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    // Counted when the WAL changed since the last poll: a checkpoint that had frames to look at.
    const now = r.log + '/' + r.checkpointed;
    if (r.log > 0 && now !== last) Atomics.add(flags, ${RUNS}, 1);
    last = now;
  }
} catch (err) {
  parentPort.postMessage(String(err && err.message || err));
} finally {
  try { if (db) db.close(); } catch {}
  Atomics.store(flags, ${CLOSED}, 1);
  Atomics.notify(flags, ${CLOSED});
}`;

export class Checkpointer {
  private readonly flags = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  private readonly worker: Worker;
  private failure: string | null = null;

  /** Starts checkpointing `path`, whose writer connection is `writer`. */
  constructor(
    private readonly writer: Db,
    path: string,
  ) {
    writer.pragma(`wal_autocheckpoint = ${WRITER_BOUND_PAGES}`);
    writer.pragma(`journal_size_limit = ${WAL_KEEP_PAGES * (writer.pragma('page_size', { simple: true }) as number)}`);
    // The writer's own explicit checkpoints (TRUNCATE after a bootstrap) wait for the thread's to end
    // instead of giving up at once.
    writer.pragma('busy_timeout = 10000');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, driver: SQLITE_MODULE_PATH, flags: this.flags.buffer },
    });
    // Never what keeps a process alive: close() ends it, and an exit mid-checkpoint is safe.
    this.worker.unref();
    this.worker.on('message', (message: string) => (this.failure = message));
    // A thread that stopped on its own leaves the writer checkpointing as often as SQLite would.
    this.worker.on('exit', () => {
      if (this.writer.open && Atomics.load(this.flags, STOP) === 0) {
        this.writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
        this.writer.pragma(`journal_size_limit = ${DEFAULT_WAL_LIMIT_BYTES}`);
      }
    });
  }

  /** Polls that found the WAL changed since the one before (for tests). */
  get runs(): number {
    return Atomics.load(this.flags, RUNS);
  }

  /** Why the thread stopped on its own, if it did. */
  get failed(): string | null {
    return this.failure;
  }

  /** Stops the thread, waiting for a checkpoint in progress, before the writer closes the file. */
  stop(): void {
    Atomics.store(this.flags, STOP, 1);
    Atomics.notify(this.flags, STOP);
    Atomics.wait(this.flags, CLOSED, 0, CLOSE_WAIT_MS);
    void this.worker.terminate();
  }
}

const TRUNCATE_TRIES = 100;
const TRUNCATE_WAIT_MS = 50;

/**
 * Folds the WAL into the database and truncates it, as after a bulk load; false when it stayed busy.
 * Busy mostly means the checkpoint thread is copying the last frames at that moment: it is done within
 * a poll or two, so this tries again for a while rather than leave a large WAL for every page read of
 * the next blocks to search.
 */
export function truncateWal(db: Db): boolean {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < TRUNCATE_TRIES; i++) {
    const [checkpoint] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (checkpoint?.busy === 0) return true;
    Atomics.wait(pause, 0, 0, TRUNCATE_WAIT_MS);
  }
  return false;
}
