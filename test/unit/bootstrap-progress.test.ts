/**
 * What an operator reads while a bootstrap runs (indexer/bootstrap.ts): progress lines while the file is
 * read, then while the aggregates are written, each with a share done that only grows and an ETA.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { verifyAggregates } from '../../src/store/sqlite/verify.js';
import { loadSnapshot } from '../../indexer/bootstrap.js';
import { SnapshotFile } from '../../indexer/snapshot-reader.js';
import { Rng } from '../support/blocks.js';
import { writeCoreSnapshot, type GroupIn } from '../support/snapshot-coins.js';

const dir = mkdtempSync(join(tmpdir(), 'addrsum-bootprogress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bootstrap progress lines', () => {
  it('reports the read, then the aggregates with a growing share and an ETA', async () => {
    const rng = new Rng(41);
    // 12,000 distinct scripts: progress is checked every 4,096 rows.
    const groups: GroupIn[] = Array.from({ length: 12_000 }, (_, i) => ({
      txid: rng.bytes(32),
      outputs: [
        {
          vout: 0,
          coin: { height: 10 + (i % 90), coinbase: false, value: 1000 + i, script: Buffer.concat([Buffer.from([0, 20]), rng.bytes(20)]) },
        },
      ],
    })).sort((a, b) => Buffer.compare(a.txid, b.txid));
    const base = Buffer.alloc(32, 0x5a);
    const path = join(dir, 'utxo.dat');
    writeCoreSnapshot(path, 'fabfb5da', base, groups);
    const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
    try {
      const lines: { obj: Record<string, unknown>; msg: string }[] = [];
      let clock = 0;
      const snap = { file: SnapshotFile.open(path, 'BTC', 'regtest'), height: 100, hash: base, prevHash: Buffer.alloc(32) };
      await loadSnapshot(
        snap,
        new SqliteIndexWriter(store, 'BTC', 'regtest'),
        { info: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) },
        {
          progressEveryMs: 0,
          now: () => (clock += 7),
        },
      );
      expect(verifyAggregates(store.db).differenceCount).toBe(0);
      const reading = lines.filter((l) => / coins read /.test(l.msg));
      const aggregates = lines.filter((l) => /^bootstrap: aggregates /.test(l.msg));
      expect(reading.length).toBeGreaterThan(0);
      expect(aggregates.map((l) => l.obj.scripts)).toEqual([4096, 8192]);
      const percents = aggregates.map((l) => l.obj.percent as number);
      expect(percents[0]).toBeGreaterThan(20);
      expect(percents[1]).toBeGreaterThan(percents[0]!);
      expect(percents[1]).toBeLessThan(100);
      for (const l of aggregates) {
        expect(l.msg).toMatch(/^bootstrap: aggregates \d+\.\d% written \(\d+ scripts\), ETA \d+:\d\d:\d\d$/);
        expect(l.obj.etaSeconds).toBeGreaterThanOrEqual(0);
      }
      // They come between the phase lines that bracket the aggregates.
      const at = (re: RegExp): number => lines.findIndex((l) => re.test(l.msg));
      expect(at(/^bootstrap: building aggregates$/)).toBeLessThan(at(/^bootstrap: aggregates /));
      expect(at(/^bootstrap: committing$/)).toBeGreaterThan(lines.indexOf(aggregates[1]!));
    } finally {
      store.close();
    }
  });
});
