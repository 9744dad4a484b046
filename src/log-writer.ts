/**
 * The log's destination: lines go to a file descriptor (stdout) through one asynchronous write at a
 * time, and a write that fails is DROPPED and counted, never retried forever nor thrown. A full or broken
 * log disk must not take the process down or stall it: pino's own SonicBoom retries a failed final flush
 * without end and throws from its error event. While the descriptor is slow (a full pipe), lines queue
 * up to `maxQueuedBytes`; past that new lines are dropped too. At most one line per `reportEveryMs` goes
 * to stderr saying how many were dropped and why.
 */
import fs from 'node:fs';

export interface DroppingWriterOptions {
  readonly fd?: number;
  readonly maxQueuedBytes?: number;
  readonly reportEveryMs?: number;
  /** Where the drop report goes (default: stderr, best effort); tests pass a recorder. */
  readonly report?: (line: string) => void;
  readonly now?: () => number;
}

let droppedEverywhere = 0;

/** Lines dropped by every writer of this process so far (for the log_lines_dropped_total metric). */
export function logLinesDropped(): number {
  return droppedEverywhere;
}

/** Errors that only mean "not now": the line waits for the next attempt. */
const TRANSIENT = new Set(['EAGAIN', 'EWOULDBLOCK', 'EINTR']);

export class DroppingWriter {
  private queue: string[] = [];
  private queuedBytes = 0;
  private writing = false;
  private waiters: Array<() => void> = [];
  private droppedSinceReport = 0;
  private lastError = '';
  private lastReport = -Infinity;
  private readonly fd: number;
  private readonly maxQueuedBytes: number;
  private readonly reportEveryMs: number;
  private readonly report: (line: string) => void;
  private readonly now: () => number;
  /** Lines this writer dropped. */
  dropped = 0;

  constructor(options: DroppingWriterOptions = {}) {
    this.fd = options.fd ?? 1;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 4 * 1024 * 1024;
    this.reportEveryMs = options.reportEveryMs ?? 60_000;
    this.report = options.report ?? toStderr;
    this.now = options.now ?? Date.now;
  }

  write(line: string): boolean {
    if (this.queuedBytes + line.length > this.maxQueuedBytes) {
      this.drop(1, 'the log destination is not keeping up');
      return true;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (!this.writing) this.pump();
    return true;
  }

  /** Calls `cb` once everything queued has been written or dropped, or after `timeoutMs` at most. */
  flush(cb: () => void, timeoutMs = 2000): void {
    if (!this.writing && this.queue.length === 0) return cb();
    let called = false;
    const once = (): void => {
      if (called) return;
      called = true;
      clearTimeout(timer);
      cb();
    };
    const timer = setTimeout(once, timeoutMs);
    timer.unref();
    this.waiters.push(once);
  }

  /**
   * Writes what is queued now, synchronously, once; whatever fails is dropped (never retried). For long
   * synchronous work whose progress lines would otherwise wait: they may land before a chunk whose
   * asynchronous write is still in flight.
   */
  flushSync(): void {
    if (this.queue.length === 0) return;
    const text = this.take();
    try {
      fs.writeSync(this.fd, text.chunk);
    } catch (err) {
      this.drop(text.lines, (err as NodeJS.ErrnoException).code ?? String(err));
    }
  }

  private take(): { chunk: string; lines: number } {
    const chunk = this.queue.join('');
    const lines = this.queue.length;
    this.queue = [];
    this.queuedBytes = 0;
    return { chunk, lines };
  }

  private pump(): void {
    if (this.queue.length === 0) {
      this.writing = false;
      for (const w of this.waiters.splice(0)) w();
      return;
    }
    this.writing = true;
    const { chunk, lines } = this.take();
    const buffer = Buffer.from(chunk);
    const attempt = (offset: number): void => {
      fs.write(this.fd, buffer, offset, buffer.length - offset, null, (err, written) => {
        if (err) {
          if (TRANSIENT.has(err.code ?? '')) {
            setTimeout(() => attempt(offset), 20).unref();
            return;
          }
          this.drop(lines, err.code ?? err.message);
        } else if (offset + written < buffer.length) {
          return attempt(offset + written);
        }
        this.pump();
      });
    };
    attempt(0);
  }

  private drop(lines: number, why: string): void {
    this.dropped += lines;
    droppedEverywhere += lines;
    this.droppedSinceReport += lines;
    this.lastError = why;
    const t = this.now();
    if (t - this.lastReport < this.reportEveryMs) return;
    this.lastReport = t;
    this.report(`addrsum: dropped ${this.droppedSinceReport} log line(s) that could not be written (${this.lastError})\n`);
    this.droppedSinceReport = 0;
  }
}

function toStderr(line: string): void {
  // Asynchronous and unchecked: stderr may sit on the same full disk.
  fs.write(2, line, () => undefined);
}
