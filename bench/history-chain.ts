/**
 * A synthetic chain with mainnet-like transaction shapes for the history benchmark (bench/history.ts):
 * inputs and outputs per transaction drawn from a skewed mix (most transactions 1–2 in, 2 out; some
 * consolidations and batch payouts), about half the outputs to fresh scripts and the rest reusing
 * scripts (a hot set of exchange-like scripts, and earlier scripts at random), change paid back to an
 * input's own script now and then, and an OP_RETURN output in one transaction of twenty. Deterministic.
 * It counts what history must hold: transactions, (script, transaction) pairs and distinct scripts.
 */
import type { ParsedTx } from '../src/chain/block-parser.js';
import type { BlockToApply } from '../src/store/index-model.js';
import { sha, SyntheticChain } from './synthetic-chain.js';

export interface HistoryChainFigures {
  txs: number;
  /** (script, transaction) pairs: history entries. */
  entries: number;
  scripts: number;
  outputs: number;
  inputs: number;
}

/** xorshift32: cheap and reproducible. */
class Rng {
  constructor(private s: number) {}
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 2 ** 32;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

interface Unspent {
  txid: Buffer;
  vout: number;
  value: number;
  script: Buffer;
}

const HOT = 1000;

/** The i-th of the hot (exchange-like) scripts many transactions pay: a busy address to ask about. */
export const hotScript = (i: number): Buffer => Buffer.concat([Buffer.from([0x00, 0x14]), sha(`hot ${i}`).subarray(0, 20)]);

/** Counts drawn from a mix: [probability, min, max] rows. */
function draw(rng: Rng, mix: readonly (readonly [number, number, number])[]): number {
  let r = rng.next();
  for (const [p, lo, hi] of mix) {
    if (r < p) return lo + rng.int(hi - lo + 1);
    r -= p;
  }
  const last = mix[mix.length - 1]!;
  return last[1];
}

const INPUTS = [
  [0.62, 1, 1],
  [0.2, 2, 2],
  [0.13, 3, 5],
  [0.05, 6, 40],
] as const;
const OUTPUTS = [
  [0.15, 1, 1],
  [0.66, 2, 2],
  [0.15, 3, 8],
  [0.04, 9, 80],
] as const;

export function historyChain(txTarget: number, txsPerBlock: number): { blocks: BlockToApply[]; figures: HistoryChainFigures } {
  const rng = new Rng(0x5eed);
  const chain = new SyntheticChain('history-bench');
  const scripts: Buffer[] = [];
  const hot = Array.from({ length: HOT }, (_, i) => hotScript(i));
  const fresh = (): Buffer => {
    const s = Buffer.concat([Buffer.from([0x00, 0x14]), sha(`script ${scripts.length}`).subarray(0, 20)]);
    scripts.push(s);
    return s;
  };
  const pick = (): Buffer => {
    const r = rng.next();
    if (r < 0.5 || scripts.length === 0) return fresh();
    if (r < 0.75) return hot[rng.int(HOT)]!;
    return scripts[rng.int(scripts.length)]!;
  };
  const pool: Unspent[] = [];
  const figures: HistoryChainFigures = { txs: 0, entries: 0, scripts: 0, outputs: 0, inputs: 0 };
  const seen = new Set<string>();
  const count = (touched: Set<string>): void => {
    figures.entries += touched.size;
    for (const id of touched) seen.add(id);
  };
  const blocks: BlockToApply[] = [chain.block([chain.tx('genesis', [{ script: hot[0]!, value: 50e8 }], true)])];
  let n = 0;
  while (figures.txs < txTarget) {
    const txs: ParsedTx[] = [];
    const cbScript = pick();
    const cb = chain.tx(`cb ${blocks.length}`, [{ script: cbScript, value: 3_125_000_000 }], true);
    txs.push(cb);
    const born: Unspent[] = [{ txid: cb.txid, vout: 0, value: 3_125_000_000, script: cbScript }];
    count(new Set([cbScript.toString('latin1')]));
    figures.txs++;
    figures.outputs++;
    for (let t = 1; t < txsPerBlock && pool.length > 50; t++) {
      const ins: Unspent[] = [];
      for (let k = draw(rng, INPUTS); k > 0 && pool.length > 0; k--) {
        const i = rng.int(pool.length);
        ins.push(pool[i]!);
        pool[i] = pool[pool.length - 1]!;
        pool.pop();
      }
      const total = ins.reduce((s, c) => s + c.value, 0) - 1000;
      if (total < 10_000) continue;
      const nOut = draw(rng, OUTPUTS);
      const txid = sha(`tx ${n++}`);
      const outputs: ParsedTx['outputs'] = [];
      const touched = new Set(ins.map((c) => c.script.toString('latin1')));
      let left = total;
      for (let vout = 0; vout < nOut; vout++) {
        const value = vout === nOut - 1 ? left : Math.floor(left * (0.2 + 0.6 * rng.next()));
        left -= value;
        const script = vout === nOut - 1 && rng.next() < 0.3 ? ins[0]!.script : pick();
        outputs.push({ script, value: BigInt(value) });
        touched.add(script.toString('latin1'));
        born.push({ txid, vout, value, script });
      }
      if (rng.int(20) === 0) outputs.push({ script: Buffer.from([0x6a, 0x04, 1, 2, 3, 4]), value: 0n });
      txs.push({ txid, inputs: ins.map((c) => ({ prevTxid: c.txid, vout: c.vout })), outputs, coinbase: false, hogEx: false, mweb: false });
      count(touched);
      figures.txs++;
      figures.inputs += ins.length;
      figures.outputs += nOut;
    }
    pool.push(...born);
    blocks.push(chain.block(txs));
  }
  figures.scripts = seen.size;
  return { blocks, figures };
}
