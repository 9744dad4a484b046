/**
 * The decoder's per-script sums (indexer/script-sums.ts) against a plain Map: every distinct key once,
 * ascending, with the sum and count of its records, whatever the keys share. Keys equal in their first
 * 10 bytes (bucket and sort prefix both collide) take the full-key path.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RECORD_BYTES, ScriptSpill, SUM_ROW_BYTES, sumPartition, sqliteTempDir } from '../../indexer/script-sums.js';
import { Rng } from '../support/blocks.js';

const dir = mkdtempSync(join(tmpdir(), 'addrsum-sums-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Record = { key: Buffer; value: number };

/** The expected rows: "key-hex,balance,count", ascending by key. */
function expected(records: Record[]): string[] {
  const by = new Map<string, [number, number]>();
  for (const r of records) {
    const k = r.key.toString('hex');
    const s = by.get(k) ?? [0, 0];
    by.set(k, [s[0] + r.value, s[1] + 1]);
  }
  return [...by.keys()].sort().map((k) => `${k},${by.get(k)![0]},${by.get(k)![1]}`);
}

function decode(rows: Buffer): string[] {
  const out: string[] = [];
  const aligned = Buffer.from(rows);
  const values = new Float64Array(aligned.buffer, aligned.byteOffset, aligned.length / 8);
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
  for (let at = 0; at < aligned.length; at += SUM_ROW_BYTES) {
    out.push(`${aligned.subarray(at, at + 16).toString('hex')},${values[(at + 16) / 8]},${words[(at + 24) / 4]}`);
  }
  return out;
}

function recordsOf(rng: Rng, n: number, firstByte: number | null): Record[] {
  const keys: Buffer[] = [];
  const out: Record[] = [];
  for (let i = 0; i < n; i++) {
    let key: Buffer;
    const pick = rng.int(10);
    if (keys.length > 0 && pick < 4) key = keys[rng.int(keys.length)]!;
    else if (keys.length > 0 && pick < 6) {
      // Same first 10 bytes as an existing key (same bucket, same sort prefix), different after.
      key = Buffer.from(keys[rng.int(keys.length)]!);
      key.set(rng.bytes(6), 10);
    } else key = rng.bytes(16);
    if (firstByte !== null) key[0] = firstByte;
    keys.push(key);
    out.push({ key, value: rng.int(2 ** 40) + (rng.int(2) === 0 ? 2 ** 50 : 0) });
  }
  return out;
}

describe('script sums', () => {
  it('sums one partition by full key, prefix collisions and reuse included', () => {
    const rng = new Rng(31);
    for (const n of [0, 1, 2, 17, 5000]) {
      const records = recordsOf(rng, n, 0x42);
      const buf = Buffer.alloc(n * RECORD_BYTES);
      const values = new Float64Array(buf.buffer, buf.byteOffset, buf.length / 8);
      records.forEach((r, i) => {
        r.key.copy(buf, i * RECORD_BYTES);
        values[(i * RECORD_BYTES + 16) / 8] = r.value;
      });
      const want = expected(records);
      // Also from a slice at an odd offset, as a caller may hold one.
      const odd = Buffer.alloc(buf.length + 1);
      buf.copy(odd, 1);
      for (const input of [buf, odd.subarray(1)]) {
        const { rows, count } = sumPartition(input);
        expect(count).toBe(want.length);
        expect(decode(rows)).toEqual(want);
      }
    }
  });

  it('spills across partitions and gives every script once, ascending; nothing is left on disk', () => {
    const rng = new Rng(32);
    const records = recordsOf(rng, 40_000, null);
    const spill = new ScriptSpill(dir);
    try {
      expect(readdirSync(dir)).toEqual([]);
      const batch = Buffer.alloc(40);
      for (const r of records) {
        r.key.copy(batch, 7);
        spill.add(batch, 7, r.value);
      }
      const got: string[] = [];
      for (const { rows, count } of spill.sums()) {
        expect(rows.length).toBe(count * SUM_ROW_BYTES);
        got.push(...decode(rows));
      }
      expect(got).toEqual(expected(records));
    } finally {
      spill.close();
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('spills where SQLite puts its temp files', () => {
    expect(sqliteTempDir({ SQLITE_TMPDIR: dir })).toBe(dir);
    expect(sqliteTempDir({ SQLITE_TMPDIR: join(dir, 'missing'), TMPDIR: dir })).toBe(dir);
    expect(['/var/tmp', '/usr/tmp', '/tmp']).toContain(sqliteTempDir({}));
  });
});
