/**
 * A snapshot load's progress as readers see it (bulk-load.ts BOOTSTRAP_PROGRESS_KEY): while the load
 * runs, a ChainReader on the file reads the phase and the coins of the last committed chunk out of the
 * file's total; the API's /ready row carries it with a reason that says so; it is gone once the load
 * commits, and after a load that failed and was discarded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { SqliteIndexReader } from '../../src/store/sqlite/engine.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { chainState } from '../../src/serving/chain-state.js';
import { chainParams } from '../../src/chain/params.js';
import type { ChainHandle } from '../../src/serving/chain-handle.js';
import type { BootstrapProgress } from '../../src/store/index-model.js';

const COINS = 1_000;
const CHUNK = 100;
const base = { height: 500, hash: Buffer.alloc(32, 0xbb), prevHash: Buffer.alloc(32, 0xba) };
const txid = (n: number): Buffer => {
  const t = Buffer.alloc(32);
  t.writeUInt32BE(n + 1, 28);
  return t;
};
const script = (n: number): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(16), Buffer.from([0, 0, n >> 8, n & 255])]);

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function fresh(): { file: string; store: ChainStore } {
  const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-bootstrap-status-'));
  dirs.push(dir);
  const file = path.join(dir, 'ltc.sqlite');
  return { file, store: ChainStore.open(file, { chain: 'LTC', network: 'regtest' }) };
}

/** Ascending coins (the append path); `seen(i)` runs before coin i is yielded. */
function* coins(seen: (i: number) => void, failAt = -1): Generator<unknown[]> {
  for (let i = 0; i < COINS; i++) {
    seen(i);
    if (i === failAt) throw new Error('the file is truncated here');
    yield [outpointKey(txid(i), 0), scriptKey(script(i % 50)), 1000 + i, 100 + (i % 300)];
  }
}

describe('snapshot load progress for readers', () => {
  it('is readable while the load runs, as of the last committed chunk, and gone after it', () => {
    const { file, store } = fresh();
    const reader = ChainReader.open(file);
    const seen: (BootstrapProgress | null)[] = [];
    try {
      store.loadSnapshot(() => coins((i) => (i % 250 === 0 ? seen.push(reader.bootstrap()) : undefined)), base, {
        chunkCoins: CHUNK,
        totalCoins: COINS,
      });
      // Before the first commit nothing is visible; then the coins of the chunks committed so far. A chunk
      // commits when the next txid arrives, so before coin 500 the chunk 400–499 is still open.
      expect(seen[0]).toBeNull();
      expect(seen.slice(1)).toEqual([200, 400, 700].map((coins) => ({ phase: 'reading coins in txid order', coins, total: COINS })));
      expect(reader.status()).not.toBeNull();
      expect(reader.bootstrap()).toBeNull();
    } finally {
      reader.close();
      store.close();
    }
  });

  it("puts the load in /ready's row while nothing is indexed", async () => {
    const { file, store } = fresh();
    const reader = ChainReader.open(file);
    const handle = {
      params: chainParams('LTC', 'regtest'),
      configured: true,
      acquire: () => ({ ok: true, source: new SqliteIndexReader(reader) }),
    } as unknown as ChainHandle;
    const states: Promise<unknown>[] = [];
    try {
      store.loadSnapshot(
        () => coins((i) => (i === 600 ? states.push(chainState(handle, { syncLagBlocks: 1 }, Date.now())) : undefined)),
        base,
        {
          chunkCoins: CHUNK,
          totalCoins: COINS,
        },
      );
      expect(await Promise.all(states)).toEqual([
        expect.objectContaining({ kind: 'empty', bootstrap: { phase: 'reading coins in txid order', coins: 500, total: COINS } }),
      ]);
    } finally {
      reader.close();
      store.close();
    }
  });

  it('is gone after a load that failed and was discarded', () => {
    const { file, store } = fresh();
    const reader = ChainReader.open(file);
    let during: BootstrapProgress | null = null;
    try {
      expect(() =>
        store.loadSnapshot(() => coins((i) => (i === 450 ? (during = reader.bootstrap()) : undefined), 700), base, {
          chunkCoins: CHUNK,
          totalCoins: COINS,
        }),
      ).toThrow(/truncated/);
      expect(during).toEqual({ phase: 'reading coins in txid order', coins: 400, total: COINS });
      expect(reader.bootstrap()).toBeNull();
      expect(reader.status()).toBeNull();
    } finally {
      reader.close();
      store.close();
    }
  });
});
