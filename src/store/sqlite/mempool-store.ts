/**
 * The mempool view of a chain's index (written by the indexer's mempool follower, and by ChainStore when
 * blocks connect or disconnect). Tables (migrations/0002_mempool.sql, 0007_mempool_history.sql,
 * 0010_mempool_fee.sql; 0012 indexes mempool_outputs by script_key):
 *
 * | table           | key              | value                                | invariant                                                  |
 * |-----------------|------------------|--------------------------------------|------------------------------------------------------------|
 * | mempool_txs     | txid             | seq, outputs, effect (inputs, Δ), fee, unconfirmed_inputs | the node's mempool transactions whose inputs we could resolve |
 * | mempool_outputs | outpoint         | script_key, value                    | spendable outputs of mempool_txs rows                      |
 * | mempool_spends  | outpoint         | txid                                 | each input of each mempool_txs row; one spender per outpoint |
 * | mempool_scripts | script_key       | received, sent, utxo_count, tx_count | = SUM of the effects in mempool_txs; no row when tx_count = 0 |
 * | mempool_history | script_key, seq  | txid, received, sent                 | only while history is kept: one row per (held tx, script in its effect) |
 *
 * Effect of a transaction (mempool-effect.ts): per script, the value of its spendable outputs to the
 * script (received, +1 each) and of the coins of the script its inputs spend, confirmed UTXOs or mempool
 * outputs (sent, −1 each). Effects are additive, so for every script confirmed + (received − sent) over
 * all mempool txs = what the script holds once the whole mempool is mined: a coin made and spent inside
 * the mempool counts in both and nets to zero. `seq` numbers transactions in the order they were added
 * (meta mempool_seq, never reused): a parent is always added before its children, so it has the lower seq. MWEB-only transactions have no transparent input or output
 * and so no Δ; a peg-in spends transparent coins (negative Δ) into a v9 program no address maps to;
 * a peg-out pays its recipient only in the HogEx of the block that mines it.
 *
 * fee (mempool-effect.ts txFee) is fixed when the transaction is added: its inputs' values are known
 * then and never change. unconfirmed_inputs counts its distinct inputs spending a mempool_outputs row, so
 * it is > 0 exactly while a parent is held (Electrum's height −1): removing a transaction (mined,
 * replaced, dropped) takes one off each held child per output of it that child spends.
 *
 * Every method runs synchronously; add/remove open their own transaction, the block hooks run inside
 * ChainStore's, so a block and the mempool rows it mines or conflicts commit together.
 */
import type { ParsedTx } from '../../chain/block-parser.js';
import { isUnspendable } from '../../chain/script.js';
import { FEED_MAX_SCRIPTS, type ChangeFeed } from './change-feed.js';
import type { Db } from './db.js';
import { decodeEffect, encodeEffect, txEffect, txFee, type Flow, type TxEffect } from '../mempool-effect.js';
import { outpointKey } from '../outpoint.js';
import { scriptKey } from '../script-key.js';
import type Database from 'better-sqlite3';
import type { AddResult } from '../index-model.js';

interface Coin {
  script_key: Buffer;
  value: bigint;
}

interface Statements {
  txGet: Database.Statement<[Buffer], { seq: number; outputs: number; effect: Buffer }>;
  txHas: Database.Statement<[Buffer], number>;
  txInsert: Database.Statement<[Buffer, number, number, Buffer, bigint | null, number]>;
  /** One input fewer spending a held output: its parent left the view. */
  txParentGone: Database.Statement<[Buffer]>;
  txDelete: Database.Statement<[Buffer]>;
  txCount: Database.Statement<[], number>;
  txids: Database.Statement<[], Buffer>;
  outGet: Database.Statement<[Buffer], Coin>;
  outInsert: Database.Statement<[Buffer, Buffer, bigint]>;
  outDelete: Database.Statement<[Buffer]>;
  utxoGet: Database.Statement<[Buffer], Coin>;
  spendGet: Database.Statement<[Buffer], Buffer>;
  spendInsert: Database.Statement<[Buffer, Buffer]>;
  spendDelete: Database.Statement<[Buffer]>;
  scriptAdd: Database.Statement<[Buffer, bigint, bigint, number, number]>;
  scriptPrune: Database.Statement<[Buffer]>;
  historyInsert: Database.Statement<[Buffer, number, Buffer, bigint, bigint]>;
  historyDelete: Database.Statement<[Buffer, number]>;
  seqGet: Database.Statement<[], number>;
  seqSet: Database.Statement<[number]>;
  /** Keys of mempool_scripts, one past the feed's cap at most (what a clear touches). */
  scriptKeys: Database.Statement<[number], Buffer>;
  clear: Array<Database.Statement<[]>>;
}

