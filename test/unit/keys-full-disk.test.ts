/**
 * `keys create` on a full disk (issue 22, lower item): one clear error line naming the file and the
 * cause, exit code 1, no stack trace. The disk is a 1 MiB tmpfs filled to the last byte (needs root:
 * mount; the test fails, not skips, without it).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/keys/cli.js';
import { loadConfig } from '../../src/config.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-keys-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
  const fd = openSync(path.join(dir, 'filler'), 'w');
  try {
    for (;;) writeFileSync(fd, 'x'.repeat(4096));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
});

afterAll(() => {
  try {
    execFileSync('umount', ['-l', dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('keys create on a full disk says so in one line and exits 1', () => {
  let stdout = '';
  let stderr = '';
  const io = { out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) };
  let code: number | string;
  try {
    code = main(['create'], () => loadConfig({ env: { ADDRSUM_DATA_DIR: dir } }), io);
  } catch (err) {
    code = `threw ${String(err)}`;
  }
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^error: cannot write .*keys\.sqlite: the disk is full \(SQLITE_FULL|ENOSPC/);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
});
