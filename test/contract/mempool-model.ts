/**
 * The node's mempool as the contract expects the index to mirror it: transactions in a topological
 * order on top of a ChainModel's coins. A new transaction spending an outpoint a held one spends
 * replaces it with its descendants; a block removes what it mines (children stay) and what conflicts
 * with it (with descendants). Per script: Δ balance and Δ UTXO count once the whole mempool is mined,
 * how many held transactions touch it, what they pay to it and spend of it (received − sent = Δ balance),
 * and each held transaction's part.
 */
import type { ParsedTx } from '../../src/chain/block-parser.js';
import type { UnconfirmedItem } from '../../src/store/index-model.js';
import { displayHex, keyHex, outId, unspendable, type ChainModel } from './model.js';

export interface Delta {
  balanceSats: bigint;
  utxoCount: number;
  txCount: number;
  received: bigint;
  sent: bigint;
}

/** One held transaction's part in a script's history (txid in display hex). */
export interface MempoolLine {
  txid: string;
  received: bigint;
  sent: bigint;
  /** Display txids of the held transactions whose outputs it spends. */
  parents: string[];
  /** Its inputs' values minus all its outputs' (OP_RETURN too); null with an MWEB part. */
  fee: bigint | null;
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
    const out = new Map<string, Delta>();
    for (const [key, lines] of this.lines()) {
      const d: Delta = { balanceSats: 0n, utxoCount: 0, txCount: lines.length, received: 0n, sent: 0n };
      for (const l of lines) {
        d.received += l.received;
        d.sent += l.sent;
        d.utxoCount += l.count;
      }
      d.balanceSats = d.received - d.sent;
      out.set(key, d);
    }
    return out;
  }

  /** Per script key: the held transactions touching it, in the model's (topological) order (`funded`: outputs paying it). */
  lines(): Map<string, (MempoolLine & { count: number; funded: number })[]> {
    const coins = new Map<string, { key: string; value: bigint; from: string | null }>(
      [...this.chain.coins].map(([id, c]) => [id, { key: c.key, value: c.value, from: null }]),
    );
    const out = new Map<string, (MempoolLine & { count: number; funded: number })[]>();
    for (const tx of this.txs.values()) {
      const txid = Buffer.from(tx.txid).reverse().toString('hex');
      const mine = new Map<string, { received: bigint; sent: bigint; count: number; funded: number }>();
      const at = (key: string) => {
        if (!mine.has(key)) mine.set(key, { received: 0n, sent: 0n, count: 0, funded: 0 });
        return mine.get(key)!;
      };
      const parents = new Set<string>();
      let fee = -tx.outputs.reduce((sum, o) => sum + o.value, 0n);
      for (const i of tx.inputs) {
        const id = outId(i.prevTxid, i.vout);
        const c = coins.get(id);
        if (!c) throw new Error(`mempool model: ${id} is not spendable`);
        coins.delete(id);
        at(c.key).sent += c.value;
        at(c.key).count -= 1;
        if (c.from !== null) parents.add(c.from);
        fee += c.value;
      }
      tx.outputs.forEach((o, v) => {
        if (unspendable(o.script)) return;
        const key = keyHex(o.script);
        coins.set(outId(tx.txid, v), { key, value: o.value, from: txid });
        at(key).received += o.value;
        at(key).count += 1;
        at(key).funded += 1;
      });
      for (const [key, e] of mine)
        out.set(key, [...(out.get(key) ?? []), { txid, ...e, parents: [...parents], fee: tx.mweb ? null : fee }]);
    }
    return out;
  }
}

/** A mempool item of a page as the contract compares it. */
export interface UnconfirmedLine {
  txid: string;
  received: bigint;
  sent: bigint;
  fee: bigint | null;
  spendsUnconfirmed: boolean;
}

export const unconfirmedLine = (u: UnconfirmedItem): UnconfirmedLine => ({
  txid: displayHex(u.txid),
  received: u.received,
  sent: u.sent,
  fee: u.fee,
  spendsUnconfirmed: u.spendsUnconfirmed,
});

/** What the model says of one script's line: it spends unconfirmed while a parent is held. */
export const expectedUnconfirmedLine = (l: MempoolLine): UnconfirmedLine => ({
  txid: l.txid,
  received: l.received,
  sent: l.sent,
  fee: l.fee,
  spendsUnconfirmed: l.parents.length > 0,
});
