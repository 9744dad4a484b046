/** Starting writer-child.ts and following its progress lines, with deadlines instead of sleeps. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BootstrapChildArgs } from './bootstrap-child.js';
import type { ChildArgs } from './writer-child.js';

const CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));

/** Long enough for a tsx start on a loaded 2-core machine; only a hang should ever reach it. */
export const LINE_DEADLINE_MS = 90_000;

export class WriterChild {
  readonly proc: ChildProcess;
  readonly lines: string[] = [];
  private stderr = '';
  private waiters: Array<() => void> = [];

  /** `script`: another child module taking its arguments the same way (bootstrap-child.ts). */
  constructor(args: ChildArgs | BootstrapChildArgs, script: string = CHILD) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let partial = '';
    this.proc.stdout!.on('data', (d: Buffer) => {
      const parts = (partial + d.toString()).split('\n');
      partial = parts.pop()!;
      this.lines.push(...parts);
      this.wake();
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.proc.on('exit', () => this.wake());
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Resolves with the first line that satisfies `want`; rejects if the child exits first or the deadline passes. */
  async line(want: (line: string) => boolean, deadlineMs = LINE_DEADLINE_MS): Promise<string> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      const found = this.lines.find(want);
      if (found !== undefined) return found;
      if (!this.running) throw new Error(`writer child exited (${String(this.proc.exitCode ?? this.proc.signalCode)}): ${this.stderr}`);
      const left = until - Date.now();
      if (left <= 0)
        throw new Error(`no such line from the writer child within ${deadlineMs} ms; got ${this.lines.join(' | ')}; ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The highest op the child reported committed (-1: none yet). */
  lastOp(): number {
    let last = -1;
    for (const l of this.lines) {
      const m = /^(?:op|ready) (-?\d+)$/.exec(l);
      if (m) last = Math.max(last, Number(m[1]));
    }
    return last;
  }

  async kill(): Promise<void> {
    if (!this.running) return;
    const gone = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.kill('SIGKILL');
    await gone;
  }
}
