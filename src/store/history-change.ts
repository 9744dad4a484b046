/**
 * The history side of connecting blocks (issue 33), as plain data: for each block its transaction
 * numbers and txids, and for each transaction, per script it pays to or spends from, one entry with
 * what it paid and spent there. connect-blocks.ts feeds it the same coins it moves through the UTXO
 * set, so history and balances agree by construction: received − sent = balance, funded − spent =
 * UTXO count, for every script at every commit.
 *
 * What counts is what enters or leaves the UTXO set: unspendable outputs and the genesis block do not.
 * A coinbase that overwrites an unspent coin of the same outpoint (BIP30, BTC 91842/91880) removes the
 * old coin as a spend would, so it is recorded as spent by that coinbase.
 */
import { HISTORY_KEY_BYTES } from './history-chunk.js';
import type { UndoCoin as Coin } from './undo.js';

export interface HistoryEntryChange {
  /** The script's key (the first of them, for two whose history keys collide: history-chunk.ts). */
  readonly scriptKey: Buffer;
  /** The latin1 string of its history key (history-chunk.ts historyKey), computed once for every map it keys. */
  readonly historyId: string;
  readonly txNum: number;
  readonly received: bigint;
  readonly sent: bigint;
  /** Outputs of the transaction paying the script, and coins of the script its inputs spent. */
  readonly funded: number;
  readonly spent: number;
}

/** An input of a numbered transaction and the output it spent: a row of the spend index (spend-key.ts). */
export interface SpendChange {
  /** The spent output's outpoint key (outpoint.ts). */
  readonly outpoint: Buffer;
  readonly txNum: number;
  /** The input's position in its transaction. */
  readonly vin: number;
}

export interface HistoryBlockChange {
  readonly height: number;
  /** The transaction number of the block's first transaction: one number per transaction, in chain order. */
  readonly firstTx: number;
  /** Every transaction of the block, in block order (position = number − firstTx). */
  readonly txids: readonly Buffer[];
  /** Ascending by transaction number; within one, by the script's first touch, one per history key. */
  readonly entries: readonly HistoryEntryChange[];
  /** Every input of the block's transactions (the coinbases' none), in chain order. */
  readonly spends: readonly SpendChange[];
}

export interface HistoryChange {
  readonly blocks: readonly HistoryBlockChange[];
  /** The number the next connected transaction gets. */
  readonly nextTx: number;
}

/** An entry while its transaction is being read: its figures still grow. */
type Pending = { -readonly [K in keyof HistoryEntryChange]: HistoryEntryChange[K] };

/** Collects one batch's entries; the caller says where each block and transaction starts. */
export class HistoryCollector {
  private readonly blocks: HistoryBlockChange[] = [];
  private entries: HistoryEntryChange[] = [];
  private spends: SpendChange[] = [];
  private readonly tx = new Map<string, Pending>();
  private txNum = -1;

  constructor(private nextTx: number) {}

  startBlock(height: number, txids: readonly Buffer[]): void {
    this.flush();
    this.entries = [];
    this.spends = [];
    this.blocks.push({ height, firstTx: this.nextTx, txids, entries: this.entries, spends: this.spends });
    this.nextTx += txids.length;
  }

  /** Transaction `position` of the current block is the one the next coins belong to. */
  startTx(position: number): void {
    this.flush();
    this.txNum = this.blocks[this.blocks.length - 1]!.firstTx + position;
  }

  received(coin: Coin): void {
    const p = this.pending(coin.scriptKey);
    p.received += coin.value;
    p.funded++;
  }

  sent(coin: Coin): void {
    const p = this.pending(coin.scriptKey);
    p.sent += coin.value;
    p.spent++;
  }

  /** Input `vin` of the current transaction spent the output at `outpoint`. */
  spentBy(outpoint: Buffer, vin: number): void {
    this.spends.push({ outpoint, txNum: this.txNum, vin });
  }

  result(): HistoryChange {
    this.flush();
    return { blocks: this.blocks, nextTx: this.nextTx };
  }

  private pending(key: Buffer): Pending {
    const id = key.toString('latin1', 0, HISTORY_KEY_BYTES);
    let p = this.tx.get(id);
    if (!p) {
      p = { scriptKey: key, historyId: id, txNum: this.txNum, received: 0n, sent: 0n, funded: 0, spent: 0 };
      this.tx.set(id, p);
    }
    return p;
  }

  private flush(): void {
    for (const p of this.tx.values()) this.entries.push(p);
    this.tx.clear();
  }
}
