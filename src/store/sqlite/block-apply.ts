/**
 * The UTXO effects of blocks (connect) and of their undo records (disconnect), run inside the caller's
 * transaction. Matches Bitcoin Core's ConnectBlock / UpdateCoins / AddCoins / DisconnectBlock as far as
 * the UTXO set goes (validation is the node's job; we follow its active chain):
 *
 * - Genesis (height 0) connects nothing: Core's ConnectBlock returns early for it, so its coinbase is
 *   never in the UTXO set.
 * - Outputs with CScript::IsUnspendable() (OP_RETURN-led, > 10,000 bytes) are never added (AddCoin).
 * - A coinbase output may overwrite an existing unspent outpoint (AddCoins with possible_overwrite =
 *   IsCoinBase(): BTC heights 91842 / 91880 repeat the coinbase txids of 91812 / 91722). The old coin is
 *   removed from its aggregate and the new one added, so it counts once; the undo record keeps the old
 *   coin so a rollback restores it. Any other overwrite is an error, as Core's logic_error.
 * - An input whose outpoint is not in the set is fatal (MISSING_UTXO): the index and the chain disagree.
 * - Outputs created earlier in the same block or batch may be spent later in it: new coins are kept in
 *   memory until the end of the batch, so a coin born and spent within one batch never touches SQLite.
 * - Litecoin MWEB programs (peg-in `OP_9 <32>`, HogAddr `OP_8 <32>`) are ordinary UTXOs of their own
 *   script: the HogEx spends them, and gettxoutsetinfo counts them. No address maps to those scripts.
 */
import type { ParsedTx } from '../../chain/block-parser.js';
import { isUnspendable } from '../../chain/script.js';
import { StoreError } from '../errors.js';
import { formatOutpoint, outpointKey } from '../outpoint.js';
import type { ScriptDeltas } from './script-deltas.js';
import { scriptKey } from '../script-key.js';
import { CHUNK, type WriteStatements } from './statements.js';
import type { BlockUndo, UndoCoin } from '../undo.js';

/** A UTXO with its outpoint key: the shape of a utxos row, of a pending coin and of an undo entry. */
type Coin = UndoCoin;

/** Per-block bookkeeping for the undo record, only for blocks inside the undo window. */
interface UndoTracker {
  spent: UndoCoin[];
  /** Outpoint ids (latin1) created by this block and still unspent. */
  created: Map<string, Buffer>;
}

export class BatchApplier {
  /** Coins created in this batch, not yet written: outpoint id (latin1 of the key) → coin. */
  private readonly pending = new Map<string, Coin>();
  private undo: UndoTracker | null = null;

  constructor(
    private readonly stmts: WriteStatements,
    private readonly deltas: ScriptDeltas,
  ) {}

  /** Applies one block's transactions; returns its undo record when `keepUndo`. */
  connectBlock(height: number, txs: readonly ParsedTx[], keepUndo: boolean): BlockUndo | null {
    this.undo = keepUndo ? { spent: [], created: new Map() } : null;
    if (height > 0) {
      for (const tx of txs) {
        if (!tx.coinbase) {
          for (const input of tx.inputs) this.spend(outpointKey(input.prevTxid, input.vout), height);
        }
        const outputs = tx.outputs;
        for (let vout = 0; vout < outputs.length; vout++) {
          const out = outputs[vout]!;
          if (isUnspendable(out.script)) continue;
          this.create({ outpoint: outpointKey(tx.txid, vout), scriptKey: scriptKey(out.script), value: out.value, height }, tx.coinbase);
        }
      }
    }
    const undo = this.undo;
    this.undo = null;
    return undo && { spent: undo.spent, created: [...undo.created.values()] };
  }

  /** Writes the coins still pending, in key order (b-tree locality), CHUNK rows per statement. Call once. */
  flush(): void {
    const ids = [...this.pending.keys()].sort();
    const args: unknown[] = new Array<unknown>(4 * CHUNK);
    let i = 0;
    for (; i + CHUNK <= ids.length; i += CHUNK) {
      for (let j = 0; j < CHUNK; j++) {
        const c = this.pending.get(ids[i + j]!)!;
        args[4 * j] = c.outpoint;
        args[4 * j + 1] = c.scriptKey;
        args[4 * j + 2] = c.value;
        args[4 * j + 3] = c.height;
      }
      this.insert(() => this.stmts.utxoInsertChunk.run(...args), ids.slice(i, i + CHUNK));
    }
    for (; i < ids.length; i++) {
      const c = this.pending.get(ids[i]!)!;
      this.insert(() => this.stmts.utxoInsert.run(c.outpoint, c.scriptKey, c.value, c.height), [ids[i]!]);
    }
    this.pending.clear();
  }

