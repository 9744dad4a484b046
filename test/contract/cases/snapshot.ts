/**
 * One snapshot per read: every read states a tip, and its items must be the model's at exactly that tip.
 * Once with commits interleaved between reads issued together in this process, once reading without
 * pause while a child process writes the plan (batches, rollbacks, reorgs) with the listing on (on an
 * engine that has it: its pages are read too).
 */
import { setImmediate as yieldToIo } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { BlockToApply } from '../../../src/store/index-model.js';
import type { IndexReader } from '../../../src/store/ports.js';
import { Rng, p2wpkh } from '../../support/blocks.js';
import { LINE_DEADLINE_MS, WriterChild } from '../child-run.js';
import { extend, scriptPool } from '../chain-gen.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import { ChainModel, keyHex } from '../model.js';
import { CHAIN, closeIndex, openIndex, writerOptions } from '../open-index.js';
import { makePlan } from '../plan.js';
import { SnapshotOracle } from '../snapshot-oracle.js';

const UNDO_DEPTH = 8;

/** Issues every kind of read at once and hands each answer to the oracle. */
async function readAll(reader: IndexReader, oracle: SnapshotOracle, scripts: readonly Buffer[], listing: boolean): Promise<void> {
  const keys = scripts.map((s) => Buffer.from(keyHex(s), 'hex'));
  const checked: number[] = [];
  const [views, keyViews, summary, page] = await Promise.all([
    reader.views(scripts, false),
    reader.keyViews(keys, true),
    reader.summary(scripts[0]!),
    listing
      ? reader.utxoPage({ keys, after: null, limit: 100_000, mempool: false, check: (ctx) => void checked.push(ctx.tipHeight) })
      : null,
  ]);
  oracle.views(views, false);
  oracle.views(keyViews, true);
  oracle.summary(summary, scripts[0]!);
  if (listing) oracle.page(page, checked);
}

export function snapshots(engine: EngineFactory, has: EngineFeatures): void {
  const listing = has.utxoList;
  it('one snapshot per read: reads and commits interleaved in one process', async () => {
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const rng = new Rng(0x5eed_0005);
      const pool = scriptPool(rng);
      const scripts = [...pool, p2wpkh(rng)];
      const model = new ChainModel();
      const blocks = new Map<string, BlockToApply>();
      const oracle = new SnapshotOracle(blocks, scripts);
      if (listing) await ix.writer.setUtxoList(true);
      let undo = 0;
      for (let step = 0; step < 40; step++) {
        const write = async (): Promise<void> => {
          if (undo > 0 && rng.chance(30)) {
            model.rollback();
            undo--;
            await ix.writer.rollbackTip();
          } else {
            const batch = extend(rng, model, pool, 1 + rng.int(3), { txs: 8 });
            for (const b of batch) blocks.set(b.hash.toString('hex'), b);
            undo = Math.min(undo + batch.length, UNDO_DEPTH);
            await ix.writer.applyBlocks(batch);
          }
        };
        // Started together: an engine that answers asynchronously may run them in any order.
        await Promise.all([readAll(ix.reader, oracle, scripts, listing), write(), readAll(ix.reader, oracle, scripts, listing)]);
      }
      await readAll(ix.reader, oracle, scripts, listing);
      expect(oracle.tipsSeen.size).toBeGreaterThan(10);
    } finally {
      await closeIndex(ix);
    }
  });

  it('one snapshot per read: continuous reads while a child process commits', async () => {
    const planOptions = { seed: 77, batches: 60, undoDepth: UNDO_DEPTH, txs: 20 };
    const plan = makePlan(planOptions);
    const index = await engine.create(CHAIN);
    const reader = await index.openReader();
    const oracle = new SnapshotOracle(plan.blocks, plan.scripts);
    const child = new WriterChild({ spec: index.child, writer: writerOptions(UNDO_DEPTH), plan: planOptions, utxoList: listing });
    try {
      await child.line((l) => l.startsWith('ready '));
      const until = Date.now() + LINE_DEADLINE_MS;
      while (!child.lines.includes('done')) {
        if (!child.running || Date.now() > until) await child.line((l) => l === 'done', 0);
        await readAll(reader, oracle, plan.scripts, listing);
        // Lets the child's progress lines in: the reads themselves may never leave the microtask queue.
        await yieldToIo();
      }
      await readAll(reader, oracle, plan.scripts, listing);
      const final = plan.tips[plan.tips.length - 1]!;
      expect((await reader.status())?.tipHeight).toBe(final.height);
      // At least the first and the last state were read; how many in between depends on the scheduler.
      expect(oracle.tipsSeen.size).toBeGreaterThanOrEqual(2);
    } finally {
      await child.kill();
      await reader.close();
    }
  });
}
