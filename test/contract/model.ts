/**
 * The contract's expected values: an independent model of a chain's UTXO set, written without any of
 * src/store (its own script key and unspendable rule), keeping each tip's coins so that a rollback
 * restores exactly the set the block found. Genesis outputs are never connected, as in Core.
 */
import { createHash } from 'node:crypto';
import type { BlockToApply, Tip } from '../../src/store/index-model.js';

/** The first 16 bytes of SHA-256(script), hex. */
export const keyHex = (script: Buffer): string => createHash('sha256').update(script).digest().subarray(0, 16).toString('hex');

/** OP_RETURN or over MAX_SCRIPT_SIZE: never a UTXO. */
export const unspendable = (script: Buffer): boolean => (script.length > 0 && script[0] === 0x6a) || script.length > 10_000;

export const outId = (txid: Buffer, vout: number): string => `${txid.toString('hex')}:${vout}`;

/** Block hashes as the reader's status spells them (display order). */
export const displayHex = (hash: Buffer): string => Buffer.from(hash).reverse().toString('hex');

export interface Coin {
  readonly txid: Buffer;
  readonly vout: number;
  readonly key: string;
  readonly value: bigint;
  readonly height: number;
  readonly coinbase: boolean;
}

export interface Sum {
  balance: bigint;
  count: number;
}

export interface HistorySum {
  txCount: number;
  received: bigint;
  sent: bigint;
  /** Outputs paid to the script, and its coins spent. */
  funded: number;
  spent: number;
}

/** One transaction of a script's history, as a page lists it (txid in display hex). */
export interface HistoryLine {
  txid: string;
  height: number;
  position: number;
  received: bigint;
  sent: bigint;
}

export class ChainModel {
  readonly blocks: BlockToApply[] = [];
  /** Coins after each block of `blocks`. */
  private readonly states: Map<string, Coin>[] = [];

  get coins(): ReadonlyMap<string, Coin> {
    return this.states[this.states.length - 1] ?? new Map<string, Coin>();
  }

  get tip(): Tip | null {
    const b = this.blocks[this.blocks.length - 1];
    return b ? { height: b.height, hash: b.hash } : null;
  }

  apply(block: BlockToApply): void {
    const tip = this.tip;
    if (block.height !== (tip ? tip.height + 1 : 0) || (tip && !block.prevHash.equals(tip.hash)))
      throw new Error(`model: block ${block.height} does not extend the tip`);
    const coins = new Map(this.coins);
    if (block.height > 0) {
      for (const tx of block.txs) {
        if (!tx.coinbase)
          for (const i of tx.inputs) if (!coins.delete(outId(i.prevTxid, i.vout))) throw new Error('model: spends a missing coin');
        tx.outputs.forEach((o, vout) => {
          if (unspendable(o.script)) return;
          coins.set(outId(tx.txid, vout), {
            txid: tx.txid,
            vout,
            key: keyHex(o.script),
            value: o.value,
            height: block.height,
            coinbase: tx.coinbase,
          });
        });
      }
    }
    this.blocks.push(block);
    this.states.push(coins);
  }

  rollback(): void {
    if (this.blocks.length === 0) throw new Error('model: nothing to roll back');
    this.blocks.pop();
    this.states.pop();
  }

  /** Balance and UTXO count by script key; scripts without coins are absent. */
  sums(): Map<string, Sum> {
    const sums = new Map<string, Sum>();
    for (const c of this.coins.values()) {
      const s = sums.get(c.key) ?? { balance: 0n, count: 0 };
      s.balance += c.value;
      s.count += 1;
      sums.set(c.key, s);
    }
    return sums;
  }

  /**
   * Each script's history over the chain: distinct transactions paying to or spending from it, and what
   * they paid and spent there (replayed from the blocks, genesis and unspendable outputs left out);
   * `lines` newest first.
   */
  history(): Map<string, HistorySum & { lines: HistoryLine[] }> {
    const sums = new Map<string, HistorySum & { lines: HistoryLine[] }>();
    const live = new Map<string, Coin>();
    for (const block of this.blocks) {
      if (block.height === 0) continue;
      block.txs.forEach((tx, position) => {
        const lines = new Map<string, HistoryLine>();
        const sum = (key: string): { s: HistorySum; line: HistoryLine } => {
          let s = sums.get(key);
          if (!s) sums.set(key, (s = { txCount: 0, received: 0n, sent: 0n, funded: 0, spent: 0, lines: [] }));
          let line = lines.get(key);
          if (!line) {
            line = { txid: displayHex(tx.txid), height: block.height, position, received: 0n, sent: 0n };
            lines.set(key, line);
            s.lines.unshift(line);
            s.txCount++;
          }
          return { s, line };
        };
        if (!tx.coinbase)
          for (const i of tx.inputs) {
            const coin = live.get(outId(i.prevTxid, i.vout))!;
            live.delete(outId(i.prevTxid, i.vout));
            const { s, line } = sum(coin.key);
            s.sent += coin.value;
            s.spent += 1;
            line.sent += coin.value;
          }
        tx.outputs.forEach((o, vout) => {
          if (unspendable(o.script)) return;
          const coin = { txid: tx.txid, vout, key: keyHex(o.script), value: o.value, height: block.height, coinbase: tx.coinbase };
          live.set(outId(tx.txid, vout), coin);
          const { s, line } = sum(coin.key);
          s.received += o.value;
          s.funded += 1;
          line.received += o.value;
        });
      });
    }
    return sums;
  }

  totals(): { utxos: number; amount: bigint; scripts: number } {
    let amount = 0n;
    for (const c of this.coins.values()) amount += c.value;
    return { utxos: this.coins.size, amount, scripts: this.sums().size };
  }

  /** A model of the chain that ends at `tip`, whose blocks are all in `byHash` (hex of the internal hash). */
  static ofTip(tip: Buffer | null, byHash: ReadonlyMap<string, BlockToApply>): ChainModel {
    const chain: BlockToApply[] = [];
    for (let at = tip; at !== null;) {
      const b = byHash.get(at.toString('hex'));
      if (!b) throw new Error(`model: unknown block ${at.toString('hex')}`);
      chain.push(b);
      at = b.height === 0 ? null : b.prevHash;
    }
    const model = new ChainModel();
    for (const b of chain.reverse()) model.apply(b);
    return model;
  }
}
