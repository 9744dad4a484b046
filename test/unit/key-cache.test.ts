/**
 * The API's in-memory key cache: a revocation, a new key, a replaced file (`cp && mv`), a removed file —
 * each applies on the very next verify(), with no wait. Also the file-identity helper it stands on.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';
import { generateKey } from '../../src/store/keys/key-format.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { fileIdentity, sameFile } from '../../src/file-identity.js';

let dir: string;
let file: string;
let cache: KeyCache;
let loads: string[];
let errors: number;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-key-cache-'));
  file = path.join(dir, 'keys.sqlite');
  loads = [];
  errors = 0;
  cache = new KeyCache(file, { onLoad: (_n, why) => loads.push(why), onError: () => errors++ });
});

afterEach(() => {
  cache.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A write the way the keys CLI makes it: its own connection, committed and closed. */
function withStore<T>(fn: (s: KeyStore) => T): T {
  const store = KeyStore.open(file);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

describe('file identity', () => {
  it('names the file behind a path, null when missing, and tells a replaced file apart', () => {
    expect(fileIdentity(file)).toBeNull();
    expect(sameFile(null, null)).toBe(false);
    writeFileSync(file, 'a');
    const first = fileIdentity(file);
    expect(first).not.toBeNull();
    expect(sameFile(first, fileIdentity(file))).toBe(true);
    expect(sameFile(first, null)).toBe(false);
    writeFileSync(file, 'changed in place');
    expect(sameFile(first, fileIdentity(file))).toBe(true);
    copyFileSync(file, `${file}.new`);
    renameSync(`${file}.new`, file);
    expect(sameFile(first, fileIdentity(file))).toBe(false);
  });
});

describe('key cache', () => {
  it('refuses malformed keys without touching the file, and every key while there is no file', () => {
    expect(cache.verify('asum_short')).toEqual({ ok: false, reason: 'malformed' });
    expect(cache.verify(generateKey())).toEqual({ ok: false, reason: 'unknown' });
    expect(loads).toEqual([]);
  });

  it('picks up a file created after start, and a key created later, on the next request', () => {
    const { key: first, record } = withStore((s) => s.create('default', 'a'));
    expect(cache.verify(first)).toEqual({ ok: true, id: record.id, tier: 'default' });
    const { key: second, record: r2 } = withStore((s) => s.create('private', 'b'));
    expect(cache.verify(second)).toEqual({ ok: true, id: r2.id, tier: 'private' });
    expect(loads).toEqual(['opened', 'changed']);
  });

  it('does not reload while nothing changed', () => {
    const { key } = withStore((s) => s.create('private', ''));
    for (let i = 0; i < 50; i++) expect(cache.verify(key).ok).toBe(true);
    expect(loads).toEqual(['opened']);
  });

  it('applies a revocation on the next request', () => {
    const { key, record } = withStore((s) => s.create('private', ''));
    expect(cache.verify(key).ok).toBe(true);
    withStore((s) => s.revoke(record.id));
    expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('applies revocations on the next request one after another (the header change counter moves per commit)', () => {
    const made = Array.from({ length: 5 }, (_, i) => withStore((s) => s.create('default', `k${i}`)));
    for (const { key, record } of made) {
      expect(cache.verify(key).ok).toBe(true);
      withStore((s) => s.revoke(record.id));
      expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
    }
  });

  it('applies a revocation on the next request in a file switched to WAL (no counter move: data_version decides)', () => {
    const { key, record } = withStore((s) => s.create('default', 'wal'));
    const writer = new Database(file);
    try {
      writer.pragma('journal_mode = WAL');
      expect(cache.verify(key).ok).toBe(true);
      // The writer stays open, so its commit sits in the WAL and the main file's header is not rewritten.
      writer.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(new Date().toISOString(), record.id);
      expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
    } finally {
      writer.close();
    }
  });

  it('follows a replaced file: revocation in it, and a key that only the new file holds', () => {
    const { key, record } = withStore((s) => s.create('private', ''));
    expect(cache.verify(key).ok).toBe(true);
    copyFileSync(file, path.join(dir, 'k'));
    renameSync(path.join(dir, 'k'), file);
    withStore((s) => s.revoke(record.id));
    expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
    const { key: fresh } = withStore((s) => s.create('default', ''));
    expect(cache.verify(fresh)).toMatchObject({ ok: true, tier: 'default' });
    expect(loads).toContain('replaced');
  });

  it('follows a swap to an older file whose data_version could equal ours (identity, not the counter, decides)', () => {
    const { key: a } = withStore((s) => s.create('private', ''));
    const other = path.join(dir, 'other.sqlite');
    const otherStore = KeyStore.open(other);
    const { key: b } = otherStore.create('private', '');
    otherStore.close();
    expect(cache.verify(a).ok).toBe(true);
    renameSync(other, file);
    expect(cache.verify(a)).toEqual({ ok: false, reason: 'unknown' });
    expect(cache.verify(b).ok).toBe(true);
  });

  it('forgets every key when the file is removed', () => {
    const { key } = withStore((s) => s.create('private', ''));
    expect(cache.verify(key).ok).toBe(true);
    rmSync(file);
    expect(cache.verify(key)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('treats an unreadable file as holding no key, reports it once, and reads it when fixed (retried after 1 s)', () => {
    let t = 0;
    cache = new KeyCache(file, { onError: () => errors++ }, () => t);
    writeFileSync(file, 'not a database at all, just text that is long enough to look like a header'.repeat(20));
    expect(cache.verify(generateKey())).toEqual({ ok: false, reason: 'unknown' });
    expect(cache.verify(generateKey())).toEqual({ ok: false, reason: 'unknown' });
    expect(errors).toBe(1);
    rmSync(file);
    const { key } = withStore((s) => s.create('private', ''));
    // A new file may reuse the broken one's inode number, so identity alone cannot tell: the retry does.
    t += 1000;
    expect(cache.verify(key).ok).toBe(true);
  });

  it('sees `npm run keys -- revoke` after the file was swapped under it (the CLI as a separate process)', async () => {
    const { key, record } = withStore((s) => s.create('private', ''));
    expect(cache.verify(key).ok).toBe(true);
    copyFileSync(file, path.join(dir, 'k'));
    renameSync(path.join(dir, 'k'), file);
    const run = promisify(execFile);
    await run(process.execPath, ['--import', 'tsx', 'src/keys/addrsum-keys.ts', 'revoke', record.id], {
      env: { ...process.env, ADDRSUM_DATA_DIR: dir, ADDRSUM_CONFIG: '' },
      timeout: 60_000,
    });
    expect(cache.verify(key)).toEqual({ ok: false, reason: 'revoked' });
  }, 90_000);
});
