/**
 * The UTXO effects of a batch of blocks, as a change set (change-set.ts) computed without a database:
 * `planBatch` reads the blocks once and lists the outpoints the engine must resolve against its index,
 * and `connectBlocks` turns the plan and those coins into what to write. Matches Bitcoin Core's
 * ConnectBlock / UpdateCoins / AddCoins as far as the UTXO set goes (validation is the node's job; we
 * follow its active chain):
 *
 * - Genesis (height 0) connects nothing: Core's ConnectBlock returns early for it, so its coinbase is
 *   never in the UTXO set.
 * - Outputs with CScript::IsUnspendable() (OP_RETURN-led, > 10,000 bytes) are never added (AddCoin).
 * - A coinbase output may overwrite an existing unspent outpoint (AddCoins with possible_overwrite =
 *   IsCoinBase(): BTC heights 91842 / 91880 repeat the coinbase txids of 91812 / 91722). The old coin is
 *   removed from its aggregate and the new one added, so it counts once; the undo record keeps the old
 *   coin so a rollback restores it. Any other overwrite is an error, as Core's logic_error: caught here
 *   within the batch, and by the engine's insert against the coins before it.
 * - An input whose outpoint is not in the set is fatal (MISSING_UTXO): the index and the chain disagree.
 * - Outputs created earlier in the same block or batch may be spent later in it: a coin born and spent
 *   within one batch is in no list of the change set.
 * - Litecoin MWEB programs (peg-in `OP_9 <32>`, HogAddr `OP_8 <32>`) are ordinary UTXOs of their own
 *   script: the HogEx spends them, and gettxoutsetinfo counts them. No address maps to those scripts.
 */
import type { ParsedTx } from '../chain/block-parser.js';
import { toDisplayHex } from '../chain/hash.js';
import { isUnspendable } from '../chain/script.js';
import { DeltaCollector, inIdOrder, type ChangeSet, type Coin, type UndoRow } from './change-set.js';
import { StoreError } from './errors.js';
import type { BlockToApply, Tip } from './index-model.js';
import { checkBlockHeaders } from './header-chain.js';
import { HistoryCollector } from './history-change.js';
import { formatOutpoint, outpointKey } from './outpoint.js';
import { scriptKey } from './script-key.js';
import type { UndoCoin } from './undo.js';

/** One UTXO step of a batch, in chain order: an input's spend (coin null) or an output's creation. */
interface Step {
  /** The outpoint's id (change-set.ts). */
  readonly id: string;
  readonly outpoint: Buffer;
  readonly coin: Coin | null;
  readonly coinbase: boolean;
  /** Position of the step's transaction in its block. */
  readonly tx: number;
  /** An input's position in its transaction (−1: an output). */
  readonly vin: number;
}

/** A batch read once: each block's steps with their keys, ids and script keys, and what it needs resolved. */
export interface BatchPlan {
  readonly blocks: readonly {
    readonly height: number;
    readonly hash: Buffer;
    readonly steps: readonly Step[];
    readonly txids: readonly Buffer[];
  }[];
  /**
   * The outpoints whose coins before the batch it needs, by id, in the order first needed: those its
   * inputs spend and its coinbases may overwrite, unless a coin created earlier in the batch and still
   * unspent at that point holds them. An outpoint the index lacks is simply not resolved: connectBlocks
   * decides whether that is an error.
   */
  readonly needed: ReadonlyMap<string, Buffer>;
}

/** Reads `blocks` (consecutive, ascending) into a plan: all the hashing and key building, done once. */
export function planBatch(blocks: readonly BlockToApply[]): BatchPlan {
  const needed = new Map<string, Buffer>();
  const pending = new Set<string>();
  const planned = blocks.map((block) => {
    const steps: Step[] = [];
    const txids = block.txs.map((tx) => tx.txid);
    // Genesis connects nothing: Core's ConnectBlock returns before its coinbase.
    if (block.height === 0) return { height: 0, hash: block.hash, steps, txids };
    for (let position = 0; position < block.txs.length; position++) {
      const tx = block.txs[position]!;
      if (!tx.coinbase) {
        tx.inputs.forEach((input, vin) => {
          const outpoint = outpointKey(input.prevTxid, input.vout);
          const id = outpoint.toString('latin1');
          if (!pending.delete(id) && !needed.has(id)) needed.set(id, outpoint);
          steps.push({ id, outpoint, coin: null, coinbase: false, tx: position, vin });
        });
      }
      const outputs = tx.outputs;
      for (let vout = 0; vout < outputs.length; vout++) {
        const out = outputs[vout]!;
        if (isUnspendable(out.script)) continue;
        const outpoint = outpointKey(tx.txid, vout);
        const id = outpoint.toString('latin1');
        if (tx.coinbase && !pending.has(id) && !needed.has(id)) needed.set(id, outpoint);
        pending.add(id);
        const coin = { outpoint, scriptKey: scriptKey(out.script), value: out.value, height: block.height };
        steps.push({ id, outpoint, coin, coinbase: tx.coinbase, tx: position, vin: -1 });
      }
    }
    return { height: block.height, hash: block.hash, steps, txids };
  });
  return { blocks: planned, needed };
}

/**
 * Throws NOT_CONNECTED unless `blocks` extend `tip` one by one (on an empty index, from height 0), and
 * BAD_HEADER unless each carries its own header (header-chain.ts).
 */
