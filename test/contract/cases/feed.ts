/**
 * The change feed: after each commit, the rows after the last one read are in seq order, of the
 * commit's kind (block, disconnect, mempool), block and disconnect rows at the new tip, and together
 * they name every script whose confirmed or mempool figures the model says changed (or say "every
 * script" with null), a held transaction's Electrum height (−1 / 0) among them: a block mining a held
 * parent names the scripts of the child it leaves held. Paging with a limit yields the same rows.
 */
import { expect, it } from 'vitest';
import type { ChangeKind, FeedEntry } from '../../../src/store/index-model.js';
import { Rng, coinbaseTx, linkedBlock, p2wpkh, spendTx } from '../../support/blocks.js';
import { extend, nextBlock, scriptPool } from '../chain-gen.js';
import type { EngineFactory, EngineFeatures } from '../engine.js';
import type { OpenIndex } from '../expect-index.js';
import { MempoolModel } from '../mempool-model.js';
import { ChainModel, keyHex } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';
import { mempoolTx } from './mempool-txs.js';

const UNDO_DEPTH = 10;

/**
 * Every script's confirmed and mempool figures, as text by key. With the mempool's: each held line's
 * Electrum height (−1 while it spends a held output, else 0), which a status carries too.
 */
function figures(model: ChainModel, mempool: MempoolModel): Map<string, string> {
  const out = new Map<string, string>();
  const deltas = mempool.deltas();
  const lines = mempool.lines();
  for (const k of new Set([...model.sums().keys(), ...deltas.keys()])) {
    const heights = lines.get(k)?.map((l) => [l.txid, l.parents.length > 0 ? -1 : 0]);
    out.set(
      k,
      JSON.stringify([model.sums().get(k), deltas.get(k), heights], (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
    );
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
}

/** Without the mempool (EngineFeatures), the mempool commits are left out. */
export function feed(engine: EngineFactory, has: EngineFeatures): void {
  it('the change feed names the touched scripts of each commit, in seq order', async () => {
    const ix: OpenIndex = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const rng = new Rng(0x5eed_0004);
      const pool = scriptPool(rng);
      const model = new ChainModel();
      const mm = new MempoolModel(model);
      expect(await ix.reader.feed.bounds()).toBeNull();
      const all: FeedEntry[] = [];
      let last = 0;

      const commit = async (kind: ChangeKind, write: () => Promise<unknown>): Promise<readonly FeedEntry[]> => {
        const before = figures(model, mm);
        await write();
        const touched = changed(before, figures(model, mm));
        const rows = await ix.reader.feed.since(last, 1000);
        const seqs = rows.map((r) => r.seq);
        expect(rows.length).toBeGreaterThan(0);
        expect(seqs[0]).toBeGreaterThan(last);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(new Set(seqs).size).toBe(seqs.length);
        expect(rows.map((r) => r.kind)).toEqual(rows.map(() => kind));
        if (kind !== 'mempool') expect(rows[rows.length - 1]!.tipHeight).toBe(model.tip?.height ?? null);
        if (rows.every((r) => r.scripts !== null)) {
          const named = new Set(rows.flatMap((r) => r.scripts!.map((k) => k.toString('hex'))));
          expect(touched.filter((k) => !named.has(k))).toEqual([]);
        }
        last = seqs[seqs.length - 1]!;
        all.push(...rows);
        expect((await ix.reader.feed.bounds())?.last).toBe(last);
        return rows;
      };

      await commit('block', () => ix.writer.applyBlocks(extend(rng, model, pool, 5, { txs: 6 })));
      for (let i = 0; i < 6; i++) await commit('block', () => ix.writer.applyBlocks(extend(rng, model, pool, 1 + rng.int(2), { txs: 6 })));
      if (has.mempool) {
        const txs = Array.from({ length: 4 }, () => {
          const tx = mempoolTx(rng, mm, pool);
          mm.accept(tx);
          return tx;
        });
        await commit('mempool', () => ix.writer.mempool.add(txs));
        await commit('mempool', () =>
          ix.writer.mempool.remove([txs[0]!.txid]).then(() => mm.removeWithDescendants(txs[0]!.txid.toString('hex'))),
        );
      }
      await commit('block', async () => {
        // Mines or conflicts with some of the held transactions: their scripts change too.
        const block = nextBlock(rng, model, pool, { txs: 6 });
        mm.blockConnected(block.txs);
        model.apply(block);
        await ix.writer.applyBlocks([block]);
      });
      if (has.mempool) {
        // A block mining a held parent whose held child stays: the child's line goes from height −1 to 0
        // though no amount changes, so the block's rows name the script it pays (which nothing else touches).
        const [id, coin] = [...mm.coins()].find(([id, c]) => model.coins.has(id) && c.value >= 1000n)!;
        const [txid, vout] = id.split(':') as [string, string];
        const spend = { txid: Buffer.from(txid, 'hex'), vout: Number(vout) };
        const parent = spendTx([spend], [{ script: pool[0]!, value: coin.value - 100n }], { txid: rng.bytes(32) });
        const alone = p2wpkh(rng);
        const child = spendTx([{ txid: parent.txid, vout: 0 }], [{ script: alone, value: coin.value - 200n }], { txid: rng.bytes(32) });
        mm.accept(parent);
        mm.accept(child);
        await commit('mempool', () => ix.writer.mempool.add([parent, child]));
        const height = model.tip!.height + 1;
        const block = linkedBlock(height, model.tip!.hash, [coinbaseTx([{ script: pool[1]!, value: 50_000_000 }], rng.bytes(32)), parent], {
          time: 1_700_000_000 + height * 600,
          nonce: rng.bytes(32).readUInt32LE(0),
        });
        const rows = await commit('block', async () => {
          mm.blockConnected(block.txs);
          model.apply(block);
          await ix.writer.applyBlocks([block]);
        });
        expect(mm.txs.has(child.txid.toString('hex'))).toBe(true);
        expect(rows.flatMap((r) => r.scripts ?? []).map((k) => k.toString('hex'))).toContain(keyHex(alone));
      }
      for (let i = 0; i < 3; i++)
        await commit('disconnect', async () => {
          await ix.writer.rollbackTip();
          model.rollback();
          mm.clear();
        });
      await commit('block', () => ix.writer.applyBlocks(extend(rng, model, pool, 4, { txs: 6 })));

      expect(await ix.reader.feed.since(last, 1000)).toEqual([]);
      // Paging by two from the start yields the same rows.
      const paged: FeedEntry[] = [];
      for (let after = all[0]!.seq - 1; ;) {
        const rows = await ix.reader.feed.since(after, 2);
        expect(rows.length).toBeLessThanOrEqual(2);
        if (rows.length === 0) break;
        paged.push(...rows);
        after = rows[rows.length - 1]!.seq;
      }
      expect(paged).toEqual(all);
    } finally {
      await closeIndex(ix);
    }
  });
}
