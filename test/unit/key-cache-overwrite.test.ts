/**
 * A revocation that arrives by overwriting keys.sqlite IN PLACE (`cp revoked.sqlite keys.sqlite`: same
 * inode) with a file whose change counter equals the one the cache loaded: neither the identity nor the
 * counter moves, so only the file's content tells. The cache notices within its content-check interval.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { fileIdentity, sameFile } from '../../src/file-identity.js';

let dir: string;
let cache: KeyCache | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-key-overwrite-'));
});

afterEach(() => {
  cache?.close();
  rmSync(dir, { recursive: true, force: true });
});

function write<T>(file: string, fn: (s: KeyStore) => T): T {
  const store = KeyStore.open(file);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

it('refuses a key revoked by an in-place overwrite that keeps the inode and the change counter', () => {
  const file = path.join(dir, 'keys.sqlite');
  const revokedCopy = path.join(dir, 'revoked.sqlite');
  const { key, record } = write(file, (s) => s.create('private', 'victim'));
  copyFileSync(file, revokedCopy);
  // One commit on each: the live file gains a key, the copy revokes the victim; both counters move by one.
  write(file, (s) => s.create('default', 'other'));
  write(revokedCopy, (s) => s.revoke(record.id));
  const counter = (f: string) => readFileSync(f).readUInt32BE(24);
  expect(counter(revokedCopy)).toBe(counter(file));

  let now = 0;
  cache = new KeyCache(file, {}, () => now);
  expect(cache.verify(key)).toMatchObject({ ok: true, id: record.id });
  const before = fileIdentity(file);
  copyFileSync(revokedCopy, file);
  expect(sameFile(before, fileIdentity(file))).toBe(true);

  now += 3000;
  expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
});
