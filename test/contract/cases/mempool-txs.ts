/** Random mempool transactions for the contract's cases, spending what the mempool model says is spendable. */
import type { ParsedTx } from '../../../src/chain/block-parser.js';
import { opReturn, type Rng } from '../../support/blocks.js';
import type { MempoolModel } from '../mempool-model.js';

/**
 * Spends one or two coins (confirmed, or outputs of held transactions: chains) into one to three outputs,
 * one in ten an OP_RETURN (whose value still counts in the fee); one in eight says it has an MWEB part.
 */
export function mempoolTx(rng: Rng, mempool: MempoolModel, pool: readonly Buffer[]): ParsedTx {
  const coins = [...mempool.coins()];
  if (coins.length === 0) throw new Error('nothing to spend');
  const ins: { txid: Buffer; vout: number; value: number }[] = [];
  for (let k = 1 + rng.int(2); k > 0 && coins.length > 0; k--) {
    const [id, c] = coins.splice(rng.int(coins.length), 1)[0]!;
    const [txid, vout] = id.split(':') as [string, string];
    ins.push({ txid: Buffer.from(txid, 'hex'), vout: Number(vout), value: Number(c.value) });
  }
  const n = 1 + rng.int(3);
  let left = ins.reduce((s, c) => s + c.value, 0) - rng.int(50);
  const outputs: ParsedTx['outputs'] = [];
  for (let v = 0; v < n; v++) {
    const value = v === n - 1 ? Math.max(0, left) : Math.floor(left / 2);
    left -= value;
    outputs.push({ script: rng.int(10) === 0 ? opReturn(rng.bytes(4)) : pool[rng.int(pool.length)]!, value: BigInt(value) });
  }
  return {
    txid: rng.bytes(32),
    inputs: ins.map((c) => ({ prevTxid: c.txid, vout: c.vout })),
    outputs,
    coinbase: false,
    hogEx: false,
    mweb: rng.int(8) === 0,
  };
}
