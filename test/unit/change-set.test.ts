/**
 * The change set of connecting and disconnecting blocks (src/store/connect-blocks.ts,
 * disconnect-block.ts), without any database. The "index" is a UtxoModel (test/support/utxo-model.ts,
 * written independently of src/store): it resolves the outpoints asked for, and the expected change set
 * is the difference between the model's states before and after, so no expectation mirrors the code.
 */
import { describe, expect, it } from 'vitest';
import type { ChangeSet, Coin } from '../../src/store/change-set.js';
import { connectBlocks, planBatch } from '../../src/store/connect-blocks.js';
import { disconnectBlock, outpointsToRestore } from '../../src/store/disconnect-block.js';
import type { BlockToApply } from '../../src/store/index-model.js';
import { decodeOutpoint } from '../../src/store/outpoint.js';
import type { BlockUndo } from '../../src/store/undo.js';
import { ChainBuilder, Rng, coinbaseTx, opReturn, oversized, p2pkh, p2wpkh, randomChain, spendTx, type Out } from '../support/blocks.js';
import { UtxoModel } from '../support/utxo-model.js';
import { expectStoreError } from '../support/expect-store-error.js';

const hex = (b: Buffer): string => b.toString('hex');

function modelOf(blocks: readonly BlockToApply[]): UtxoModel {
  const m = new UtxoModel();
  for (const b of blocks) m.apply(b);
  return m;
}

/** The model's state after each prefix: states[h] = after blocks 0..h. */
function statesOf(blocks: readonly BlockToApply[]): UtxoModel[] {
  const m = new UtxoModel();
  return blocks.map((b) => {
    m.apply(b);
    const copy = new UtxoModel();
    for (const [id, c] of m.coins) copy.coins.set(id, { ...c });
    return copy;
  });
}

const modelId = (key: Buffer): string => {
  const { txid, vout } = decodeOutpoint(key);
  return `${hex(txid)}:${vout}`;
};

const coinRow = (c: Coin): string => `${modelId(c.outpoint)} ${hex(c.scriptKey)} ${c.value} ${c.height}`;
const rows = (coins: readonly Coin[]): string[] => coins.map(coinRow).sort();

/** What the index answers for the outpoints asked: the model's coins there (absent when it has none). */
function resolveFrom(model: UtxoModel, outpoints: ReadonlyMap<string, Buffer>): Map<string, Coin> {
  const coins = new Map<string, Coin>();
  for (const [id, key] of outpoints) {
    const c = model.coins.get(modelId(key));
    if (c) coins.set(id, { outpoint: key, scriptKey: Buffer.from(c.scriptKey, 'hex'), value: c.value, height: c.height });
  }
  return coins;
}

/** Rows of `from` that are not (identically) in `to`. */
const minus = (from: UtxoModel, to: UtxoModel): string[] => {
  const keep = new Set(to.utxoRows());
  return from.utxoRows().filter((r) => !keep.has(r));
};

/** Per-script change from `a` to `b` as `key balance count`, zero changes left out. */
function scriptChange(a: UtxoModel, b: UtxoModel): string[] {
  const sums = new Map<string, [number, number]>();
  const add = (m: UtxoModel, sign: number): void => {
    for (const r of m.scriptRows()) {
      const [k, balance, count] = r.split(' ');
      const s = sums.get(k!) ?? [0, 0];
      sums.set(k!, [s[0] + sign * Number(balance), s[1] + sign * Number(count)]);
    }
  };
  add(b, 1);
  add(a, -1);
  return [...sums].filter(([, [bal, n]]) => bal !== 0 || n !== 0).map(([k, [bal, n]]) => `${k} ${bal} ${n}`);
}

const ascending = (keys: readonly Buffer[]): boolean => keys.every((k, i) => i === 0 || Buffer.compare(keys[i - 1]!, k) < 0);

/** The change set must be exactly the difference between the two states. */
function expectDifference(set: ChangeSet, before: UtxoModel, after: UtxoModel): void {
  expect(rows(set.created)).toEqual(minus(after, before));
  expect(rows(set.spent)).toEqual(minus(before, after));
  expect(set.deltas.map((d) => `${hex(d.key)} ${d.balance} ${d.count}`).sort()).toEqual(scriptChange(before, after).sort());
  expect(ascending(set.deltas.map((d) => d.key))).toBe(true);
  expect(set.touched.map(hex).sort()).toEqual(set.deltas.map((d) => hex(d.key)).sort());
  const [tb, ta] = [before.totals(), after.totals()];
  expect({ utxos: set.utxos, amount: set.amount }).toEqual({ utxos: ta.utxos - tb.utxos, amount: ta.amount - tb.amount });
}

