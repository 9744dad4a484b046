/**
 * A UTXO snapshot for the bootstrap case (cases/bootstrap.ts) and its child (bootstrap-child.ts): the
 * coins of a random chain's model at its base block, as loadSnapshot takes them (the decoder's rows:
 * [outpoint, script_key, value, height], ascending by outpoint as Core dumps them; per-script sums in
 * key order; the coinbase txid of each height with a coinbase coin), and the blocks that follow the base.
 * Deterministic for a seed, so that a child process and the test make the same one.
 */
import type { BaseBlock, BlockToApply } from '../../src/store/index-model.js';
import { outpointKey } from '../../src/store/outpoint.js';
import { Rng, p2wpkh } from '../support/blocks.js';
import { extend, scriptPool } from './chain-gen.js';
import { ChainModel } from './model.js';

export interface TestSnapshot {
  readonly base: BaseBlock;
  /** The model at the base block. */
  readonly model: ChainModel;
  readonly rows: readonly unknown[][];
  readonly sums: readonly unknown[][];
  readonly coinbases: readonly [number, Buffer | null][];
  /** Blocks after the base, each on the one before. */
  readonly after: readonly BlockToApply[];
  /** The pool's scripts and one never paid. */
  readonly scripts: readonly Buffer[];
}

export function makeSnapshot(seed: number, height: number, after = 4): TestSnapshot {
  const rng = new Rng(seed);
  const pool = scriptPool(rng);
  const model = new ChainModel();
  extend(rng, model, pool, height + 1, { txs: 20 });
  const coins = [...model.coins.values()];
  const rows = coins
    .map((c): unknown[] => [outpointKey(c.txid, c.vout), Buffer.from(c.key, 'hex'), Number(c.value), c.height])
    .sort((a, b) => (a[0] as Buffer).compare(b[0] as Buffer));
  const sums = [...model.sums()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, s]): unknown[] => [Buffer.from(key, 'hex'), Number(s.balance), s.count]);
  const coinbaseOf = new Map<number, Buffer>();
  for (const c of coins) if (c.coinbase) coinbaseOf.set(c.height, c.txid);
  const coinbases = [...coinbaseOf].sort(([a], [b]) => a - b);
  const tip = model.blocks[model.blocks.length - 1]!;
  const base: BaseBlock = { height: tip.height, hash: tip.hash, prevHash: tip.prevHash };
  // The model goes on past the base; the snapshot's model stays at it.
  const atBase = ChainModel.ofTip(tip.hash, new Map(model.blocks.map((b) => [b.hash.toString('hex'), b])));
  const next = extend(rng, model, pool, after, { txs: 20 });
  return { base, model: atBase, rows, sums, coinbases, after: next, scripts: [...pool, p2wpkh(rng)] };
}