  /** Runs an insert; a primary-key conflict (an unspent outpoint created again) becomes INCONSISTENT. */
  private insert(run: () => void, ids: string[]): void {
    try {
      run();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw err;
      // The failed statement was backed out whole: the row still present is the one that conflicted.
      const dup = ids.map((id) => this.pending.get(id)!).find((c) => this.stmts.utxoExists.get(c.outpoint));
      const what = dup ? `${formatOutpoint(dup.outpoint)} created at height ${dup.height}` : 'an outpoint';
      throw new StoreError('INCONSISTENT', `${what} is already unspent in the index`, { cause: err });
    }
  }

  private spend(outpoint: Buffer, height: number): void {
    const id = outpoint.toString('latin1');
    let coin = this.pending.get(id);
    if (coin) {
      this.pending.delete(id);
      // Born in this very block: it appears in neither undo list.
      if (this.undo && !this.undo.created.delete(id)) this.undo.spent.push(coin);
    } else {
      coin = this.takeFromDb(outpoint) ?? undefined;
      if (!coin) {
        throw new StoreError(
          'MISSING_UTXO',
          `block ${height} spends ${formatOutpoint(outpoint)}, which is not in the index's UTXO set: the index is inconsistent with the chain`,
        );
      }
      this.undo?.spent.push(coin);
    }
    this.deltas.add(coin.scriptKey, -coin.value, -1);
  }

  private create(coin: Coin, coinbase: boolean): void {
    const id = coin.outpoint.toString('latin1');
    // Only a coinbase may overwrite (AddCoins' possible_overwrite): look for an old coin only then.
    if (coinbase) {
      const old = this.takeForOverwrite(id, coin.outpoint);
      if (old) this.deltas.add(old.scriptKey, -old.value, -1);
    } else if (this.pending.has(id)) {
      throw new StoreError('INCONSISTENT', `outpoint ${formatOutpoint(coin.outpoint)} created twice while unspent (non-coinbase)`);
    }
    this.pending.set(id, coin);
    this.undo?.created.set(id, coin.outpoint);
    this.deltas.add(coin.scriptKey, coin.value, 1);
  }

  /** Removes an unspent coin at `outpoint` about to be overwritten by a coinbase (BIP30 repeats). */
  private takeForOverwrite(id: string, outpoint: Buffer): Coin | null {
    const pending = this.pending.get(id);
    if (pending) {
      this.pending.delete(id);
      if (this.undo && !this.undo.created.delete(id)) this.undo.spent.push(pending);
      return pending;
    }
    const coin = this.takeFromDb(outpoint);
    if (coin) this.undo?.spent.push(coin);
    return coin;
  }

  private takeFromDb(outpoint: Buffer): Coin | null {
    const row = this.stmts.utxoTake.get(outpoint);
    // One coin's value is at most MAX_MONEY (< 2^53): exact as the number SQLite returns.
    return row ? { outpoint, scriptKey: row.script_key, value: BigInt(row.value), height: row.height } : null;
  }
}

/** Reverses one block from its undo record: delete what it created, then restore what it spent. */
export function disconnectBlock(stmts: WriteStatements, deltas: ScriptDeltas, height: number, undo: BlockUndo): void {
  for (const outpoint of undo.created) {
    const row = stmts.utxoTake.get(outpoint);
    if (!row) {
      throw new StoreError('MISSING_UTXO', `rolling back block ${height}: its output ${formatOutpoint(outpoint)} is not in the UTXO set`);
    }
    deltas.add(row.script_key, -BigInt(row.value), -1);
  }
  for (const coin of undo.spent) {
    try {
      stmts.utxoInsert.run(coin.outpoint, coin.scriptKey, coin.value, coin.height);
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw err;
      throw new StoreError(
        'INCONSISTENT',
        `rolling back block ${height}: outpoint ${formatOutpoint(coin.outpoint)} to restore is already unspent`,
        { cause: err },
      );
    }
    deltas.add(coin.scriptKey, coin.value, 1);
  }
}
