/**
 * A small tmpfs that only one child process (and its own children) can see, for tests that need a real
 * file system that is really full. The child runs under `unshare -Urm`: a user namespace of its own, in
 * which it may mount, and a mount namespace of its own, so the same command works for root and for any
 * other user. The network is shared, so the test reaches a server started in there on loopback.
 * Tests call `spawnWithOwnMounts`; the child scripts call `mountTmpfs` and `fillDisk`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../harness/indexer-process.js';

/** Runs `tsx script args` in a user and mount namespace of its own; stdin and stdout are pipes. */
export function spawnWithOwnMounts(script: string, args: readonly string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn('unshare', ['-Urm', process.execPath, '--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Writing to or ending stdin after the child has exited is harmless, not an error of the test.
  child.stdin.on('error', () => undefined);
  return child;
}

/** Calls `onLine` with each JSON line the child prints on stdout (other lines are ignored). */
export function onJsonLines(child: ChildProcess, onLine: (value: Record<string, unknown>) => void): void {
  let pending = '';
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) onLine(JSON.parse(line) as Record<string, unknown>);
  });
}

/** In the child: a fresh tmpfs of `size` (mount's syntax, e.g. `1m`) on `dir`. */
export function mountTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
}

/** In the child: fills the file system of `dir` until a write fails with ENOSPC; returns the bytes left. */
export function fillDisk(dir: string): number {
  const fd = openSync(path.join(dir, `filler-${process.hrtime.bigint()}`), 'w');
  const chunk = Buffer.alloc(64 * 1024, 'x');
  try {
    // A write that does not fit writes what fits, so the next one fails: the disk is full to the last page.
    for (;;) writeFileSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}
