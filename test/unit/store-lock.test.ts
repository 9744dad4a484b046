import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainStore, StoreError } from '../../src/store/sqlite/chain-store.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { exited, firstLine, killAll, startStoreChild } from '../support/store-child-run.js';

const OPTS = { chain: 'LTC', network: 'regtest' } as const;

function lockedError(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('LOCKED');
    return err as StoreError;
  }
  throw new Error('expected LOCKED');
}

describe('one writer per database', () => {
  let dir: string;
  let path: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'addrsum-lock-'));
    path = join(dir, 'ltc.sqlite');
  });
  afterEach(() => {
    killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first writer on a fresh machine creates the data directory', () => {
    const nested = join(dir, 'data', 'nested', 'ltc.sqlite');
    expect(existsSync(join(dir, 'data'))).toBe(false);
    ChainStore.open(nested, OPTS).close();
    expect(existsSync(nested)).toBe(true);
  });

  it('a second writer in the same process gets LOCKED naming the file; closing releases it', () => {
    const first = ChainStore.open(path, OPTS);
    const err = lockedError(() => ChainStore.open(path, OPTS));
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/already open for writing by another indexer \(pid \d+, since /);
    // Readers are unaffected by the writer lock.
    ChainReader.open(path).close();
    first.close();
    ChainStore.open(path, OPTS).close();
  });

  it('a writer in another process blocks us, and its SIGKILL releases the lock', async () => {
    const holder = startStoreChild(['hold', path]);
    children.push(holder);
    expect(await firstLine(holder)).toBe('ready');
    const err = lockedError(() => ChainStore.open(path, OPTS));
    expect(err.message).toContain(`pid ${holder.pid}`);
    holder.kill('SIGKILL');
    await exited(holder);
    const store = ChainStore.open(path, OPTS);
    store.close();
    expect(existsSync(`${path}.lock`)).toBe(true);
  });

  it('a second writer started as another process refuses with a clear message', async () => {
    const store = ChainStore.open(path, OPTS);
    try {
      const child = startStoreChild(['try', path]);
      children.push(child);
      const answer = JSON.parse(await firstLine(child)) as { code?: string; message?: string };
      expect(answer.code).toBe('LOCKED');
      expect(answer.message).toContain(path);
      expect(answer.message).toContain(`pid ${process.pid}`);
    } finally {
      store.close();
    }
    const child = startStoreChild(['try', path]);
    children.push(child);
    expect(JSON.parse(await firstLine(child))).toEqual({ ok: true });
  });
});
