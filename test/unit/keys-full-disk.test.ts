/**
 * `keys create` on a full disk (issue 22, lower item): one clear error line naming the file and the
 * cause, exit code 1, no stack trace. The disk is a 1 MiB tmpfs filled to the last byte; it is mounted
 * in a child with a mount namespace of its own, which runs the CLI in-process (as root and as any user).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { onJsonLines, spawnWithOwnMounts } from '../support/own-tmpfs.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-keys-full-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('keys create on a full disk says so in one line and exits 1', async () => {
  const child = spawnWithOwnMounts('test/support/keys-full-disk-child.ts', [dir]);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: Array<Record<string, unknown>> = [];
  onJsonLines(child, (l) => lines.push(l));
  const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect({ exit, stderr, lines: lines.length }).toEqual({ exit: 0, stderr: '', lines: 1 });
  const run = lines[0]!;
  // The file system was full before the CLI ran.
  expect(run.free).toBe(0);
  expect(run.threw).toBeUndefined();
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('');
  expect(run.stderr).toMatch(/^error: cannot use .*keys\.sqlite: the disk is full \((SQLITE_FULL|ENOSPC)\)/);
  expect(String(run.stderr).trimEnd().split('\n')).toHaveLength(1);
}, 60_000);
