/**
 * Kills at random points: a child process writes the plan (plan.ts: batches, rollbacks, reorgs) and is
 * SIGKILLed after a random number of its commits, most likely inside the next one. Each time, the index
 * reopened must be at a tip the plan reaches at or after the last commit the child reported, equal the
 * model of that tip, and verify clean; a second child resumes from there and is killed too, then this
 * process finishes the plan and the index must equal the model at its end.
 */
import { expect, it } from 'vitest';
import { Rng } from '../../support/blocks.js';
import { WriterChild } from '../child-run.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import { expectIndex, type OpenIndex } from '../expect-index.js';
import { ChainModel } from '../model.js';
import { CHAIN, closeIndex, openIndex, writerOptions } from '../open-index.js';
import { makePlan, resumeAfter, runOp } from '../plan.js';

const UNDO_DEPTH = 8;
const SEEDS = [101, 202, 303];
const KILLS = 2;

export function kills(engine: EngineFactory, has: EngineFeatures): void {
  it.each(SEEDS)('kills at random points leave a model-equal, resumable index (seed %i)', async (seed) => {
    const planOptions = { seed, batches: 40, undoDepth: UNDO_DEPTH, txs: 30 };
    const plan = makePlan(planOptions);
    const rng = new Rng(seed ^ 0x4b494c4c);
    const index = await engine.create(CHAIN);
    // One seed keeps history: kills then also cut through its heads, sealed chunks and before-images.
    // (Each feature only on an engine that has it.)
    const history = seed === 202 && has.history;
    const children: WriterChild[] = [];
    let ix: OpenIndex | undefined;
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        const child = new WriterChild({
          spec: index.child,
          writer: writerOptions(UNDO_DEPTH),
          plan: planOptions,
          utxoList: seed % 2 === 1 && has.utxoList,
          history,
        });
        children.push(child);
        const from = Number((await child.line((l) => l.startsWith('ready '))).split(' ')[1]);
        // Kill after a random count of further commits (none: during the first one), within the first
        // half of what is left so that the next child has work to be killed in too.
        const left = plan.ops.length - 1 - from;
        // A child that ran far ahead of its kill (a loaded machine) may leave nothing to interrupt.
        if (left < 2) {
          await child.kill();
          break;
        }
        const after = from + rng.int(Math.ceil(left / 2));
        if (after > from) await child.line((l) => l === `op ${after}`);
        await child.kill();
        const reported = child.lastOp();

        ix = await openIndex(index, UNDO_DEPTH, history);
        const tip = await ix.writer.tip();
        const at = resumeAfter(plan, tip);
        // Committed work survives: the tip is one the plan holds at or after the child's last report.
        expect(at).toBeGreaterThanOrEqual(reported);
        await expectIndex(ix, ChainModel.ofTip(tip?.hash ?? null, plan.blocks), plan.scripts);
        if (kill < KILLS - 1) {
          await closeIndex(ix);
          ix = undefined;
        }
      }
      ix ??= await openIndex(index, UNDO_DEPTH, history);
      const tip = await ix.writer.tip();
      for (let i = resumeAfter(plan, tip) + 1; i < plan.ops.length; i++) await runOp(ix.writer, plan.ops[i]!);
      await expectIndex(ix, ChainModel.ofTip(plan.tips[plan.tips.length - 1]!.hash, plan.blocks), plan.scripts);
    } finally {
      for (const c of children) await c.kill();
      if (ix) await closeIndex(ix);
    }
  });
}
