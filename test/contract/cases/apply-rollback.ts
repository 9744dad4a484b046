/**
 * Apply and rollback: random walks of batches and rollbacks (to any earlier tip the undo window holds,
 * the empty index included); after every commit the index equals the model of the chain it is at.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { Rng, p2wpkh } from '../../support/blocks.js';
import { extend, scriptPool } from '../chain-gen.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import { expectIndex } from '../expect-index.js';
import { ChainModel, displayHex } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';

const UNDO_DEPTH = 10;
const STEPS = 40;

export function applyAndRollback(engine: EngineFactory, has: EngineFeatures): void {
  // With history only on an engine that keeps it.
  const variants = (
    [
      ['without', false],
      ['with', true],
    ] as const
  ).filter(([, history]) => has.history || !history);
  it.each(variants)('apply and rollback %s history: after every commit the index equals the model', async (_, history) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH, history);
        try {
          const rng = new Rng(seed);
          const pool = scriptPool(rng);
          const scripts = [...pool, p2wpkh(rng)];
          const model = new ChainModel();
          await expectIndex(ix, model, scripts);
          // Blocks at the top of the chain whose undo the writer keeps: the deepest rollback allowed now.
          let undo = 0;
          for (let step = 0; step < STEPS; step++) {
            if (undo > 0 && rng.chance(35)) {
              for (let k = 1 + rng.int(undo); k > 0; k--) {
                const tip = await ix.writer.rollbackTip();
                model.rollback();
                undo--;
                expect(tip && displayHex(tip.hash)).toBe(model.tip && displayHex(model.tip.hash));
                await expectIndex(ix, model, scripts);
              }
            } else {
              const blocks = extend(rng, model, pool, 1 + rng.int(4), { txs: 8 });
              await ix.writer.applyBlocks(blocks);
              undo = Math.min(undo + blocks.length, UNDO_DEPTH);
              await expectIndex(ix, model, scripts);
            }
          }
        } finally {
          await closeIndex(ix);
        }
      }),
      { numRuns: 2 },
    );
  });
}
