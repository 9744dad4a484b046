/**
 * Reference UTXO set for store tests: a plain Map written independently of src/store (its own script
 * key and unspendable rule), applying Core's rules in the simplest way. The store must end up with the
 * same UTXOs and the same per-script sums.
 */
import { createHash } from 'node:crypto';
import type { BlockToApply } from '../../src/store/index-model.js';

export interface ModelCoin {
  scriptKey: string;
  value: bigint;
  height: number;
}

export class UtxoModel {
  readonly coins = new Map<string, ModelCoin>();

  apply(block: BlockToApply): void {
    if (block.height === 0) return; // Core's ConnectBlock skips the genesis block's transactions
    for (const tx of block.txs) {
      if (!tx.coinbase) {
        for (const i of tx.inputs) {
          const id = `${i.prevTxid.toString('hex')}:${i.vout}`;
          if (!this.coins.delete(id)) throw new Error(`model: ${id} spent but not unspent`);
        }
      }
      tx.outputs.forEach((o, vout) => {
        if ((o.script.length > 0 && o.script[0] === 0x6a) || o.script.length > 10_000) return;
        const key = createHash('sha256').update(o.script).digest().subarray(0, 16).toString('hex');
        this.coins.set(`${tx.txid.toString('hex')}:${vout}`, { scriptKey: key, value: o.value, height: block.height });
      });
    }
  }

  /** Rows as `txidhex:vout scriptkeyhex value height`, sorted. */
  utxoRows(): string[] {
    return [...this.coins].map(([id, c]) => `${id} ${c.scriptKey} ${c.value} ${c.height}`).sort();
  }

  /** Rows as `scriptkeyhex balance count`, sorted. */
  scriptRows(): string[] {
    const sums = new Map<string, { balance: bigint; count: number }>();
    for (const c of this.coins.values()) {
      const s = sums.get(c.scriptKey) ?? { balance: 0n, count: 0 };
      s.balance += c.value;
      s.count += 1;
      sums.set(c.scriptKey, s);
    }
    return [...sums].map(([k, s]) => `${k} ${s.balance} ${s.count}`).sort();
  }

  totals(): { utxos: number; amount: bigint; scripts: number } {
    let amount = 0n;
    for (const c of this.coins.values()) amount += c.value;
    return { utxos: this.coins.size, amount, scripts: this.scriptRows().length };
  }
}
