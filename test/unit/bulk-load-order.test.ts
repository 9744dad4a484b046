/**
 * The two paths of a snapshot load (src/store/sqlite/bulk-load.ts), through the worker-thread decoder
 * (indexer/snapshot-stream.ts): a file in txid order is appended without a sort, one out of order
 * falls back to the sort — at its first coin or after thousands were appended — and every path gives
 * exactly the same tables. Vouts 255 and 256 of one txid (whose keys sort the other way round) load
 * whichever order the file has them in. The decoder's per-script sums equal the SQL GROUP BY.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { coreGroup, coreHeader, ltcHeader, ltcRecords } from '../../src/chain/snapshot-writer.js';
import type { ChainCode } from '../../src/chain/params.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import { verifyAggregates } from '../../src/store/sqlite/verify.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import { Rng } from '../support/blocks.js';
import { coinGroups, type GroupIn } from '../support/snapshot-coins.js';
import type { LoadPhase } from '../../src/store/index-model.js';

const BASE = { height: 900_000, hash: Buffer.alloc(32, 0xb0), prevHash: Buffer.alloc(32, 0xaf) };

const dir = mkdtempSync(join(tmpdir(), 'addrsum-loadorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileSeq = 0;
function write(chain: ChainCode, groups: GroupIn[]): string {
  const path = join(dir, `utxo-${++fileSeq}.dat`);
  const count = groups.reduce((n, g) => n + g.outputs.length, 0);
  const body = groups.map((g) => (chain === 'BTC' ? coreGroup(g.txid, g.outputs) : ltcRecords(g.txid, g.outputs)));
  const header = chain === 'BTC' ? coreHeader('fabfb5da', BASE.hash, count) : ltcHeader(BASE.hash, count, count);
  writeFileSync(path, Buffer.concat([header, ...body]));
  return path;
}

/** Loads `path` through the worker (aggregates from its sums, or from a GROUP BY when `sums` is false); returns the phases it went through and every row of the index. */
function load(chain: ChainCode, path: string, sums = true): { phases: LoadPhase[]; dump: string[][] } {
  const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
  try {
    const file = SnapshotFile.open(path, chain, 'regtest');
    const phases: LoadPhase[] = [];
    const source = file.loadSource();
    try {
      store.loadSnapshot(source.rows, BASE, { onPhase: (p) => phases.push(p), ...(sums && { sums: source.sums }) });
    } finally {
      source.close();
    }
    expect(verifyAggregates(store.db).differenceCount).toBe(0);
    const rows = (sql: string): string[] =>
      (store.db.prepare(sql).raw().all() as unknown[][]).map((r) =>
        r.map((v) => (Buffer.isBuffer(v) ? v.toString('hex') : String(v))).join(','),
      );
    return {
      phases,
      dump: [
        rows('SELECT outpoint, script_key, value, height FROM utxos ORDER BY outpoint'),
        rows('SELECT script_key, balance, utxo_count FROM scripts ORDER BY script_key'),
        rows("SELECT key, value FROM meta WHERE key NOT IN ('schema_version', 'chain', 'network') ORDER BY key"),
      ],
    };
  } finally {
    store.close();
  }
}

const byTxid = (a: GroupIn, b: GroupIn): number => Buffer.compare(a.txid, b.txid);
const SORTED: LoadPhase[] = ['reading coins in txid order', 'building aggregates', 'committing'];
const FELL_BACK: LoadPhase[] = ['reading coins in txid order', 'reading and sorting coins', 'building aggregates', 'committing'];

describe.each(['BTC', 'LTC'] as const)('%s snapshot load: append path and sorting fallback', (chain) => {
  const rng = new Rng(chain === 'BTC' ? 21 : 22);
  // Spendable scripts only would hide the unspendable skip; coinGroups mixes both, and vouts 255/256/65535/65536.
  const groups = coinGroups(rng, 3000);
  const pair = (vouts: number[]): GroupIn => ({
    txid: rng.bytes(32),
    outputs: vouts.map((vout, i) => ({
      vout,
      coin: { height: 100 + i, coinbase: false, value: 1000 + vout, script: Buffer.from([0x51]) },
    })),
  });
  groups.push(pair([255, 256]), pair([256, 255, 0]));
  const sorted = [...groups].sort(byTxid);

  it('appends a file in txid order without sorting, vouts 255 and 256 included', () => {
    const { phases, dump } = load(chain, write(chain, sorted));
    expect(phases).toEqual(SORTED);
    const outpoints = dump[0]!.map((r) => decodeOutpoint(Buffer.from(r.split(',')[0]!, 'hex')));
    for (const g of groups.slice(-2)) {
      for (const o of g.outputs) {
        expect(
          outpoints.some((p) => p.txid.equals(g.txid) && p.vout === o.vout),
          `vout ${o.vout}`,
        ).toBe(true);
      }
    }
    const ordered = [...dump[0]!].sort();
    expect(dump[0]).toEqual(ordered);
  });

  it('gives exactly the same tables from a file out of order, from its first coin or late in it, as a GROUP BY', () => {
    // The reference sums the scripts with SQL; every other load takes the worker's sums.
    const reference = load(chain, write(chain, sorted), false).dump;
    expect(load(chain, write(chain, sorted)).dump).toEqual(reference);
    const shuffled = [...groups];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const late = [...sorted];
    [late[late.length - 2], late[late.length - 1]] = [late[late.length - 1]!, late[late.length - 2]!];
    for (const file of [shuffled, late]) {
      const { phases, dump } = load(chain, write(chain, file));
      expect(phases).toEqual(FELL_BACK);
      expect(dump).toEqual(reference);
    }
    expect(reference[0]!.length).toBeGreaterThan(3000);
  });

  it('a duplicate outpoint in an ordered file is refused and leaves an empty index', () => {
    const dup = [...sorted.slice(0, 10), sorted[9]!, ...sorted.slice(10)];
    const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
    try {
      const file = SnapshotFile.open(write(chain, dup), chain, 'regtest');
      expect(() => store.loadSnapshot(file.loadSource().rows, BASE)).toThrow(
        expect.objectContaining({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }),
      );
      expect(store.tip()).toBeNull();
      expect(store.db.prepare('SELECT COUNT(*) FROM utxos').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('a truncated file fails through the worker with its own error and leaves an empty index', () => {
    const path = write(chain, sorted);
    const whole = readFileSync(path);
    writeFileSync(path, whole.subarray(0, whole.length - 10));
    const store = ChainStore.open(':memory:', { chain, network: 'regtest' });
    try {
      const file = SnapshotFile.open(path, chain, 'regtest');
      expect(() => store.loadSnapshot(file.loadSource().rows, BASE)).toThrow(expect.objectContaining({ code: 'TRUNCATED' }));
      expect(store.tip()).toBeNull();
      expect(store.db.prepare('SELECT COUNT(*) FROM utxos').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });
});
