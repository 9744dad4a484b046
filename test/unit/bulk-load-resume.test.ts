/**
 * A snapshot load commits its append in chunks (src/store/sqlite/bulk-load.ts). What a kill leaves — the
 * database and WAL files as they are on disk in the middle of the load — is resumed by loading the
 * same snapshot again and ends exactly as an uninterrupted load; another snapshot discards it; block
 * sync refuses to start on it; an error discards what was committed; a file found out of order after
 * some chunks still sorts to the same tables. The script sums a decoder gives are committed in chunks
 * too, and a load killed among them resumes to the tables a GROUP BY gives.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { verifyAggregates } from '../../src/store/sqlite/verify.js';
import { Rng, linkedBlock } from '../support/blocks.js';
import type { LoadPhase } from '../../src/store/index-model.js';

const BASE = { height: 900_000, hash: Buffer.alloc(32, 0xb0), prevHash: Buffer.alloc(32, 0xaf) };
const OTHER_BASE = { height: 900_100, hash: Buffer.alloc(32, 0xc0), prevHash: Buffer.alloc(32, 0xbf) };
const CHUNK = 7;

const dir = mkdtempSync(join(tmpdir(), 'addrsum-loadresume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 60 txids in ascending order with 1–4 outputs each (vouts 255 and 256 in one), over 20 scripts. */
function snapshotRows(seed: number): unknown[][] {
  const rng = new Rng(seed);
  const txids = Array.from({ length: 60 }, () => rng.bytes(32)).sort(Buffer.compare);
  return txids.flatMap((txid, t) => {
    const vouts = t === 30 ? [255, 256] : Array.from({ length: 1 + rng.int(4) }, (_, i) => i);
    return vouts.map((vout) => [outpointKey(txid, vout), scriptKey(Buffer.from([0x51, rng.int(20)])), 1000 + rng.int(1_000_000), 100 + t]);
  });
}

const open = (path = ':memory:'): ChainStore => ChainStore.open(path, { chain: 'BTC', network: 'regtest' });

function dump(store: ChainStore): string[][] {
  const rows = (sql: string): string[] =>
    (store.db.prepare(sql).raw().all() as unknown[][]).map((r) =>
      r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join(','),
    );
  return [
    rows('SELECT outpoint, script_key, value, height FROM utxos ORDER BY outpoint'),
    rows('SELECT script_key, balance, utxo_count FROM scripts ORDER BY script_key'),
    rows(
      "SELECT key, value FROM meta WHERE key NOT IN ('schema_version', 'chain', 'network', 'writer_pid', 'writer_started_at') ORDER BY key",
    ),
    rows('SELECT height, hash, prev_hash FROM blocks ORDER BY height'),
  ];
}

function cleanLoad(rows: unknown[][], base = BASE): string[][] {
  const store = open();
  try {
    store.loadSnapshot(() => rows, base, { chunkCoins: CHUNK });
    expect(verifyAggregates(store.db).differenceCount).toBe(0);
    return dump(store);
  } finally {
    store.close();
  }
}

/** The per-script sums of `rows` as a decoder gives them: [script_key, balance, utxo_count], ascending by key. */
function sumsOf(rows: unknown[][]): unknown[][] {
  const by = new Map<string, [number, number]>();
  for (const r of rows) {
    const k = (r[1] as Buffer).toString('hex');
    const s = by.get(k) ?? [0, 0];
    by.set(k, [s[0] + (r[2] as number), s[1] + 1]);
  }
  return [...by.keys()].sort().map((k) => [Buffer.from(k, 'hex'), by.get(k)![0], by.get(k)![1]]);
}

let imageSeq = 0;

/**
 * Loads `rows` into a file-backed index and, when the load has read `at` coins (or `at` script sums,
 * with `inSums`), copies the database and its WAL as they are on disk: what a SIGKILL at that instant
 * would leave. Returns the copy's path.
 */
function killedImage(rows: unknown[][], at: number, inSums = false): string {
  const live = join(dir, `live-${++imageSeq}.sqlite`);
  const image = join(dir, `image-${imageSeq}.sqlite`);
  const store = open(live);
  const copying = function* (items: unknown[][]): Generator<unknown[]> {
    for (const [i, item] of items.entries()) {
      if (i === at) {
        copyFileSync(live, image);
        if (existsSync(`${live}-wal`)) copyFileSync(`${live}-wal`, `${image}-wal`);
      }
      yield item;
    }
  };
  try {
    if (inSums) store.loadSnapshot(() => rows, BASE, { chunkCoins: CHUNK, sums: () => copying(sumsOf(rows)) });
    else store.loadSnapshot(() => copying(rows), BASE, { chunkCoins: CHUNK });
  } finally {
    store.close();
  }
  return image;
}

const count = (store: ChainStore, sql: string): number => store.db.prepare(sql).pluck().get() as number;