function prepare(db: Db): Statements {
  return {
    txGet: db.prepare('SELECT seq, outputs, effect FROM mempool_txs WHERE txid = ?'),
    txHas: db.prepare<[Buffer], number>('SELECT 1 FROM mempool_txs WHERE txid = ?').pluck(),
    txInsert: db.prepare('INSERT INTO mempool_txs (txid, seq, outputs, effect, fee, unconfirmed_inputs) VALUES (?, ?, ?, ?, ?, ?)'),
    txParentGone: db.prepare('UPDATE mempool_txs SET unconfirmed_inputs = unconfirmed_inputs - 1 WHERE txid = ?'),
    txDelete: db.prepare('DELETE FROM mempool_txs WHERE txid = ?'),
    txCount: db.prepare<[], number>('SELECT COUNT(*) FROM mempool_txs').pluck(),
    txids: db.prepare<[], Buffer>('SELECT txid FROM mempool_txs').pluck(),
    // Amounts are read as bigint (safeIntegers): the value is these statements' only integer column.
    outGet: db.prepare<[Buffer], Coin>('SELECT script_key, value FROM mempool_outputs WHERE outpoint = ?').safeIntegers(true),
    outInsert: db.prepare('INSERT OR REPLACE INTO mempool_outputs (outpoint, script_key, value) VALUES (?, ?, ?)'),
    outDelete: db.prepare('DELETE FROM mempool_outputs WHERE outpoint = ?'),
    utxoGet: db.prepare<[Buffer], Coin>('SELECT script_key, value FROM utxos WHERE outpoint = ?').safeIntegers(true),
    spendGet: db.prepare<[Buffer], Buffer>('SELECT txid FROM mempool_spends WHERE outpoint = ?').pluck(),
    spendInsert: db.prepare('INSERT OR REPLACE INTO mempool_spends (outpoint, txid) VALUES (?, ?)'),
    spendDelete: db.prepare('DELETE FROM mempool_spends WHERE outpoint = ?'),
    scriptAdd: db.prepare(
      'INSERT INTO mempool_scripts (script_key, received, sent, utxo_count, tx_count) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (script_key) DO UPDATE SET received = received + excluded.received, sent = sent + excluded.sent, ' +
        'utxo_count = utxo_count + excluded.utxo_count, tx_count = tx_count + excluded.tx_count',
    ),
    scriptPrune: db.prepare('DELETE FROM mempool_scripts WHERE script_key = ? AND tx_count <= 0'),
    historyInsert: db.prepare('INSERT INTO mempool_history (script_key, seq, txid, received, sent) VALUES (?, ?, ?, ?, ?)'),
    historyDelete: db.prepare('DELETE FROM mempool_history WHERE script_key = ? AND seq = ?'),
    seqGet: db.prepare<[], number>(`SELECT value FROM meta WHERE key = '${SEQ_KEY}'`).pluck(),
    seqSet: db.prepare(`INSERT INTO meta (key, value) VALUES ('${SEQ_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    scriptKeys: db.prepare<[number], Buffer>('SELECT script_key FROM mempool_scripts LIMIT ?').pluck(),
    clear: ['mempool_txs', 'mempool_outputs', 'mempool_spends', 'mempool_scripts', 'mempool_history'].map((t) =>
      db.prepare(`DELETE FROM ${t}`),
    ),
  };
}

/** meta key: the last seq given to a mempool transaction. */
const SEQ_KEY = 'mempool_seq';

export class MempoolStore {
  private readonly s: Statements;
  /** Rows in mempool_txs; lets block connection skip all mempool work while the view is empty (catch-up). */
  private count: number;
  private clearCount = 0;
  /** The last seq given (meta mempool_seq). */
  private seq: number;
  /**
   * `feed`: where add/remove record the scripts they touch; block hooks leave that to ChainStore's record.
   * `history`: whether the index keeps history, and so mempool_history (history-store.ts drops it with the
   * rest; history starts only on an index with no block, whose view holds no transaction touching a script).
   */
  constructor(
    private readonly db: Db,
    private readonly feed: ChangeFeed | null = null,
    private readonly history: () => boolean = () => false,
  ) {
    this.s = prepare(db);
    this.count = this.s.txCount.get() ?? 0;
    this.seq = this.s.seqGet.get() ?? 0;
  }

  get size(): number {
    return this.count;
  }

  /** How many times the view was emptied by a rollback in this process: the follower re-reads the node then. */
  get clears(): number {
    return this.clearCount;
  }

  has(txid: Buffer): boolean {
    return this.s.txHas.get(txid) !== undefined;
  }

  /** Every txid held (internal byte order); for the reconcile diff, one row at a time. */
  *txids(): Generator<Buffer> {
    yield* this.s.txids.iterate();
  }

  /**
   * Adds transactions in one SQLite transaction, parents before children whatever the given order. A
   * transaction spending an outpoint another held transaction spends replaces it (and its descendants):
   * the node's mempool never holds both, so the newer report wins, as an RBF replacement does.
   */
  add(txs: readonly ParsedTx[]): AddResult {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const result: AddResult = { added: 0, known: 0, unresolved: [] };
          let pending = [...txs];
          for (;;) {
            const retry: ParsedTx[] = [];
            for (const tx of pending) {
              const outcome = this.addOne(tx);
              if (outcome === 'added') result.added++;
              else if (outcome === 'known') result.known++;
              else retry.push(tx);
            }
            // Another pass only helps when this one added a parent some retried transaction waits for.
            if (retry.length === pending.length || retry.length === 0) {
              result.unresolved = retry;
              break;
            }
            pending = retry;
          }
          if (result.added > 0) this.s.seqSet.run(this.seq);
          this.feed?.record('mempool', null);
          return result;
        })
        .immediate(),
    );
  }

  /** Removes transactions and their descendants (the node drops both together); returns how many went. */
  remove(txids: readonly Buffer[]): number {
    return this.guard(() =>
      this.db
        .transaction(() => {
          let removed = 0;
          for (const txid of txids) removed += this.removeWithDescendants(txid);
          this.feed?.record('mempool', null);
          return removed;
        })
        .immediate(),
    );
  }

  /** Runs a write; when its transaction rolls back, the in-memory count is read again from the table. */
  guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      this.count = this.s.txCount.get() ?? 0;
      this.seq = this.s.seqGet.get() ?? 0;
      this.feed?.discard();
      throw err;
    }
  }

  /**
   * Inside ChainStore's block transaction: a mined transaction leaves the view (its children stay: the
   * coins they spend are now confirmed, same script and value); a held transaction spending a coin the
   * block spends is a conflict and goes with its descendants (Core's removeForBlock / removeConflicts).
   */
  blockConnected(txs: readonly ParsedTx[]): void {
    if (this.count === 0) return;
    for (const tx of txs) {
      if (tx.coinbase) continue;
      if (this.s.txHas.get(tx.txid) !== undefined) this.childrenStay(this.removeOne(tx.txid) ?? []);
      for (const input of tx.inputs) {
        const spender = this.s.spendGet.get(outpointKey(input.prevTxid, input.vout));
        if (spender !== undefined && !spender.equals(tx.txid)) this.removeWithDescendants(spender);
      }
      if (this.count === 0) return;
    }
  }

  /** Inside ChainStore's rollback transaction: the view is rebuilt from the node's mempool afterwards. */
  clear(): void {
    if (this.feed && this.count > 0) {
      const keys = this.s.scriptKeys.all(FEED_MAX_SCRIPTS + 1);
      if (keys.length > FEED_MAX_SCRIPTS) this.feed.touchEverything();
      else for (const key of keys) this.feed.touch(key);
    }
    for (const stmt of this.s.clear) stmt.run();
    this.count = 0;
    this.clearCount++;
  }

  private addOne(tx: ParsedTx): 'added' | 'known' | 'unresolved' {
    if (this.s.txHas.get(tx.txid) !== undefined) return 'known';
    const spent: (Flow & { outpoint: Buffer })[] = [];
    // Distinct outpoints (as mempool_spends): one row each, so one decrement each when their parent goes.
    const unconfirmed = new Set<string>();
    for (const input of tx.inputs) {
      const outpoint = outpointKey(input.prevTxid, input.vout);
      const held = this.s.outGet.get(outpoint);
      const coin = held ?? this.s.utxoGet.get(outpoint);
      if (!coin) return this.isConfirmed(tx) ? 'known' : 'unresolved';
      if (held) unconfirmed.add(outpoint.toString('latin1'));
      spent.push({ outpoint, key: coin.script_key, value: coin.value });
    }
    // An input spent by another held transaction: that one was replaced (or conflicted) in the node.
    for (const { outpoint } of spent) {
      const other = this.s.spendGet.get(outpoint);
      if (other !== undefined) this.removeWithDescendants(other);
    }
    const outputs = tx.outputs;
    const paid: Flow[] = [];
    for (let vout = 0; vout < outputs.length; vout++) {
      const out = outputs[vout]!;
      if (isUnspendable(out.script)) continue;
      const key = scriptKey(out.script);
      this.s.outInsert.run(outpointKey(tx.txid, vout), key, out.value);
      paid.push({ key, value: out.value });
    }
    const effect = txEffect(spent, paid);
    for (const outpoint of effect.inputs) this.s.spendInsert.run(outpoint, tx.txid);
    const seq = ++this.seq;
    this.s.txInsert.run(tx.txid, seq, outputs.length, encodeEffect(effect), txFee(spent, tx), unconfirmed.size);
    this.applyScripts(tx.txid, seq, effect, 1);
    this.count++;
    return 'added';
  }

  /** A transaction already in a block we indexed (a late report): one of its outputs is a confirmed UTXO. */
  private isConfirmed(tx: ParsedTx): boolean {
    for (let vout = 0; vout < tx.outputs.length; vout++) {
      if (this.s.utxoGet.get(outpointKey(tx.txid, vout)) !== undefined) return true;
    }
    return false;
  }

  private removeWithDescendants(txid: Buffer): number {
    let removed = 0;
    const stack = [txid];
    while (stack.length > 0) {
      const children = this.removeOne(stack.pop()!);
      if (children === null) continue;
      removed++;
      stack.push(...children);
    }
    return removed;
  }

  /**
   * Removes one transaction's rows and subtracts its effect; returns the held transactions spending its
   * outputs (one entry per output spent, each told it has one held parent input fewer), or null when
   * not held.
   */
  private removeOne(txid: Buffer): Buffer[] | null {
    const row = this.s.txGet.get(txid);
    if (!row) return null;
    const effect = decodeEffect(row.effect);
    for (const outpoint of effect.inputs) {
      const spender = this.s.spendGet.get(outpoint);
      if (spender !== undefined && spender.equals(txid)) this.s.spendDelete.run(outpoint);
    }
    const children: Buffer[] = [];
    for (let vout = 0; vout < row.outputs; vout++) {
      const outpoint = outpointKey(txid, vout);
      if (this.s.outDelete.run(outpoint).changes === 0) continue; // unspendable: never stored, never spent
      const child = this.s.spendGet.get(outpoint);
      if (child === undefined) continue;
      this.s.txParentGone.run(child);
      children.push(child);
    }
    this.s.txDelete.run(txid);
    this.applyScripts(txid, row.seq, effect, -1);
    this.count--;
    return children;
  }

  /**
   * The held children of a mined transaction: their effects do not change, but one whose last held parent
   * went now spends only confirmed coins (Electrum's height 0, not −1), so the feed names their scripts
   * for subscribers to re-read those statuses.
   */
  private childrenStay(children: readonly Buffer[]): void {
    if (!this.feed) return;
    for (const child of children) {
      const row = this.s.txGet.get(child);
      if (row) for (const s of decodeEffect(row.effect).scripts) this.feed.touch(s.key);
    }
  }

  private applyScripts(txid: Buffer, seq: number, effect: TxEffect, sign: 1 | -1): void {
    for (const s of effect.scripts) {
      this.feed?.touch(s.key);
      this.s.scriptAdd.run(s.key, sign < 0 ? -s.received : s.received, sign < 0 ? -s.sent : s.sent, sign * s.count, sign);
      if (sign < 0) this.s.scriptPrune.run(s.key);
      if (!this.history()) continue;
      if (sign > 0) this.s.historyInsert.run(s.key, seq, txid, s.received, s.sent);
      else this.s.historyDelete.run(s.key, seq);
    }
  }
}
