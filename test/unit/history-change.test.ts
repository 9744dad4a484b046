/**
 * The history side of a change set (src/store/history-change.ts through connect-blocks.ts), without a
 * database: entries per transaction and script, transaction numbers, and the scripts the feed names.
 */
import { describe, expect, it } from 'vitest';
import type { Coin } from '../../src/store/change-set.js';
import { connectBlocks, planBatch } from '../../src/store/connect-blocks.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainBuilder, Rng, coinbaseTx, opReturn, p2pkh, p2wpkh, spendTx } from '../support/blocks.js';

const hex = (b: Buffer): string => b.toString('hex');

/** Connects `blocks` on an index holding `held` coins, with history numbered from `nextTx`. */
function connect(blocks: Parameters<typeof planBatch>[0], held: Coin[], nextTx: number) {
  const plan = planBatch(blocks);
  const byId = new Map(held.map((c) => [c.outpoint.toString('latin1'), c]));
  const resolved = new Map([...plan.needed.keys()].filter((id) => byId.has(id)).map((id) => [id, byId.get(id)!]));
  return connectBlocks(plan, resolved, Infinity, { nextTx });
}

const entryOf = (e: { scriptKey: Buffer; txNum: number; received: bigint; sent: bigint; funded: number; spent: number }) => ({
  script: hex(e.scriptKey),
  txNum: e.txNum,
  received: e.received,
  sent: e.sent,
  funded: e.funded,
  spent: e.spent,
});

describe('history in a change set', () => {
  it('one entry per transaction and script: paid twice and spent from in one transaction', () => {
    const rng = new Rng(1);
    const c = new ChainBuilder(rng);
    const [a, b, miner] = [p2pkh(rng), p2wpkh(rng), p2pkh(rng)];
    c.blockPaying(miner, 1);
    const funding = c.blockPaying(a, 1_000).txs[0]!;
    const held: Coin = { outpoint: outpointKey(funding.txid, 0), scriptKey: scriptKey(a), value: 1_000n, height: 1 };
    const tx = spendTx(
      [{ txid: funding.txid, vout: 0 }],
      [
        { script: a, value: 300 },
        { script: opReturn(Buffer.from('x')), value: 0 },
        { script: a, value: 200 },
        { script: b, value: 450 },
      ],
    );
    const block = c.block([coinbaseTx([{ script: miner, value: 50 }]), tx]);
    const set = connect([block], [held], 17);
    expect(set.history!.blocks).toEqual([
      {
        height: 2,
        firstTx: 17,
        txids: [block.txs[0]!.txid, tx.txid],
        entries: expect.any(Array),
        // The spend index's row: the coinbase spends nothing; tx (number 18) spent funding:0 with input 0.
        spends: [{ outpoint: outpointKey(funding.txid, 0), txNum: 18, vin: 0 }],
      },
    ]);
    expect(set.history!.blocks[0]!.entries.map(entryOf)).toEqual([
      { script: hex(scriptKey(miner)), txNum: 17, received: 50n, sent: 0n, funded: 1, spent: 0 },
      { script: hex(scriptKey(a)), txNum: 18, received: 500n, sent: 1_000n, funded: 2, spent: 1 },
      { script: hex(scriptKey(b)), txNum: 18, received: 450n, sent: 0n, funded: 1, spent: 0 },
    ]);
    expect(set.history!.nextTx).toBe(19);
  });

  it('coins born and spent within the batch: both transactions are history, and the feed names the script', () => {
    const rng = new Rng(2);
    const c = new ChainBuilder(rng);
    const [a, miner] = [p2pkh(rng), p2wpkh(rng)];
    c.blockPaying(miner, 1);
    const pay = c.blockPaying(a, 70);
    const spend = c.block([
      coinbaseTx([{ script: miner, value: 50 }]),
      spendTx([{ txid: pay.txs[0]!.txid, vout: 0 }], [{ script: miner, value: 70 }]),
    ]);
    const set = connect([pay, spend], [], 1);
    // a: +70 then −70 within the batch, so no delta; its history still changed.
    expect(set.deltas.map((d) => hex(d.key))).not.toContain(hex(scriptKey(a)));
    expect(set.touched.map(hex)).toContain(hex(scriptKey(a)));
    const forA = set.history!.blocks.flatMap((blk) => blk.entries.filter((e) => e.scriptKey.equals(scriptKey(a)))).map(entryOf);
    expect(forA).toEqual([
      { script: hex(scriptKey(a)), txNum: 1, received: 70n, sent: 0n, funded: 1, spent: 0 },
      { script: hex(scriptKey(a)), txNum: 3, received: 0n, sent: 70n, funded: 0, spent: 1 },
    ]);
    expect(set.history!.blocks.map((blk) => blk.firstTx)).toEqual([1, 2]);
    expect(set.history!.nextTx).toBe(4);
  });

  it('genesis connects nothing but still numbers its transactions', () => {
    const rng = new Rng(3);
    const c = new ChainBuilder(rng);
    const genesis = c.blockPaying(p2pkh(rng), 50);
    const set = connect([genesis], [], 0);
    expect(set.history).toEqual({ blocks: [{ height: 0, firstTx: 0, txids: [genesis.txs[0]!.txid], entries: [], spends: [] }], nextTx: 1 });
  });

  it('BIP30: a coinbase that overwrites an unspent coin spends it in its history', () => {
    const rng = new Rng(4);
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    c.blockPaying(a, 1);
    const dup = rng.bytes(32);
    const first = c.block([coinbaseTx([{ script: a, value: 50 }], dup)]);
    const again = c.block([coinbaseTx([{ script: a, value: 50 }], dup)]);
    const held: Coin = { outpoint: outpointKey(dup, 0), scriptKey: scriptKey(a), value: 50n, height: first.height };
    const set = connect([again], [held], 9);
    expect(set.history!.blocks[0]!.entries.map(entryOf)).toEqual([
      { script: hex(scriptKey(a)), txNum: 9, received: 50n, sent: 50n, funded: 1, spent: 1 },
    ]);
  });

  it('no history is computed when none is asked for', () => {
    const rng = new Rng(5);
    const c = new ChainBuilder(rng);
    const plan = planBatch([c.blockPaying(p2pkh(rng), 1), c.blockPaying(p2pkh(rng), 2)]);
    expect(connectBlocks(plan, new Map(), 0).history).toBeUndefined();
  });
});