describe('snapshot load in committed chunks', () => {
  const rows = snapshotRows(31);
  const reference = cleanLoad(rows);

  it('resumes a killed load after its last committed txid and ends exactly as an uninterrupted load', () => {
    expect(rows.length).toBeGreaterThan(100);
    const txidOf = (row: unknown[]): string => (row[0] as Buffer).subarray(0, 32).toString('hex');
    for (let at = 20; at < rows.length; at += 13) {
      const store = open(killedImage(rows, at));
      try {
        // Committed chunks only: whole txids, fewer coins than were read, and no tip.
        const kept = count(store, 'SELECT COUNT(*) FROM utxos');
        expect(kept, `killed at ${at}`).toBeGreaterThan(0);
        expect(kept, `killed at ${at}`).toBeLessThanOrEqual(at);
        expect(txidOf(rows[kept]!), `killed at ${at}: chunks end at a txid boundary`).not.toBe(txidOf(rows[kept - 1]!));
        expect(store.tip()).toBeNull();
        expect(() => store.refusePendingBootstrap()).toThrow(expect.objectContaining({ code: 'BOOTSTRAP_PENDING' }));
        const resumed: Buffer[] = [];
        const phases: LoadPhase[] = [];
        store.loadSnapshot(() => rows, BASE, {
          chunkCoins: CHUNK,
          onResume: (after) => resumed.push(after),
          onPhase: (p) => phases.push(p),
        });
        expect(resumed, `killed at ${at}`).toHaveLength(1);
        expect(phases).toEqual(['reading coins in txid order', 'building aggregates', 'committing']);
        expect(dump(store), `killed at ${at}`).toEqual(reference);
        expect(() => store.refusePendingBootstrap()).not.toThrow();
      } finally {
        store.close();
      }
    }
  });

  it('resumes a load killed while it writes the script sums, and ends exactly as a GROUP BY would', () => {
    const scripts = sumsOf(rows).length;
    expect(scripts).toBeGreaterThan(2 * CHUNK);
    for (const at of [3, CHUNK + 1, 2 * CHUNK + 1, scripts - 1]) {
      const store = open(killedImage(rows, at, true));
      try {
        // The committed chunks of sums only (the first one also commits the coins' last chunk), and no tip.
        const utxos = count(store, 'SELECT COUNT(*) FROM utxos');
        if (at < CHUNK) expect(utxos, `killed at ${at}`).toBeLessThan(rows.length);
        else expect(utxos, `killed at ${at}`).toBe(rows.length);
        expect(count(store, 'SELECT COUNT(*) FROM scripts'), `killed at ${at}`).toBe(Math.floor(at / CHUNK) * CHUNK);
        expect(store.tip()).toBeNull();
        expect(() => store.refusePendingBootstrap()).toThrow(expect.objectContaining({ code: 'BOOTSTRAP_PENDING' }));
        const resumed: Buffer[] = [];
        store.loadSnapshot(() => rows, BASE, { chunkCoins: CHUNK, sums: () => sumsOf(rows), onResume: (after) => resumed.push(after) });
        expect(resumed, `killed at ${at}`).toHaveLength(1);
        expect(dump(store), `killed at ${at}`).toEqual(reference);
      } finally {
        store.close();
      }
    }
  });

  it('discards a killed load of another snapshot before loading this one', () => {
    const other = snapshotRows(32);
    const store = open(killedImage(other, 50));
    try {
      expect(count(store, 'SELECT COUNT(*) FROM utxos')).toBeGreaterThan(0);
      const discarded: Buffer[] = [];
      store.loadSnapshot(() => rows, OTHER_BASE, { chunkCoins: CHUNK, onDiscard: (h) => discarded.push(h) });
      expect(discarded).toEqual([BASE.hash]);
      expect(dump(store)).toEqual(cleanLoad(rows, OTHER_BASE));
    } finally {
      store.close();
    }
  });

  it('block sync does not start on a killed load', () => {
    const store = open(killedImage(rows, 50));
    try {
      const block = linkedBlock(0, Buffer.alloc(32), []);
      expect(() => store.applyBlocks([block])).toThrow(expect.objectContaining({ code: 'BOOTSTRAP_PENDING' }));
    } finally {
      store.close();
    }
  });

  it('an error after committed chunks leaves the empty index, and the next load starts afresh', () => {
    const store = open(join(dir, 'failing.sqlite'));
    try {
      const failing = function* (): Generator<unknown[]> {
        yield* rows.slice(0, 50);
        throw new Error('file ends early');
      };
      expect(() => store.loadSnapshot(failing, BASE, { chunkCoins: CHUNK })).toThrow('file ends early');
      expect(count(store, 'SELECT COUNT(*) FROM utxos')).toBe(0);
      expect(count(store, "SELECT COUNT(*) FROM meta WHERE key = 'bootstrap_base'")).toBe(0);
      const resumed: Buffer[] = [];
      store.loadSnapshot(() => rows, BASE, { chunkCoins: CHUNK, onResume: (after) => resumed.push(after) });
      expect(resumed).toEqual([]);
      expect(dump(store)).toEqual(reference);
    } finally {
      store.close();
    }
  });

  it('a file found out of order after committed chunks is sorted into the same tables', () => {
    const late = [...rows];
    [late[80], late[rows.length - 1]] = [late[rows.length - 1]!, late[80]!];
    const store = open(join(dir, 'late.sqlite'));
    try {
      const phases: LoadPhase[] = [];
      store.loadSnapshot(() => late, BASE, { chunkCoins: CHUNK, onPhase: (p) => phases.push(p) });
      expect(phases).toContain('reading and sorting coins');
      expect(dump(store)).toEqual(reference);
    } finally {
      store.close();
    }
  });
});
