/**
 * The mempool: transactions added in any order (children before parents too) show as per-script deltas
 * on top of the confirmed views (with history kept, also what they pay and spend per script, and each
 * script's pages list them first); re-adding is `known`, spending an unknown coin is `unresolved`, a
 * transaction spending a held one's input replaces it with its descendants, removal takes descendants
 * along; a block removes what it mines (children stay, now spending confirmed coins) and what conflicts
 * with it; a rollback empties the view and says so (clears()), and the view refilled with the block's
 * transactions has their children spend unconfirmed outputs again. Pages give each transaction's fee
 * (null with an MWEB part) and whether it spends a held transaction's output. The history-kept run needs history (EngineFeatures).
 */
import { expect, it } from 'vitest';
import type { ParsedTx } from '../../../src/chain/block-parser.js';
import { Rng, coinbaseTx, linkedBlock, p2wpkh } from '../../support/blocks.js';
import { extend, scriptPool } from '../chain-gen.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import { expectIndex, type OpenIndex } from '../expect-index.js';
import { MempoolModel } from '../mempool-model.js';
import { ChainModel, outId } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';
import { mempoolTx } from './mempool-txs.js';

const UNDO_DEPTH = 10;

async function expectHeld(ix: OpenIndex, mempool: MempoolModel): Promise<void> {
  const txids = (await ix.writer.mempool.txids()).map((t) => t.toString('hex')).sort();
  expect(txids).toEqual([...mempool.txs.keys()].sort());
  for (const tx of mempool.txs.values()) expect(await ix.writer.mempool.has(tx.txid)).toBe(true);
}

/** Held transactions whose inputs are all confirmed: a block may mine them. */
const minable = (model: ChainModel, mempool: MempoolModel): ParsedTx[] =>
  [...mempool.txs.values()].filter((tx) => tx.inputs.every((i) => model.coins.has(outId(i.prevTxid, i.vout))));

export function mempool(engine: EngineFactory, has: EngineFeatures): void {
  it.each([false, true].filter((history) => has.history || !history))(
    'the mempool: deltas, replacement, removal, mined and conflicting txs, rollback (history kept: %s)',
    async (history) => {
      const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH, history);
      try {
        const rng = new Rng(0x5eed_0003);
        const pool = scriptPool(rng);
        const scripts = [...pool, p2wpkh(rng)];
        const model = new ChainModel();
        const mm = new MempoolModel(model);
        await ix.writer.applyBlocks(extend(rng, model, pool, 12, { txs: 6 }));

        for (let round = 0; round < 3; round++) {
          const txs: ParsedTx[] = [];
          for (let i = 0; i < 8; i++) {
            const tx = mempoolTx(rng, mm, pool);
            // Built one on another, so that some spend earlier ones' outputs.
            mm.accept(tx);
            txs.push(tx);
          }
          expect(await ix.writer.mempool.add([...txs].reverse())).toEqual({ added: txs.length, known: 0, unresolved: [] });
          await expectIndex(ix, model, scripts, mm);
          await expectHeld(ix, mm);
        }

        const again = [...mm.txs.values()][0]!;
        const orphan: ParsedTx = {
          txid: rng.bytes(32),
          inputs: [{ prevTxid: rng.bytes(32), vout: 0 }],
          outputs: [{ script: pool[0]!, value: 5n }],
          coinbase: false,
          hogEx: false,
          mweb: false,
        };
        expect(await ix.writer.mempool.add([again, orphan])).toEqual({ added: 0, known: 1, unresolved: [orphan] });
        await expectIndex(ix, model, scripts, mm);

        // A replacement: a new transaction spending the (confirmed) first input of a held one.
        const victim = [...mm.txs.values()].find((tx) => model.coins.has(outId(tx.inputs[0]!.prevTxid, tx.inputs[0]!.vout)))!;
        const replacement: ParsedTx = { ...mempoolTx(rng, mm, pool), inputs: [victim.inputs[0]!] };
        const inValue = model.coins.get(outId(victim.inputs[0]!.prevTxid, victim.inputs[0]!.vout))!.value;
        replacement.outputs = [{ script: pool[1]!, value: inValue - 10n }];
        mm.accept(replacement);
        expect((await ix.writer.mempool.add([replacement])).added).toBe(1);
        await expectIndex(ix, model, scripts, mm);
        await expectHeld(ix, mm);

        // A removal takes the descendants along: pick the transaction with the most.
        const counts = [...mm.txs.keys()].map((txid) => ({ txid, n: mm.clone().removeWithDescendants(txid) }));
        const most = counts.sort((a, b) => b.n - a.n)[0]!;
        const removed = mm.removeWithDescendants(most.txid);
        expect(removed).toBeGreaterThan(1);
        expect(await ix.writer.mempool.remove([Buffer.from(most.txid, 'hex')])).toBe(removed);
        await expectIndex(ix, model, scripts, mm);
        await expectHeld(ix, mm);

        // A block mining two held transactions, one with a held child that must stay, and conflicting with a third.
        const hasChild = (tx: ParsedTx): boolean => [...mm.txs.values()].some((c) => c.inputs.some((i) => i.prevTxid.equals(tx.txid)));
        const mined = minable(model, mm)
          .sort((a, b) => Number(hasChild(b)) - Number(hasChild(a)))
          .slice(0, 2);
        expect(mined.some(hasChild)).toBe(true);
        const target = minable(model, mm).find((tx) => !mined.includes(tx))!;
        expect(mined).toHaveLength(2);
        expect(target).toBeDefined();
        const conflict: ParsedTx = { ...mempoolTx(rng, mm, pool), inputs: [target.inputs[0]!] };
        conflict.outputs = [{ script: pool[2]!, value: 1000n }];
        const next = linkedBlock(
          model.tip!.height + 1,
          model.tip!.hash,
          [coinbaseTx([{ script: pool[3]!, value: 50_000_000 }], rng.bytes(32)), ...mined, conflict],
          { time: 1_800_000_000, nonce: rng.bytes(32).readUInt32LE(0) },
        );
        mm.blockConnected(next.txs);
        model.apply(next);
        await ix.writer.applyBlocks([next]);
        await expectIndex(ix, model, scripts, mm);
        await expectHeld(ix, mm);

        // A rollback empties the view: the follower re-reads the node's mempool afterwards.
        const clears = ix.writer.mempool.clears();
        const held = [...mm.txs.values()];
        expect(held.length).toBeGreaterThan(0);
        await ix.writer.rollbackTip();
        model.rollback();
        mm.clear();
        expect(ix.writer.mempool.clears()).toBe(clears + 1);
        await expectIndex(ix, model, scripts, mm);
        await expectHeld(ix, mm);

        // The node's mempool after the disconnect: the block's transactions are back, and the child that
        // stayed spends an unconfirmed output again.
        for (const tx of [...mined, ...held]) mm.accept(tx);
        expect(await ix.writer.mempool.add([...held, ...mined])).toEqual({ added: held.length + 2, known: 0, unresolved: [] });
        await expectIndex(ix, model, scripts, mm);
        await expectHeld(ix, mm);
      } finally {
        await closeIndex(ix);
      }
    },
  );
}
