import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { base62, generateKey, isWellFormedKey, KEY_BODY_LENGTH, KEY_PREFIX, keyDigest } from '../../src/store/keys/key-format.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { KeyCache } from '../../src/store/sqlite/key-cache.js';

let dir: string;
let file: string;
let store: KeyStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'addrsum-keys-'));
  file = path.join(dir, 'nested', 'keys.sqlite');
  store = KeyStore.open(file);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('key format', () => {
  it('is the fixed prefix and 43 base62 characters carrying 256 random bits', () => {
    expect(KEY_PREFIX).toBe('asum_');
    expect(KEY_BODY_LENGTH).toBe(43);
    // 62^43 ≥ 2^256 > 62^42: 43 characters are exactly enough for 32 bytes.
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    expect(42 * Math.log2(62)).toBeLessThan(256);
    const keys = Array.from({ length: 200 }, generateKey);
    for (const key of keys) {
      expect(key).toMatch(/^asum_[0-9A-Za-z]{43}$/);
      expect(isWellFormedKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
    // Every body character position varies across keys (no constant padding beyond chance).
    const distinctFirst = new Set(keys.map((k) => k[5]));
    expect(distinctFirst.size).toBeGreaterThan(1);
    const chars = new Set(keys.join('').slice(5));
    expect(chars.size).toBeGreaterThan(55);
  });

  it('encodes base62 exactly (a bijection on 32 bytes)', () => {
    expect(base62(new Uint8Array(32), 43)).toBe('0'.repeat(43));
    expect(base62(Uint8Array.of(61), 2)).toBe('0z');
    expect(base62(Uint8Array.of(62), 2)).toBe('10');
    expect(base62(new Uint8Array(32).fill(255), 43)).toMatch(/^[1-9A-Za-z][0-9A-Za-z]{42}$/);
    expect(() => base62(Uint8Array.of(255, 255), 2)).toThrow(RangeError);
  });

  it('refuses anything else before any lookup', () => {
    const key = generateKey();
    for (const bad of [
      '',
      'asum_',
      key.slice(0, -1),
      `${key}0`,
      key.replace('asum_', 'ASUM_'),
      `${key.slice(0, -1)}-`,
      ` ${key}`,
      `${key}, ${key}`,
    ]) {
      expect(isWellFormedKey(bad), bad).toBe(false);
    }
  });
});

describe('key store', () => {
  it('stores only SHA-256 digests: the key text appears nowhere in the file', () => {
    const created = Array.from({ length: 5 }, (_, i) => store.create(i % 2 ? 'default' : 'private', `label ${i}`));
    store.close();
    const bytes = readFileSync(file);
    for (const { key } of created) {
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(KEY_PREFIX.length)))).toBe(false);
      expect(bytes.includes(keyDigest(key))).toBe(true);
    }
    store = KeyStore.open(file);
  });

  it('lists keys without secrets, newest last', () => {
    const a = store.create('private', 'first', new Date('2025-01-01T00:00:00Z'));
    const b = store.create('default', '', new Date('2025-01-02T00:00:00Z'));
    const list = store.list();
    expect(list).toEqual([
      { id: a.record.id, tier: 'private', label: 'first', createdAt: '2025-01-01T00:00:00.000Z', revokedAt: null },
      { id: b.record.id, tier: 'default', label: '', createdAt: '2025-01-02T00:00:00.000Z', revokedAt: null },
    ]);
    expect(JSON.stringify(list)).not.toContain(a.key.slice(5));
    expect(a.record.id).toMatch(/^key_[0-9a-f]{12}$/);
  });

  it('revokes once, remembers when, and knows unknown ids', () => {
    const { record } = store.create('private', '');
    expect(store.revoke(record.id, new Date('2025-02-01T00:00:00Z'))).toEqual({ outcome: 'revoked', at: '2025-02-01T00:00:00.000Z' });
    expect(store.revoke(record.id)).toEqual({ outcome: 'already', at: '2025-02-01T00:00:00.000Z' });
    expect(store.revoke('key_nope')).toEqual({ outcome: 'unknown' });
    expect(store.list()[0]?.revokedAt).toBe('2025-02-01T00:00:00.000Z');
  });

  it('opens read-only for the API, and not at all before the file exists', () => {
    expect(() => KeyStore.openReadonly(path.join(dir, 'missing.sqlite'))).toThrow();
    const reader = KeyStore.openReadonly(file);
    try {
      const { key } = store.create('default', '');
      expect(reader.findByDigest(keyDigest(key))?.tier).toBe('default');
    } finally {
      reader.close();
    }
  });
});

describe("key verifier (the API's key cache over keys.sqlite)", () => {
  it('accepts active keys with their tier and id, refuses malformed, unknown and revoked ones', () => {
    const verifier = new KeyCache(file);
    try {
      const low = store.create('default', '');
      const high = store.create('private', '');
      expect(verifier.verify(low.key)).toEqual({ ok: true, id: low.record.id, tier: 'default' });
      expect(verifier.verify(high.key)).toEqual({ ok: true, id: high.record.id, tier: 'private' });
      expect(verifier.verify('asum_short')).toEqual({ ok: false, reason: 'malformed' });
      expect(verifier.verify(generateKey())).toEqual({ ok: false, reason: 'unknown' });
      store.revoke(high.record.id);
      // The very next check sees the revocation (data_version moved).
      expect(verifier.verify(high.key)).toEqual({ ok: false, reason: 'revoked' });
    } finally {
      verifier.close();
    }
  });

  it('treats every key as unknown while keys.sqlite does not exist', () => {
    const verifier = new KeyCache(path.join(dir, 'absent', 'keys.sqlite'));
    expect(verifier.verify(generateKey())).toEqual({ ok: false, reason: 'unknown' });
  });

  it('does not read the file for malformed input', () => {
    let loads = 0;
    const verifier = new KeyCache(file, { onLoad: () => loads++ });
    try {
      verifier.verify('x'.repeat(10_000));
      verifier.verify(`asum_${'!'.repeat(43)}`);
      expect(loads).toBe(0);
      verifier.verify(generateKey());
      expect(loads).toBe(1);
    } finally {
      verifier.close();
    }
  });
});
