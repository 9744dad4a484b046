/**
 * Bitcoin Core format: a file our writer produced is read by Bitcoin Core's own reader
 * (test/fixtures/utxo-tools/utxo_to_sqlite.py, run with python3) and by our loader; both coin sets are
 * compared row by row — every script kind, compressed and uncompressed P2PK included.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/sqlite-driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/chain/byte-reader.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { isUnspendable } from '../../src/chain/script.js';
import { readRecord } from '../../src/chain/snapshot-format.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { verifyAggregates, verifyChain } from '../../src/store/sqlite/verify.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import { Rng } from '../support/blocks.js';
import { coinGroups, writeCoreSnapshot } from '../support/snapshot-coins.js';

const READER = join(import.meta.dirname, '../fixtures/utxo-tools/utxo_to_sqlite.py');
const python = spawnSync('python3', ['--version']);

interface PyRow {
  txid: string;
  vout: number;
  value: number;
  coinbase: number;
  height: number;
  scriptpubkey: string;
}

describe('Core-format snapshot vs Bitcoin Core utxo_to_sqlite.py', () => {
  it('has python3 to run it', () => {
    expect(python.status, 'python3 is not installed: apt-get install python3').toBe(0);
  });

  const dir = mkdtempSync(join(tmpdir(), 'addrsum-snapcore-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('both readers see the same coins, row by row', { timeout: 60_000 }, () => {
    const rng = new Rng(12);
    // The python reader refuses scripts above 10,000 bytes (it asserts), as Core never writes them.
    const groups = coinGroups(rng, 400);
    const file = join(dir, 'utxo.dat');
    const base = rng.bytes(32);
    const bytes = writeCoreSnapshot(file, 'fabfb5da', base, groups);

    const out = join(dir, 'py.sqlite');
    const run = spawnSync('python3', [READER, file, out], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const py = new Database(out, { readonly: true });
    const pyRows = py.prepare('SELECT txid, vout, value, coinbase, height, scriptpubkey FROM utxos').all() as PyRow[];
    py.close();
    const total = groups.reduce((n, g) => n + g.outputs.length, 0);
    expect(pyRows.length).toBe(total);

    // Our decoder, coin by coin: exactly Core's scripts, amounts, heights, coinbase flags.
    const r = new ByteReader(bytes, 51);
    const ours: PyRow[] = [];
    while (r.remaining > 0) {
      for (const o of readRecord(r, 'core-v2', total - ours.length)) {
        ours.push({
          txid: toDisplayHex(o.txid),
          vout: o.vout,
          value: o.coin.value,
          coinbase: o.coin.coinbase ? 1 : 0,
          height: o.coin.height,
          scriptpubkey: o.coin.script.toString('hex'),
        });
      }
    }
    expect(ours).toEqual(pyRows);
    const kinds = new Set(pyRows.map((p) => p.scriptpubkey.slice(0, 4)));
    for (const prefix of ['76a9', 'a914', '2102', '2103', '4104', '0014', '0020', '5120', '6a04']) expect(kinds).toContain(prefix);

    // Our loader into an index: every spendable python row is a utxos row with its script key; the
    // unspendable ones (OP_RETURN) are skipped, as block sync skips them.
    const store = ChainStore.open(join(dir, 'btc.sqlite'), { chain: 'BTC', network: 'regtest' });
    try {
      const snap = SnapshotFile.open(file, 'BTC', 'regtest');
      store.loadSnapshot(() => snap.rows(), { height: 900_000, hash: base, prevHash: Buffer.alloc(32, 1) });
      const loaded = store.db.prepare('SELECT outpoint, script_key, value, height FROM utxos').all() as {
        outpoint: Buffer;
        script_key: Buffer;
        value: number;
        height: number;
      }[];
      const got = new Map(
        loaded.map((l) => {
          const { txid, vout } = decodeOutpoint(l.outpoint);
          return [`${toDisplayHex(txid)}:${vout}`, l];
        }),
      );
      const spendable = pyRows.filter((p) => !isUnspendable(Buffer.from(p.scriptpubkey, 'hex')));
      expect(spendable.length).toBeLessThan(pyRows.length);
      expect(loaded.length).toBe(spendable.length);
      for (const p of spendable) {
        const row = got.get(`${p.txid}:${p.vout}`);
        expect(row, `${p.txid}:${p.vout}`).toBeDefined();
        expect(row!.script_key.equals(scriptKey(Buffer.from(p.scriptpubkey, 'hex')))).toBe(true);
        expect(row!.value).toBe(p.value);
        expect(row!.height).toBe(p.height);
      }
      expect(snap.stats.skipped).toBe(pyRows.length - spendable.length);
      expect(verifyAggregates(store.db).differenceCount).toBe(0);
      expect(verifyChain(store.db)).toEqual([]);
      expect(store.totals()).toEqual({
        utxos: spendable.length,
        amount: BigInt(spendable.reduce((a, p) => a + p.value, 0)),
        scripts: new Set(spendable.map((p) => p.scriptpubkey)).size,
      });
    } finally {
      store.close();
    }
  });
});