/** An undo record must list what the block took from the state below it and what it left added. */
function expectUndo(undo: BlockUndo, below: UtxoModel, at: UtxoModel): void {
  expect(rows(undo.spent)).toEqual(minus(below, at));
  expect(undo.created.map(modelId).sort()).toEqual(minus(at, below).map((r) => r.split(' ')[0]!));
}

function connect(prefix: readonly BlockToApply[], batch: readonly BlockToApply[], undoFrom: number): ChangeSet {
  const plan = planBatch(batch);
  return connectBlocks(plan, resolveFrom(modelOf(prefix), plan.needed), undoFrom);
}

/** The outpoints a batch asks the index for, as `txidhex:vout`. */
const asked = (batch: readonly BlockToApply[]): string[] => [...planBatch(batch).needed.values()].map(modelId);

describe('connecting blocks as a change set', () => {
  it('random chains: any split into prefix and batch gives the model difference, undo and disconnect included', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rng = new Rng(seed * 7919);
      const blocks = randomChain(seed, { blocks: 28, txsPerBlock: 8, scripts: 10, mweb: seed % 2 === 0, bip30: { at: 22, of: 20 } });
      const states = statesOf(blocks);
      const from = 1 + rng.int(20);
      const to = Math.min(blocks.length, from + 1 + rng.int(8));
      const undoFrom = from + rng.int(to - from + 1) - 1;
      const plan = planBatch(blocks.slice(from, to));
      const resolved = resolveFrom(states[from - 1]!, plan.needed);
      const set = connectBlocks(plan, resolved, undoFrom);
      expectDifference(set, states[from - 1]!, states[to - 1]!);
      expect(ascending(set.created.map((c) => c.outpoint))).toBe(true);
      // The engine takes what it resolves: every resolved coin must be in `spent`.
      expect(rows(set.spent)).toEqual(rows([...resolved.values()]));
      expect(set.tip).toEqual({ height: to - 1, hash: blocks[to - 1]!.hash });
      const kept = set.undo.map((u) => u.height);
      const window = Array.from({ length: to - from }, (_, i) => from + i).filter((h) => h >= undoFrom);
      expect(kept).toEqual(window);
      for (const { height, undo } of set.undo) expectUndo(undo, states[height - 1]!, states[height]!);
      // Disconnecting from the top with those records walks the states back down.
      for (const { height, undo } of [...set.undo].reverse()) {
        const below = { height: height - 1, hash: blocks[height - 1]!.hash };
        const back = disconnectBlock(height, undo, resolveFrom(states[height]!, outpointsToRestore(undo)), below);
        expectDifference(back, states[height]!, states[height - 1]!);
        expect(back.tip).toEqual(below);
        expect(back.undo).toEqual([]);
      }
    }
  });

  it('the genesis block connects nothing, whether in a batch or alone', () => {
    const c = new ChainBuilder(new Rng(2));
    c.blockPaying(p2pkh(), 50);
    c.blockPaying(p2pkh(), 60);
    const alone = connectBlocks(planBatch([c.blocks[0]!]), new Map(), 0);
    expect(alone).toMatchObject({ created: [], spent: [], deltas: [], touched: [], utxos: 0, amount: 0n });
    expect(alone.undo).toEqual([{ height: 0, undo: { spent: [], created: [] } }]);
    expect(planBatch([c.blocks[0]!]).needed.size).toBe(0);
    expectDifference(connect([], c.blocks, 0), new UtxoModel(), modelOf(c.blocks));
  });

  it('never adds unspendable outputs', () => {
    const c = new ChainBuilder(new Rng(3));
    c.blockPaying(p2pkh(), 1);
    const outs: Out[] = [
      { script: opReturn(), value: 5 },
      { script: oversized(), value: 6 },
      { script: Buffer.from([0x6a]), value: 0 },
      { script: p2wpkh(), value: 7 },
    ];
    c.block([coinbaseTx(outs)]);
    const set = connect(c.blocks.slice(0, 1), c.blocks.slice(1), 0);
    expect(set.created.map((cn) => decodeOutpoint(cn.outpoint).vout)).toEqual([3]);
    expect(set.undo[0]!.undo.created).toHaveLength(1);
    expectDifference(set, modelOf(c.blocks.slice(0, 1)), modelOf(c.blocks));
  });

  it('a coin born and spent in the batch appears nowhere; one from before it is spent with its script', () => {
    const rng = new Rng(4);
    const c = new ChainBuilder(rng);
    const [a, b, d] = [p2pkh(rng), p2wpkh(rng), p2pkh(rng)];
    c.blockPaying(a, 1);
    const old = c.blockPaying(a, 100);
    // Many outputs: vouts past 255 have multi-byte keys, spent from the batch and from before it.
    const wide = spendTx(
      [{ txid: old.txs[0]!.txid, vout: 0 }],
      Array.from({ length: 300 }, (_, i) => ({ script: i === 299 ? b : d, value: 1 })),
    );
    const prefix = [...c.blocks, c.blockPaying(a, 3, [wide])];
    // Born in the batch (not a coinbase, whose own outpoint is always asked for: BIP30), spent in its next block.
    const born = spendTx([{ txid: wide.txid, vout: 0 }], [{ script: b, value: 10 }]);
    c.blockPaying(b, 10, [born]);
    const spend = spendTx(
      [
        { txid: born.txid, vout: 0 },
        { txid: wide.txid, vout: 299 },
        { txid: wide.txid, vout: 256 },
      ],
      [{ script: d, value: 12 }],
    );
    const next = spendTx([{ txid: spend.txid, vout: 0 }], [{ script: a, value: 12 }]);
    c.blockPaying(a, 5, [spend, next]);
    const batch = c.blocks.slice(prefix.length);
    const ids = asked(batch);
    expect(ids).not.toContain(`${hex(born.txid)}:0`);
    expect(ids).not.toContain(`${hex(spend.txid)}:0`);
    expect(ids).toEqual(expect.arrayContaining([`${hex(wide.txid)}:0`, `${hex(wide.txid)}:299`, `${hex(wide.txid)}:256`]));
    const set = connect(prefix, batch, 0);
    expectDifference(set, modelOf(prefix), modelOf(c.blocks));
    const spentIds = [`${hex(wide.txid)}:0`, `${hex(wide.txid)}:256`, `${hex(wide.txid)}:299`];
    expect(rows(set.spent).map((r) => r.split(' ')[0])).toEqual(spentIds.sort());
    // The born coin: in its own block's undo as created, in the next block's as spent.
    const [u1, u2] = set.undo.map((u) => u.undo);
    expect(u1!.created.map(modelId)).toContain(`${hex(born.txid)}:0`);
    expect(rows(u2!.spent).map((r) => r.split(' ')[0])).toContain(`${hex(born.txid)}:0`);
  });

  it('keeps undo records only for blocks at or above the window start', () => {
    const blocks = randomChain(5, { blocks: 12, txsPerBlock: 6 });
    const states = statesOf(blocks);
    for (const undoFrom of [0, 5, 8, 11, 12, 40]) {
      const set = connect(blocks.slice(0, 4), blocks.slice(4), undoFrom);
      expect(set.undo.map((u) => u.height)).toEqual([4, 5, 6, 7, 8, 9, 10, 11].filter((h) => h >= undoFrom));
      for (const { height, undo } of set.undo) expectUndo(undo, states[height - 1]!, states[height]!);
      expectDifference(set, states[3]!, states[11]!);
    }
  });

  it('BIP30: a repeated coinbase overwrites the coin from before the batch, counts once, and its undo restores it', () => {
    const rng = new Rng(6);
    const c = new ChainBuilder(rng);
    const [a, b] = [p2pkh(rng), p2wpkh(rng)];
    c.blockPaying(a, 1);
    const dup = rng.bytes(32);
    c.block([coinbaseTx([{ script: a, value: 50 }], dup)]);
    c.blockPaying(b, 7);
    const prefix = [...c.blocks];
    c.block([coinbaseTx([{ script: b, value: 50 }], dup)]);
    const before = modelOf(prefix);
    const after = modelOf(c.blocks);
    expect(asked(c.blocks.slice(3))).toEqual([`${hex(dup)}:0`]);
    const set = connect(prefix, c.blocks.slice(3), 3);
    expectDifference(set, before, after);
    expect(rows(set.spent)).toEqual(minus(before, after));
    expect(set.utxos).toBe(0);
    const undo = set.undo[0]!.undo;
    expect(undo.created.map(modelId)).toEqual([`${hex(dup)}:0`]);
    expect(rows(undo.spent)).toEqual(minus(before, after));
    const back = disconnectBlock(3, undo, resolveFrom(after, outpointsToRestore(undo)), { height: 2, hash: c.blocks[2]!.hash });
    expectDifference(back, after, before);
  });

  it('BIP30 within one batch: the overwritten coin was born in it, so nothing from before is spent', () => {
    const rng = new Rng(7);
    const c = new ChainBuilder(rng);
    const a = p2pkh(rng);
    c.blockPaying(a, 1);
    const dup = rng.bytes(32);
    c.block([coinbaseTx([{ script: a, value: 50 }], dup)]);
    c.block([coinbaseTx([{ script: a, value: 60 }], dup)]);
    const set = connect(c.blocks.slice(0, 1), c.blocks.slice(1), 0);
    expect(set.spent).toEqual([]);
    expectDifference(set, modelOf(c.blocks.slice(0, 1)), modelOf(c.blocks));
    expectUndo(set.undo[1]!.undo, modelOf(c.blocks.slice(0, 2)), modelOf(c.blocks));
  });

  it('a spend of an outpoint the index does not resolve is MISSING_UTXO', () => {
    const rng = new Rng(8);
    const c = new ChainBuilder(rng);
    c.blockPaying(p2pkh(rng), 1);
    const b1 = c.blockPaying(p2pkh(rng), 10);
    const stray = rng.bytes(32);
    c.blockPaying(p2pkh(rng), 1, [spendTx([{ txid: stray, vout: 3 }], [{ script: p2pkh(rng), value: 1 }])]);
    const err = expectStoreError(() => connect(c.blocks.slice(0, 2), c.blocks.slice(2), 0), 'MISSING_UTXO');
    expect(err.message).toContain(`block 2 spends ${Buffer.from(stray).reverse().toString('hex')}:3`);
    // Resolved by the index, yet spent twice in the batch: the second spend finds nothing.
    const ref = { txid: b1.txs[0]!.txid, vout: 0 };
    const d = new ChainBuilder(rng);
    d.blocks.push(...c.blocks.slice(0, 2));
    d.blockPaying(p2pkh(rng), 1, [spendTx([ref], [{ script: p2pkh(rng), value: 10 }])]);
    d.blockPaying(p2pkh(rng), 1, [spendTx([ref], [{ script: p2pkh(rng), value: 10 }])]);
    expectStoreError(() => connect(d.blocks.slice(0, 2), d.blocks.slice(2), 0), 'MISSING_UTXO');
  });

  it('a non-coinbase creating an outpoint unspent in the batch is INCONSISTENT', () => {
    const rng = new Rng(9);
    const c = new ChainBuilder(rng);
    c.blockPaying(p2pkh(rng), 1);
    const txid = rng.bytes(32);
    const twin = (): ReturnType<typeof spendTx> => spendTx([], [{ script: p2pkh(rng), value: 5 }], { txid });
    c.blockPaying(p2pkh(rng), 1, [twin()]);
    c.blockPaying(p2pkh(rng), 1, [twin()]);
    const err = expectStoreError(() => connect(c.blocks.slice(0, 1), c.blocks.slice(1), 0), 'INCONSISTENT');
    expect(err.message).toMatch(/created twice while unspent/);
  });
});

