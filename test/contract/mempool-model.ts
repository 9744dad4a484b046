/**
 * The node's mempool as the contract expects the index to mirror it: transactions in a topological
 * order on top of a ChainModel's coins. A new transaction spending an outpoint a held one spends
 * replaces it with its descendants; a block removes what it mines (children stay) and what conflicts
 * with it (with descendants). Per script: Δ balance and Δ UTXO count once the whole mempool is mined,
 * and how many held transactions touch it.
 */
import type { ParsedTx } from '../../src/chain/block-parser.js';
import { keyHex, outId, unspendable, type ChainModel } from './model.js';

export interface Delta {
  balanceSats: bigint;
  utxoCount: number;
  txCount: number;
}

export class MempoolModel {
  /** txid hex → tx, parents before children. */
  readonly txs = new Map<string, ParsedTx>();

  constructor(private readonly chain: ChainModel) {}

  clone(): MempoolModel {
    const copy = new MempoolModel(this.chain);
    for (const [txid, tx] of this.txs) copy.txs.set(txid, tx);
    return copy;
  }

  private spenderOf(outpoint: string): string | undefined {
    for (const [txid, tx] of this.txs) if (tx.inputs.some((i) => outId(i.prevTxid, i.vout) === outpoint)) return txid;
    return undefined;
  }

  /** Coins a new mempool transaction may spend: the tip's, less held spends, plus held outputs. */
  coins(): Map<string, { key: string; value: bigint }> {
    const all = new Map<string, { key: string; value: bigint }>([...this.chain.coins].map(([id, c]) => [id, c]));
    for (const tx of this.txs.values()) {
      for (const i of tx.inputs) all.delete(outId(i.prevTxid, i.vout));
      tx.outputs.forEach((o, v) => {
        if (!unspendable(o.script)) all.set(outId(tx.txid, v), { key: keyHex(o.script), value: o.value });
      });
    }
    return all;
  }

  /** Returns how many transactions left. */
  removeWithDescendants(txid: string): number {
    const tx = this.txs.get(txid);
    if (!tx) return 0;
    this.txs.delete(txid);
    let n = 1;
    for (let v = 0; v < tx.outputs.length; v++) {
      const child = this.spenderOf(outId(tx.txid, v));
      if (child) n += this.removeWithDescendants(child);
    }
    return n;
  }

  accept(tx: ParsedTx): void {
    for (const i of tx.inputs) {
      const other = this.spenderOf(outId(i.prevTxid, i.vout));
      if (other) this.removeWithDescendants(other);
    }
    this.txs.set(tx.txid.toString('hex'), tx);
  }

  /** Call before the block is applied to the chain model. */
  blockConnected(txs: readonly ParsedTx[]): void {
    for (const tx of txs) {
      if (tx.coinbase) continue;
      this.txs.delete(tx.txid.toString('hex'));
      for (const i of tx.inputs) {
        const other = this.spenderOf(outId(i.prevTxid, i.vout));
        if (other) this.removeWithDescendants(other);
      }
    }
  }

  clear(): void {
    this.txs.clear();
  }

  deltas(): Map<string, Delta> {
    const coins = new Map<string, { key: string; value: bigint }>([...this.chain.coins].map(([id, c]) => [id, c]));
    const out = new Map<string, Delta>();
    const at = (key: string): Delta => {
      const d = out.get(key) ?? { balanceSats: 0n, utxoCount: 0, txCount: 0 };
      out.set(key, d);
      return d;
    };
    for (const tx of this.txs.values()) {
      const touched = new Set<string>();
      for (const i of tx.inputs) {
        const id = outId(i.prevTxid, i.vout);
        const c = coins.get(id);
        if (!c) throw new Error(`mempool model: ${id} is not spendable`);
        coins.delete(id);
        at(c.key).balanceSats -= c.value;
        at(c.key).utxoCount -= 1;
        touched.add(c.key);
      }
      tx.outputs.forEach((o, v) => {
        if (unspendable(o.script)) return;
        const key = keyHex(o.script);
        coins.set(outId(tx.txid, v), { key, value: o.value });
        at(key).balanceSats += o.value;
        at(key).utxoCount += 1;
        touched.add(key);
      });
      for (const k of touched) at(k).txCount += 1;
    }
    return out;
  }
}
