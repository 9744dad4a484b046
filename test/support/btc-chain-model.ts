/**
 * The chain builder's own UTXO set, kept independently of any project code so tests can compare the
 * indexer's answers against it. Rules as Bitcoin Core's CCoinsViewCache::AddCoin / UpdateCoins:
 * outputs whose script is unspendable (OP_RETURN-led, or longer than MAX_SCRIPT_SIZE) never enter the
 * set; every other output does, whatever its script (even empty). Per-block undo data mirrors Core's
 * CBlockUndo so a reorg can disconnect blocks exactly.
 */
import type { Transaction } from 'bitcoinjs-lib';

/** Bitcoin Core's MAX_SCRIPT_SIZE. */
const MAX_SCRIPT_SIZE = 10_000;
const OP_RETURN = 0x6a;

export interface Coin {
  /** scriptPubKey, lower-case hex. */
  readonly script: string;
  /** Satoshis; every amount is < 21e6 BTC < 2^53, so `number` is exact. */
  readonly value: number;
  readonly height: number;
  readonly coinbase: boolean;
}

export interface Balance {
  sats: number;
  utxos: number;
}

/** What disconnecting one block needs: the coins it spent and the outpoints it created. */
export interface BlockUndo {
  readonly spent: ReadonlyArray<readonly [string, Coin]>;
  readonly created: readonly string[];
}

/** Core's CScript::IsUnspendable(). */
export function isUnspendableScript(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export class UtxoModel {
  private readonly coins = new Map<string, Coin>();

  get size(): number {
    return this.coins.size;
  }

  get(outpoint: string): Coin | undefined {
    return this.coins.get(outpoint);
  }

  entries(): IterableIterator<[string, Coin]> {
    return this.coins.entries();
  }

  /**
   * Connects one transaction (Core's UpdateCoins): spends its inputs, adds its spendable outputs.
   * Appends to `undo` so the whole block can be disconnected later. Throws on a missing input —
   * the builder must never produce one.
   */
  applyTx(tx: Transaction, height: number, undo: { spent: [string, Coin][]; created: string[] }): void {
    const coinbase = tx.isCoinbase();
    if (!coinbase) {
      for (const input of tx.ins) {
        const key = outpointKey(Buffer.from(input.hash).reverse().toString('hex'), input.index);
        const coin = this.coins.get(key);
        if (!coin) throw new Error(`model: missing input ${key}`);
        this.coins.delete(key);
        undo.spent.push([key, coin]);
      }
    }
    const txid = tx.getId();
    tx.outs.forEach((out, vout) => {
      if (isUnspendableScript(out.script)) return;
      const key = outpointKey(txid, vout);
      if (this.coins.has(key)) throw new Error(`model: duplicate outpoint ${key} (BIP30)`);
      this.coins.set(key, { script: Buffer.from(out.script).toString('hex'), value: Number(out.value), height, coinbase });
      undo.created.push(key);
    });
  }

  /**
   * Core's DisconnectBlock: restore what the block spent, then remove what it created. In this order a
   * coin both created and spent inside the block ends up absent, as it was before the block.
   */
  undoBlock(undo: BlockUndo): void {
    for (const [key, coin] of undo.spent) this.coins.set(key, coin);
    for (const key of undo.created) this.coins.delete(key);
  }

  /** Per scriptPubKey hex: satoshis and UTXO count. Only scripts with at least one UTXO appear. */
  balances(): Map<string, Balance> {
    const out = new Map<string, Balance>();
    for (const coin of this.coins.values()) {
      const b = out.get(coin.script);
      if (b) {
        b.sats += coin.value;
        b.utxos += 1;
      } else out.set(coin.script, { sats: coin.value, utxos: 1 });
    }
    return out;
  }

  totals(): Balance {
    let sats = 0;
    for (const coin of this.coins.values()) sats += coin.value;
    return { sats, utxos: this.coins.size };
  }
}
