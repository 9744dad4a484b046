/**
 * A snapshot bootstrap seen from a streaming standby, where the load's chunks (utxos without its key)
 * replay as they commit. While a killed load is pending, a reader on the
 * standby shows its progress as one on the primary does; once it is resumed and done, the standby
 * answers as the primary, and its copy of utxos and scripts verifies clean.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { startStandby, waitForReplay } from '../../harness/postgres.js';
import { openPostgresReader, openPostgresVerifier } from '../../src/store/postgres/engine.js';
import { WriterChild } from './child-run.js';
import { expectedViews } from './expect-index.js';
import { CHAIN, writerOptions } from './open-index.js';
import { databaseUrl, type PostgresEngine } from './postgres-engine.js';
import { makeSnapshot } from './snapshot-gen.js';

const CHILD = fileURLToPath(new URL('./bootstrap-child.ts', import.meta.url));

export function postgresBootstrapStandby(engine: PostgresEngine): void {
  it('a standby shows a pending bootstrap as the primary does, and the bootstrapped index once done', async () => {
    const seed = 0xb00b;
    const chunk = 20;
    const snap = makeSnapshot(seed, 40);
    const index = await engine.create(CHAIN);
    const child = new WriterChild({ spec: index.child, writer: writerOptions(8), seed, height: 40, chunk, stallAt: 3 * chunk + 5 }, CHILD);
    try {
      await child.line((l) => l === `stall ${3 * chunk + 5}`);
    } finally {
      await child.kill();
    }
    const primary = await engine.primary();
    const standby = await startStandby(primary);
    const database = new URL(index.child.location).pathname.slice(1);
    const standbyUrl = databaseUrl(standby.url, database);
    const r = await index.openReader();
    const onStandby = await openPostgresReader(standbyUrl, CHAIN);
    try {
      await waitForReplay(primary, standby);
      const pending = await r.bootstrap();
      expect(pending).toMatchObject({ phase: 'reading coins in txid order', total: snap.rows.length });
      expect([await onStandby.bootstrap(), await onStandby.status(), await onStandby.summary(snap.scripts[0]!)]).toEqual([
        pending,
        null,
        null,
      ]);

      const w = await index.openWriter(writerOptions(8));
      try {
        await w.loadSnapshot(() => snap.rows, snap.base, { chunkCoins: chunk, sums: () => snap.sums, coinbases: () => snap.coinbases });
      } finally {
        await w.close();
      }
      await waitForReplay(primary, standby);
      const views = await onStandby.views(snap.scripts, true);
      expect(views).toEqual(await r.views(snap.scripts, true));
      expect(views?.items).toEqual(expectedViews(snap.model, snap.scripts, null, true));
      expect([views?.tipHeight, await onStandby.bootstrap()]).toEqual([snap.base.height, null]);
      const verifier = await openPostgresVerifier(standbyUrl, CHAIN.chain);
      try {
        const totals = snap.model.totals();
        expect(await verifier.aggregates()).toMatchObject({ differenceCount: 0, utxos: totals.utxos, amount: totals.amount });
        expect(await verifier.chain()).toEqual([]);
      } finally {
        await verifier.close();
      }
    } finally {
      await onStandby.close();
      await r.close();
      await standby.stop();
    }
  });
}
