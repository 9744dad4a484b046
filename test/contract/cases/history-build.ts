/**
 * History built for an index that had none (buildHistory): while blocks keep arriving and reorgs roll
 * back blocks the build has already covered, the index answers balances without history and pages as
 * building; once the build reaches the tip, its history equals the model's, and block sync keeps it.
 */
import { expect, it } from 'vitest';
import { Rng, p2wpkh } from '../../support/blocks.js';
import { extend, scriptPool } from '../chain-gen.js';
import type { EngineFactory } from '../engine.js';
import { expectIndex, type OpenIndex } from '../expect-index.js';
import { ChainModel, keyHex } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';

const UNDO_DEPTH = 8;
const GEN = { txs: 8 };

export function historyBuilds(engine: EngineFactory): void {
  it('history built later, through new blocks and reorgs across the build, equals history kept from genesis', async () => {
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const rng = new Rng(0x5eed_0009);
      const pool = scriptPool(rng);
      const scripts = [...pool, p2wpkh(rng)];
      const key = Buffer.from(keyHex(pool[0]!), 'hex');
      const model = new ChainModel();
      for (let i = 0; i < 6; i++) await ix.writer.applyBlocks(extend(rng, model, pool, 4, GEN));
      expect(await ix.writer.historyBuild()).toBeNull();
      expect((await ix.reader.status())?.historyState).toBeUndefined();

      await ix.writer.setHistory(true);
      // Turned off mid-build, the build is forgotten; turned on again, it starts from genesis.
      await ix.writer.buildHistory(model.blocks.slice(0, 5));
      expect(await ix.writer.historyBuild()).toEqual({ height: 4, tipHeight: 23 });
      await ix.writer.setHistory(false);
      expect(await ix.writer.historyBuild()).toBeNull();
      await ix.writer.setHistory(true);

      let reorgs = 0;
      let refusals = 0;
      for (let step = 0; ; step++) {
        const state = await ix.writer.historyBuild();
        if (state === null) break;
        expect(step).toBeLessThan(500);
        expect(state.tipHeight).toBe(model.tip!.height);
        const page = await ix.reader.historyPage({ key, after: null, limit: 3 });
        expect({ page: page?.page, building: page?.building }).toEqual({ page: null, building: state });
        expect((await ix.reader.status())?.historyState).toEqual({ state: 'building', builtHeight: state.height });
        const roll = rng.int(20);
        const next = state.height + 1;
        if (roll < 11) {
          await ix.writer.buildHistory(model.blocks.slice(next, next + 1 + rng.int(4)));
        } else if (roll < 13) {
          // Not the next block (a gap, or past the tip): refused, nothing written.
          const wrong = model.blocks.slice(next + 1, next + 3);
          const past = extend(rng, new ChainModel(), pool, 1, GEN);
          await expect(ix.writer.buildHistory(wrong.length > 0 ? wrong : past)).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
          expect(await ix.writer.historyBuild()).toEqual(state);
          refusals++;
        } else if (roll < 16) {
          await ix.writer.applyBlocks(extend(rng, model, pool, 1 + rng.int(2), GEN));
        } else {
          // Often through the build's own blocks: their history and the build's coins are undone.
          const gap = model.tip!.height - state.height;
          const depth = gap <= 3 ? gap + 1 + rng.int(2) : 1 + rng.int(3);
          for (let k = 0; k < depth; k++) {
            await ix.writer.rollbackTip();
            model.rollback();
          }
          await ix.writer.applyBlocks(extend(rng, model, pool, depth + 1, GEN));
          reorgs += state.height > model.tip!.height - depth - 1 ? 1 : 0;
        }
        // The step may have finished the build: the index then keeps history.
        if (step % 5 === 0) await expectIndex({ ...ix, history: (await ix.writer.historyBuild()) === null }, model, scripts);
      }
      expect(reorgs).toBeGreaterThan(0);
      expect(refusals).toBeGreaterThan(0);

      expect((await ix.reader.status())?.historyState).toEqual({ state: 'on' });
      const kept: OpenIndex = { ...ix, history: true };
      await expectIndex(kept, model, scripts);
      for (let i = 0; i < 3; i++) {
        await ix.writer.applyBlocks(extend(rng, model, pool, 2, GEN));
        await ix.writer.rollbackTip();
        model.rollback();
        await expectIndex(kept, model, scripts);
      }
      expect(await ix.verifier.chain()).toEqual([]);
    } finally {
      await closeIndex(ix);
    }
  });
}
