/**
 * A snapshot that holds one outpoint twice is malformed: the bootstrap refuses it as DUPLICATE_COIN, the
 * code the writer port gives whatever the engine (the SQLite engine's constraint error stays inside it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotError } from '../../src/chain/snapshot-format.js';
import { openSqliteWriter } from '../../src/store/sqlite/engine.js';
import { loadSnapshot } from '../../indexer/bootstrap.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import { Rng } from '../support/blocks.js';
import { writeCoreSnapshot, type GroupIn } from '../support/snapshot-coins.js';

const dir = mkdtempSync(join(tmpdir(), 'addrsum-bootdup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a snapshot with an outpoint twice', () => {
  it('is refused as DUPLICATE_COIN and leaves no index', async () => {
    const rng = new Rng(43);
    const group = (txid: Buffer): GroupIn => ({
      txid,
      outputs: [
        { vout: 0, coin: { height: 10, coinbase: false, value: 5000, script: Buffer.concat([Buffer.from([0, 20]), rng.bytes(20)]) } },
      ],
    });
    const twice = rng.bytes(32);
    const groups = [group(rng.bytes(32)), group(twice), group(twice), group(rng.bytes(32))].sort((a, b) => Buffer.compare(a.txid, b.txid));
    const base = Buffer.alloc(32, 0x5b);
    const path = join(dir, 'utxo.dat');
    writeCoreSnapshot(path, 'fabfb5da', base, groups);
    const writer = openSqliteWriter(join(dir, 'btc.sqlite'), { chain: 'BTC', network: 'regtest' });
    try {
      const snap = { file: SnapshotFile.open(path, 'BTC', 'regtest'), height: 100, hash: base, prevHash: Buffer.alloc(32) };
      const err = await loadSnapshot(snap, writer, { info: () => undefined }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SnapshotError);
      expect((err as SnapshotError).code).toBe('DUPLICATE_COIN');
      expect(await writer.tip()).toBeNull();
    } finally {
      await writer.close();
    }
  });
});
