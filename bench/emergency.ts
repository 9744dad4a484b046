/**
 * Last-resort cleanup for a benchmark interrupted by Ctrl-C or SIGTERM, when its try/finally cannot run:
 * child processes it registered get SIGKILL and temp dirs it registered are deleted, synchronously, on
 * process exit. (litecoind children also have their own exit hook and watchdog: harness/litecoind.ts.)
 * The normal path is try/finally in each benchmark; it unregisters what it has cleaned up itself.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  // Without a handler these signals end the process without 'exit' handlers.
  for (const [sig, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(sig, () => process.exit(code));
}

export function trackChild(child: ChildProcess): void {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function trackDir(dir: string): void {
  install();
  dirs.add(dir);
}

export function untrackDir(dir: string): void {
  dirs.delete(dir);
}