describe('disconnecting a block as a change set', () => {
  it('a created outpoint the index does not hold is MISSING_UTXO', () => {
    const blocks = randomChain(10, { blocks: 6, txsPerBlock: 5 });
    const set = connect(blocks.slice(0, 5), blocks.slice(5), 0);
    const undo = set.undo[0]!.undo;
    const current = resolveFrom(modelOf(blocks), outpointsToRestore(undo));
    const [firstId] = current.keys();
    current.delete(firstId!);
    const err = expectStoreError(() => disconnectBlock(5, undo, current, { height: 4, hash: blocks[4]!.hash }), 'MISSING_UTXO');
    expect(err.message).toMatch(/^rolling back block 5: its output [0-9a-f]{64}:\d+ is not in the UTXO set$/);
  });

  it('a record naming a created outpoint twice finds it gone the second time (MISSING_UTXO)', () => {
    const blocks = randomChain(12, { blocks: 6, txsPerBlock: 5 });
    const undo = connect(blocks.slice(0, 5), blocks.slice(5), 0).undo[0]!.undo;
    const twice = { spent: undo.spent, created: [...undo.created, undo.created[0]!] };
    const current = resolveFrom(modelOf(blocks), outpointsToRestore(twice));
    expectStoreError(() => disconnectBlock(5, twice, current, { height: 4, hash: blocks[4]!.hash }), 'MISSING_UTXO');
  });

  it('disconnecting down to empty: the genesis record restores nothing and the tip becomes null', () => {
    const c = new ChainBuilder(new Rng(11));
    c.blockPaying(p2pkh(), 50);
    const set = connectBlocks(planBatch(c.blocks), new Map(), 0);
    const back = disconnectBlock(0, set.undo[0]!.undo, new Map(), null);
    expect(back).toEqual({ created: [], spent: [], deltas: [], touched: [], undo: [], utxos: 0, amount: 0n, tip: null });
  });
});
