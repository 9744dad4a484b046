/**
 * Reorgs deeper than one block: 3–6 blocks rolled back, one commit each, then a longer branch applied in
 * one or two commits, all within the undo window; and the refusal one block past it, which must leave
 * the index as it was and still writable; and the refusal of a block whose header is not its own.
 */
import { expect, it } from 'vitest';
import { Rng, p2wpkh } from '../../support/blocks.js';
import { extend, nextBlock, scriptPool } from '../chain-gen.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import { expectIndex } from '../expect-index.js';
import { ChainModel } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';

const UNDO_DEPTH = 8;
const GEN = { txs: 8 };

export function reorgs(engine: EngineFactory, has: EngineFeatures): void {
  it(`reorgs of 3–6 blocks within the undo window (history ${has.history ? 'kept' : 'not kept'}), and the refusal past it`, async () => {
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH, has.history);
    try {
      const rng = new Rng(0x5eed_0001);
      const pool = scriptPool(rng);
      const scripts = [...pool, p2wpkh(rng)];
      const model = new ChainModel();
      for (let i = 0; i < 5; i++) await ix.writer.applyBlocks(extend(rng, model, pool, 4, GEN));
      await expectIndex(ix, model, scripts);

      for (let reorg = 0; reorg < 4; reorg++) {
        const depth = 3 + (reorg % 4);
        for (let k = 0; k < depth; k++) {
          await ix.writer.rollbackTip();
          model.rollback();
        }
        await expectIndex(ix, model, scripts);
        const branch = extend(rng, model, pool, depth + 1, GEN);
        const cut = 1 + rng.int(branch.length - 1);
        await ix.writer.applyBlocks(branch.slice(0, cut));
        await ix.writer.applyBlocks(branch.slice(cut));
        await expectIndex(ix, model, scripts);
      }

      // The window is full after an apply: exactly UNDO_DEPTH blocks can go, the next one cannot.
      for (let k = 0; k < UNDO_DEPTH; k++) {
        await ix.writer.rollbackTip();
        model.rollback();
      }
      await expectIndex(ix, model, scripts);
      await expect(ix.writer.rollbackTip()).rejects.toMatchObject({ code: 'NO_UNDO' });
      await expectIndex(ix, model, scripts);
      await ix.writer.applyBlocks(extend(rng, model, pool, 3, GEN));
      await expectIndex(ix, model, scripts);

      // A block whose header is not its own (another block's, or cut short) is refused, nothing written.
      const next = nextBlock(rng, model, pool, GEN);
      const sibling = nextBlock(rng, model, pool, GEN);
      for (const header of [sibling.header, next.header.subarray(0, 79)])
        await expect(ix.writer.applyBlocks([{ ...next, header }])).rejects.toMatchObject({ code: 'BAD_HEADER' });
      await expectIndex(ix, model, scripts);
    } finally {
      await closeIndex(ix);
    }
  });
}
