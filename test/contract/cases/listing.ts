/**
 * The UTXO listing: off until asked for, then built over what is indexed and kept through blocks and
 * rollbacks. Paging (small pages, one script or many) yields each script's coins exactly once, with
 * value, height and coinbase flag, heights ascending, every page true at the tip it names (the check
 * callback sees that tip, and a throw from it refuses the page). With the mempool, confirmed rows say
 * whether a held transaction spends them and the held outputs follow as unconfirmed rows.
 */
import { expect, it } from 'vitest';
import type { UtxoPosition, UtxoRow } from '../../../src/store/index-model.js';
import type { IndexReader } from '../../../src/store/ports.js';
import { decodeOutpoint } from '../../../src/store/outpoint.js';
import { Rng, p2wpkh } from '../../support/blocks.js';
import { extend, scriptPool } from '../chain-gen.js';
import type { EngineFactory } from '../engine.js';
import { expectIndex } from '../expect-index.js';
import { MempoolModel } from '../mempool-model.js';
import { ChainModel, displayHex, keyHex, outId, unspendable } from '../model.js';
import { CHAIN, closeIndex, openIndex } from '../open-index.js';
import { mempoolTx } from './mempool-txs.js';

const UNDO_DEPTH = 10;
const GEN = { txs: 8 };

const rowText = (keys: readonly string[], r: UtxoRow): string => {
  const { txid, vout } = decodeOutpoint(r.outpoint);
  const spent = r.spentInMempool === undefined ? '' : r.spentInMempool ? ' spent' : ' unspent';
  return `${keys[r.script]} ${outId(txid, vout)} ${r.valueSats} ${r.height} ${r.coinbase}${spent}`;
};

/** Every row of `scripts`, page by page, checking what each page says of its tip. */
async function pageAll(
  reader: IndexReader,
  model: ChainModel,
  scripts: readonly Buffer[],
  limit: number,
  mempool: boolean,
): Promise<UtxoRow[]> {
  const keys = scripts.map((s) => Buffer.from(keyHex(s), 'hex'));
  const rows: UtxoRow[] = [];
  let after: UtxoPosition | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const seen: number[] = [];
    const page = await reader.utxoPage({ keys, after, limit, mempool, check: (ctx) => void seen.push(ctx.tipHeight) });
    if (page?.listing.kind !== 'page') throw new Error(`the listing answered ${page?.listing.kind ?? 'null'}`);
    expect({ status: page.tipHeight, listing: page.listing.tipHeight, hash: displayHex(page.listing.tipHash), checked: seen }).toEqual({
      status: model.tip!.height,
      listing: model.tip!.height,
      hash: displayHex(model.tip!.hash),
      checked: [model.tip!.height],
    });
    expect(page.listing.rows.length).toBeLessThanOrEqual(limit);
    rows.push(...page.listing.rows);
    if (page.listing.next === null) return rows;
    after = page.listing.next;
  }
  throw new Error('the listing never reached its last page');
}

function expectedRows(model: ChainModel, mempool: MempoolModel | null, scripts: readonly Buffer[]): string[] {
  const keys = new Set(scripts.map(keyHex));
  const spent = new Set<string>();
  for (const tx of mempool?.txs.values() ?? []) for (const i of tx.inputs) spent.add(outId(i.prevTxid, i.vout));
  const flag = (id: string): string => (mempool ? (spent.has(id) ? ' spent' : ' unspent') : '');
  const rows: string[] = [];
  for (const [id, c] of model.coins) if (keys.has(c.key)) rows.push(`${c.key} ${id} ${c.value} ${c.height} ${c.coinbase}${flag(id)}`);
  for (const tx of mempool?.txs.values() ?? [])
    tx.outputs.forEach((o, v) => {
      const id = outId(tx.txid, v);
      if (!unspendable(o.script) && keys.has(keyHex(o.script))) rows.push(`${keyHex(o.script)} ${id} ${o.value} null null${flag(id)}`);
    });
  return rows.sort();
}

async function expectListing(
  reader: IndexReader,
  model: ChainModel,
  mempool: MempoolModel | null,
  scripts: readonly Buffer[],
  limit: number,
) {
  const rows = await pageAll(reader, model, scripts, limit, mempool !== null);
  const keys = scripts.map(keyHex);
  // Confirmed rows by ascending height, then the unconfirmed ones.
  const heights = rows.map((r) => r.height ?? Infinity);
  expect(heights).toEqual([...heights].sort((a, b) => a - b));
  expect(rows.map((r) => rowText(keys, r)).sort()).toEqual(expectedRows(model, mempool, scripts));
}

export function listing(engine: EngineFactory): void {
  it('the UTXO listing pages through exactly the model’s coins', async () => {
    const ix = await openIndex(await engine.create(CHAIN), UNDO_DEPTH);
    try {
      const rng = new Rng(0x5eed_0002);
      const pool = scriptPool(rng);
      const scripts = [...pool, p2wpkh(rng)];
      const model = new ChainModel();
      await ix.writer.applyBlocks(extend(rng, model, pool, 6, GEN));
      const off = await ix.reader.utxoPage({ keys: [], after: null, limit: 10, mempool: false, check: () => undefined });
      expect(off?.listing.kind).toBe('off');
      await ix.writer.setUtxoList(true);
      await expectListing(ix.reader, model, null, scripts, 3);

      let undo = UNDO_DEPTH;
      for (let step = 0; step < 16; step++) {
        if (rng.chance(30) && undo > 1) {
          for (let k = 1 + rng.int(Math.min(3, undo - 1)); k > 0; k--, undo--) {
            await ix.writer.rollbackTip();
            model.rollback();
          }
        } else {
          const blocks = extend(rng, model, pool, 1 + rng.int(3), GEN);
          await ix.writer.applyBlocks(blocks);
          undo = Math.min(undo + blocks.length, UNDO_DEPTH);
        }
        await expectListing(ix.reader, model, null, scripts, 1 + rng.int(5));
        const one = scripts[rng.int(scripts.length)]!;
        await expectListing(ix.reader, model, null, [one], 1 + rng.int(3));
      }
      await expectIndex(ix, model, scripts);

      const mempool = new MempoolModel(model);
      const held = [];
      for (let i = 0; i < 6; i++) {
        const tx = mempoolTx(rng, mempool, pool);
        mempool.accept(tx);
        held.push(tx);
      }
      expect((await ix.writer.mempool.add(held)).added).toBe(held.length);
      await expectListing(ix.reader, model, mempool, scripts, 2);
      await expectListing(ix.reader, model, mempool, [scripts[0]!], 4);

      const refused = new Error('refused by the check');
      await expect(
        ix.reader.utxoPage({
          keys: [],
          after: null,
          limit: 10,
          mempool: false,
          check: () => {
            throw refused;
          },
        }),
      ).rejects.toBe(refused);
    } finally {
      await closeIndex(ix);
    }
  });
}
