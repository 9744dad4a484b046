/**
 * Disk budget: ≤ 100 bytes per UTXO, indexes and aggregates included, measured on a file of ~200k
 * synthetic UTXOs after VACUUM (page_count × page_size / UTXOs). Worst case for the aggregate table:
 * every UTXO pays its own script. Heights are moved to the 3-byte range real chains use; the undo
 * window is 1 block, since 288 blocks of undo are a rounding error against a real UTXO set but not
 * against 200 synthetic blocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { ChainBuilder, Rng, coinbaseTx, p2pkh, p2wpkh, spendTx, type Out } from '../support/blocks.js';
import type { BlockToApply } from '../../src/store/index-model.js';

const UTXOS = 200_000;

describe('disk per UTXO', () => {
  const dir = mkdtempSync(join(tmpdir(), 'addrsum-size-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`stays within 100 bytes per UTXO for ${UTXOS} UTXOs`, { timeout: 120_000 }, () => {
    const rng = new Rng(3);
    const store = ChainStore.open(join(dir, 'btc.sqlite'), { chain: 'BTC', network: 'mainnet', undoDepth: 1, cacheMiB: 64 });
    try {
      const c = new ChainBuilder(rng);
      store.applyBlocks([c.blockPaying(p2pkh(rng), 1)]);
      let batch: BlockToApply[] = [];
      for (let made = 0; made < UTXOS;) {
        const txs = [coinbaseTx([{ script: p2wpkh(rng), value: 312_500_000 }], rng.bytes(32))];
        made++;
        for (let t = 0; t < 1000 && made < UTXOS; t++) {
          const outs: Out[] = [];
          // Values spread over 546 sat … 10 BTC, as real outputs are (1 to 5 bytes each in SQLite).
          for (let o = 0; o < 2 && made < UTXOS; o++, made++) {
            outs.push({ script: made % 2 ? p2pkh(rng) : p2wpkh(rng), value: 546 + (rng.u32() % 10 ** (3 + (rng.u32() % 7))) });
          }
          txs.push(spendTx([], outs, { txid: rng.bytes(32) }));
        }
        batch.push(c.block(txs));
        if (batch.length === 20) {
          store.applyBlocks(batch);
          batch = [];
        }
      }
      store.applyBlocks(batch);
      expect(store.totals().utxos).toBe(UTXOS);
      store.db.exec('UPDATE utxos SET height = height + 800000');
      const fileBytes = (): number =>
        (store.db.pragma('page_count', { simple: true }) as number) * (store.db.pragma('page_size', { simple: true }) as number);
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      const beforeVacuum = fileBytes() / UTXOS;
      store.db.exec('VACUUM');
      const bytes = fileBytes();
      const perTable = store.db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY name').all() as {
        name: string;
        bytes: number;
      }[];
      const perUtxo = bytes / UTXOS;
      console.info(
        `bytes/UTXO: ${beforeVacuum.toFixed(1)} as written, ${perUtxo.toFixed(1)} after VACUUM (${perTable.map((t) => `${t.name} ${(t.bytes / UTXOS).toFixed(1)}`).join(', ')}); scripts: ${store.totals().scripts}`,
      );
      expect(perUtxo).toBeLessThanOrEqual(100);
    } finally {
      store.close();
    }
  });
});
