/**
 * Random but valid blocks on top of a model's tip (so that any branch can grow from any tip): a coinbase
 * with one to three outputs, then transactions spending coins of the tip or outputs made earlier in the
 * same block, with one to four outputs each, about one in twelve unspendable, paying a small pool of
 * scripts again and again (also several outputs of one transaction to one script). Deterministic for a
 * given Rng state.
 */
import type { ParsedTx } from '../../src/chain/block-parser.js';
import type { BlockToApply } from '../../src/store/index-model.js';
import { Rng, linkedBlock, opReturn, p2pkh, p2wpkh } from '../support/blocks.js';
import { unspendable, type ChainModel } from './model.js';

export interface GenOptions {
  /** Most spending transactions in a block. */
  readonly txs: number;
}

/** The scripts blocks pay: few, so that each holds many UTXOs. */
export function scriptPool(rng: Rng, n = 6): Buffer[] {
  return Array.from({ length: n }, (_, i) => (i % 2 ? p2pkh(rng) : p2wpkh(rng)));
}

interface Spendable {
  txid: Buffer;
  vout: number;
  value: number;
}

export function nextBlock(rng: Rng, model: ChainModel, pool: readonly Buffer[], opts: GenOptions): BlockToApply {
  const tip = model.tip;
  const height = tip ? tip.height + 1 : 0;
  const available: Spendable[] = [...model.coins.values()].map((c) => ({ txid: c.txid, vout: c.vout, value: Number(c.value) }));
  const pay = (txid: Buffer, total: number, n: number): ParsedTx['outputs'] => {
    const outs: ParsedTx['outputs'] = [];
    const same = rng.chance(20) ? pool[rng.int(pool.length)]! : null;
    let left = total;
    for (let vout = 0; vout < n; vout++) {
      const value = vout === n - 1 ? left : Math.floor(left / 2);
      left -= value;
      const script = rng.int(12) === 0 ? opReturn(rng.bytes(4)) : (same ?? pool[rng.int(pool.length)]!);
      outs.push({ script, value: BigInt(value) });
      // Genesis outputs are never connected: nothing may spend them.
      if (height > 0 && !unspendable(script)) available.push({ txid, vout, value });
    }
    return outs;
  };
  const take = (): Spendable | undefined => {
    if (available.length === 0) return undefined;
    const i = rng.int(available.length);
    const [got] = available.splice(i, 1);
    return got;
  };

  const cbTxid = rng.bytes(32);
  const txs: ParsedTx[] = [
    {
      txid: cbTxid,
      inputs: [{ prevTxid: Buffer.alloc(32), vout: 0xffffffff }],
      outputs: pay(cbTxid, 50_000_000 + rng.int(1000), 1 + rng.int(3)),
      coinbase: true,
      hogEx: false,
      mweb: false,
    },
  ];
  // Leave most of the set unspent so that it grows instead of being drained.
  const n = height === 0 ? 0 : Math.min(rng.int(opts.txs + 1), Math.floor(available.length / 3));
  for (let t = 0; t < n; t++) {
    const ins: Spendable[] = [];
    for (let k = 1 + rng.int(3); k > 0; k--) {
      const c = take();
      if (c) ins.push(c);
    }
    if (ins.length === 0) break;
    const txid = rng.bytes(32);
    const fee = rng.int(100);
    const total = ins.reduce((s, c) => s + c.value, 0);
    txs.push({
      txid,
      inputs: ins.map((c) => ({ prevTxid: c.txid, vout: c.vout })),
      outputs: pay(txid, Math.max(0, total - fee), 1 + rng.int(4)),
      coinbase: false,
      hogEx: false,
      mweb: false,
    });
  }
  // The nonce takes the 32 random bytes the block hash once took: each seed keeps its chain.
  return linkedBlock(height, tip ? tip.hash : Buffer.alloc(32), txs, {
    time: 1_700_000_000 + height * 600,
    nonce: rng.bytes(32).readUInt32LE(0),
  });
}

/** Extends the model by `n` new blocks and returns them (the model now ends at the last). */
export function extend(rng: Rng, model: ChainModel, pool: readonly Buffer[], n: number, opts: GenOptions): BlockToApply[] {
  const out: BlockToApply[] = [];
  for (let i = 0; i < n; i++) {
    const b = nextBlock(rng, model, pool, opts);
    model.apply(b);
    out.push(b);
  }
  return out;
}