export function checkExtends(tip: Tip | null, blocks: readonly BlockToApply[]): void {
  let prev = tip;
  for (const b of blocks) {
    if (prev === null) {
      if (b.height !== 0) throw new StoreError('NOT_CONNECTED', `the index is empty: the first block must be height 0, got ${b.height}`);
    } else if (b.height !== prev.height + 1 || !b.prevHash.equals(prev.hash)) {
      throw new StoreError(
        'NOT_CONNECTED',
        `block ${b.height} (${toDisplayHex(b.hash)}, prev ${toDisplayHex(b.prevHash)}) does not extend ${prev.height} (${toDisplayHex(prev.hash)})`,
      );
    }
    prev = { height: b.height, hash: b.hash };
  }
  checkBlockHeaders(blocks);
}

/**
 * The change set of connecting a planned batch, given the coins the index held before it at the
 * outpoints `plan.needed` lists (absent: not in the index). Blocks at or above `undoFrom` get an undo
 * record. With `history` (the number of the batch's first transaction), the set carries the batch's
 * history too (history-change.ts). Throws StoreError MISSING_UTXO or INCONSISTENT.
 */
export function connectBlocks(
  plan: BatchPlan,
  resolved: ReadonlyMap<string, Coin>,
  undoFrom: number,
  history?: { readonly nextTx: number },
): ChangeSet {
  const batch = new Batch(resolved, history ? new HistoryCollector(history.nextTx) : null);
  const undo: UndoRow[] = [];
  for (const block of plan.blocks) {
    const record = batch.connect(block, block.height >= undoFrom);
    if (record) undo.push({ height: block.height, undo: record });
  }
  const last = plan.blocks[plan.blocks.length - 1];
  return { ...batch.result(), undo, tip: last ? { height: last.height, hash: last.hash } : null };
}

/** Per-block bookkeeping for the undo record, only for blocks inside the undo window. */
interface UndoTracker {
  spent: UndoCoin[];
  /** Outpoint ids created by this block and still unspent, with their keys. */
  created: Map<string, Buffer>;
}

class Batch {
  /** Coins the batch may still take from before it (taken ones leave). */
  private readonly before: Map<string, Coin>;
  /** Coins created in this batch and unspent so far. */
  private readonly pending = new Map<string, Coin>();
  private readonly spent: Coin[] = [];
  private readonly deltas = new DeltaCollector();
  private undo: UndoTracker | null = null;

  constructor(
    resolved: ReadonlyMap<string, Coin>,
    private readonly history: HistoryCollector | null,
  ) {
    this.before = new Map(resolved);
  }

  connect(block: BatchPlan['blocks'][number], keepUndo: boolean): { spent: UndoCoin[]; created: Buffer[] } | null {
    const { height, steps, txids } = block;
    this.undo = keepUndo ? { spent: [], created: new Map() } : null;
    const history = this.history;
    history?.startBlock(height, txids);
    let tx = -1;
    for (const step of steps) {
      if (history && step.tx !== tx) history.startTx((tx = step.tx));
      if (step.coin === null) this.spend(step.id, step.outpoint, height, step.vin);
      else this.create(step.id, step.coin, step.coinbase);
    }
    const undo = this.undo;
    this.undo = null;
    return undo && { spent: undo.spent, created: [...undo.created.values()] };
  }

  result(): Omit<ChangeSet, 'undo' | 'tip'> {
    // A script whose coins came and went within the batch has no delta, but its history changed.
    const { deltas, touched } = this.deltas.result(this.history !== null);
    const set = {
      created: inIdOrder(this.pending),
      spent: this.spent,
      deltas,
      touched,
      utxos: this.deltas.utxos,
      amount: this.deltas.amount,
    };
    return this.history ? { ...set, history: this.history.result() } : set;
  }

  private spend(id: string, outpoint: Buffer, height: number, vin: number): void {
    const coin = this.take(id);
    if (!coin) {
      throw new StoreError(
        'MISSING_UTXO',
        `block ${height} spends ${formatOutpoint(outpoint)}, which is not in the index's UTXO set: the index is inconsistent with the chain`,
      );
    }
    this.deltas.add(coin.scriptKey, -coin.value, -1);
    this.history?.sent(coin);
    this.history?.spentBy(outpoint, vin);
  }

  private create(id: string, coin: Coin, coinbase: boolean): void {
    // Only a coinbase may overwrite (AddCoins' possible_overwrite): look for an old coin only then.
    if (coinbase) {
      const old = this.take(id);
      if (old) {
        this.deltas.add(old.scriptKey, -old.value, -1);
        this.history?.sent(old);
      }
    } else if (this.pending.has(id)) {
      throw new StoreError('INCONSISTENT', `outpoint ${formatOutpoint(coin.outpoint)} created twice while unspent (non-coinbase)`);
    }
    this.pending.set(id, coin);
    this.undo?.created.set(id, coin.outpoint);
    this.deltas.add(coin.scriptKey, coin.value, 1);
    this.history?.received(coin);
  }

  /** Removes the unspent coin at `id` (spent, or overwritten by a coinbase); null when there is none. */
  private take(id: string): Coin | null {
    const pending = this.pending.get(id);
    if (pending) {
      this.pending.delete(id);
      // Born in this very block: it appears in neither undo list.
      if (this.undo && !this.undo.created.delete(id)) this.undo.spent.push(pending);
      return pending;
    }
    const coin = this.before.get(id);
    if (!coin) return null;
    this.before.delete(id);
    this.spent.push(coin);
    this.undo?.spent.push(coin);
    return coin;
  }
}

/** The coinbase txid of a block's transactions (blocks.coinbase_txid), null when the first is no coinbase. */
export function coinbaseTxid(txs: readonly ParsedTx[]): Buffer | null {
  const first = txs[0];
  return first?.coinbase === true ? first.txid : null;
}
