/**
 * The mempool view of a chain's index in PostgreSQL (migrations/postgres/0002_mempool.sql,
 * 0004_history.sql, 0007_mempool_fee.sql), with the semantics of the SQLite engine's
 * (../sqlite/mempool-store.ts, which also says how fee and unconfirmed_inputs are kept):
 *
 * | table           | key        | value                                | invariant                                                  |
 * |-----------------|------------|--------------------------------------|------------------------------------------------------------|
 * | mempool_txs     | txid       | seq, outputs, effect (inputs, Δ), fee, unconfirmed_inputs | the node's mempool transactions whose inputs we could resolve |
 * | mempool_outputs | outpoint   | script_key, value                    | spendable outputs of mempool_txs rows                      |
 * | mempool_spends  | outpoint   | txid                                 | each input of each mempool_txs row; one spender per outpoint |
 * | mempool_scripts | script_key | received, sent, utxo_count, tx_count | = SUM of the effects in mempool_txs; no row when tx_count = 0 |
 * | mempool_history | script_key, seq | txid, received, sent              | only while history is kept: one row per (held tx, script in its effect) |
 * | state           | one row    | mempool_seq                          | the last seq given (never reused)                          |
 *
 * add/remove/clear are each ONE transaction on the writer's connection, run in the writer's queue (the
 * writer serialises its calls), writing a feed row of kind mempool naming the scripts they touched (none
 * when they touched none). The block hooks run inside the writer's block and rollback transactions, so
 * a block and the mempool rows it mines or conflicts commit together, and a rollback empties the view.
 */
import type { ParsedTx } from '../../chain/block-parser.js';
import { isUnspendable } from '../../chain/script.js';
import type { AddResult } from '../index-model.js';
import { decodeEffect, encodeEffect, txEffect, txFee, type Flow, type TxEffect } from '../mempool-effect.js';
import { outpointKey } from '../outpoint.js';
import type { MempoolWriter } from '../ports.js';
import { scriptKey } from '../script-key.js';
import { FEED_MAX_SCRIPTS, Touched, recordChange } from './change-write.js';
import { inTransaction, type Queryable } from './pg-pool.js';

/** Runs a call of the writer in its queue, once the writer is known open. */
export type Serial = <T>(fn: () => Promise<T>) => Promise<T>;

interface CoinRow {
  script_key: Buffer | null;
  value: string | null;
  /** A mempool output (not a confirmed coin). */
  held: boolean;
}

export class PgMempool implements MempoolWriter {
  /** Rows in mempool_txs; lets block connection skip all mempool work while the view is empty (catch-up). */
  private count = 0;
  /** The last seq given (state.mempool_seq). */
  private seq = 0;
  private clearCount = 0;

  /**
   * `history`: whether the index keeps history, and so mempool_history (history-rows.ts drops it with the
   * rest; history starts only on an index with no block, or once a build ends by emptying this view).
   */
  constructor(
    private readonly client: Queryable,
    private readonly schema: string,
    private readonly serial: Serial,
    private readonly history: () => boolean = () => false,
  ) {}

  /** Reads the count and the last seq: at open, and after a transaction rolled back. */
  async load(): Promise<void> {
    const { rows } = await this.client.query<{ n: string; seq: string }>(
      `SELECT (SELECT count(*) FROM ${this.schema}.mempool_txs)::text AS n, mempool_seq::text AS seq FROM ${this.schema}.state`,
    );
    this.count = Number(rows[0]?.n ?? 0);
    this.seq = Number(rows[0]?.seq ?? 0);
  }

  size(): Promise<number> {
    return this.serial(() => Promise.resolve(this.count));
  }

  /** How many times the view was emptied (a rollback, clear()) in this process: the follower re-reads the node then. */
  clears(): number {
    return this.clearCount;
  }

  has(txid: Buffer): Promise<boolean> {
    return this.serial(
      async () => (await this.client.query(`SELECT 1 FROM ${this.schema}.mempool_txs WHERE txid = $1`, [txid])).rows.length > 0,
    );
  }

  txids(): Promise<Buffer[]> {
    return this.serial(async () =>
      (await this.client.query<{ txid: Buffer }>(`SELECT txid FROM ${this.schema}.mempool_txs`)).rows.map((r) => r.txid),
    );
  }

  /**
   * Adds transactions in one transaction, parents before children whatever the given order. A
   * transaction spending an outpoint another held transaction spends replaces it (and its descendants).
   */
  add(txs: readonly ParsedTx[]): Promise<AddResult> {
    return this.serial(() =>
      this.guard(() =>
        inTransaction(this.client, async () => {
          const touched = new Touched();
          const result: AddResult = { added: 0, known: 0, unresolved: [] };
          let pending = [...txs];
          for (;;) {
            const retry: ParsedTx[] = [];
            for (const tx of pending) {
              const outcome = await this.addOne(tx, touched);
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
          if (result.added > 0) await this.client.query(`UPDATE ${this.schema}.state SET mempool_seq = $1`, [this.seq]);
          await this.recordMempool(touched);
          return result;
        }),
      ),
    );
  }

  /** Removes transactions and their descendants (the node drops both together); returns how many went. */
  remove(txids: readonly Buffer[]): Promise<number> {
    return this.serial(() =>
      this.guard(() =>
        inTransaction(this.client, async () => {
          const touched = new Touched();
          let removed = 0;
          for (const txid of txids) removed += await this.removeWithDescendants(txid, touched);
          await this.recordMempool(touched);
          return removed;
        }),
      ),
    );
  }

  /** Empties the view in one transaction, its feed row naming the scripts it held. */
  clear(): Promise<void> {
    return this.serial(() =>
      this.guard(() =>
        inTransaction(this.client, async () => {
          const touched = new Touched();
          await this.emptied(touched);
          await this.recordMempool(touched);
        }),
      ),
    );
  }

  /** Runs a write; when its transaction rolled back, the count and seq are read again from the tables. */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // A lost connection fails this read too: the writer says so on its next call.
      await this.load().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Inside the writer's block transaction: a mined transaction leaves the view (its children stay: the
   * coins they spend are now confirmed, same script and value); a held transaction spending a coin the
   * block spends is a conflict and goes with its descendants (Core's removeForBlock / removeConflicts).
   */
  async blockConnected(txs: readonly ParsedTx[], touched: Touched): Promise<void> {
    if (this.count === 0) return;
    const spent = txs.filter((tx) => !tx.coinbase);
    // Read up front: removals only delete rows, and one not held any more is skipped by removeOne.
    const { rows } = await this.client.query<{ txid: Buffer }>(
      `SELECT txid FROM ${this.schema}.mempool_txs WHERE txid = ANY($1::bytea[])`,
      [spent.map((tx) => tx.txid)],
    );
    const held = new Set(rows.map((r) => r.txid.toString('latin1')));
    const spenders = await this.spenders(spent.flatMap((tx) => tx.inputs.map((i) => outpointKey(i.prevTxid, i.vout))));
    for (const tx of spent) {
      if (held.has(tx.txid.toString('latin1'))) await this.childrenStay((await this.removeOne(tx.txid, touched)) ?? [], touched);
      for (const input of tx.inputs) {
        const spender = spenders.get(outpointKey(input.prevTxid, input.vout).toString('latin1'));
        if (spender !== undefined && !spender.equals(tx.txid)) await this.removeWithDescendants(spender, touched);
      }
      if (this.count === 0) return;
    }
  }

  /** Inside the writer's rollback transaction: the view is rebuilt from the node's mempool afterwards. */
  async emptied(touched: Touched): Promise<void> {
    if (this.count > 0) {
      const { rows } = await this.client.query<{ script_key: Buffer }>(`SELECT script_key FROM ${this.schema}.mempool_scripts LIMIT $1`, [
        FEED_MAX_SCRIPTS + 1,
      ]);
      if (rows.length > FEED_MAX_SCRIPTS) touched.touchEverything();
      else for (const row of rows) touched.touch(row.script_key);
    }
    // DELETE, not TRUNCATE: a reader's snapshot taken before this commit must still see the rows.
    for (const table of ['mempool_txs', 'mempool_outputs', 'mempool_spends', 'mempool_scripts', 'mempool_history'])
      await this.client.query(`DELETE FROM ${this.schema}.${table}`);
    this.count = 0;
    this.clearCount++;
  }

  private async recordMempool(touched: Touched): Promise<void> {
    // A mempool update that touched nothing writes no row.
    if (touched.pending) await recordChange(this.client, this.schema, 'mempool', null, touched.list());
  }

  private async addOne(tx: ParsedTx, touched: Touched): Promise<'added' | 'known' | 'unresolved'> {
    const { schema, client } = this;
    if ((await client.query(`SELECT 1 FROM ${schema}.mempool_txs WHERE txid = $1`, [tx.txid])).rows.length > 0) return 'known';
    const outpoints = tx.inputs.map((i) => outpointKey(i.prevTxid, i.vout));
    // A mempool output first, else a confirmed coin (as the SQLite engine's outGet ?? utxoGet).
    const { rows } = await client.query<CoinRow>(
      `SELECT COALESCE(m.script_key, u.script_key) AS script_key, COALESCE(m.value, u.value)::text AS value, m.outpoint IS NOT NULL AS held ` +
        `FROM unnest($1::bytea[]) WITH ORDINALITY AS q(op, ord) LEFT JOIN ${schema}.mempool_outputs AS m ON m.outpoint = q.op ` +
        `LEFT JOIN ${schema}.utxos AS u ON u.outpoint = q.op ORDER BY q.ord`,
      [outpoints],
    );
    const spent: (Flow & { outpoint: Buffer })[] = [];
    const held: Buffer[] = [];
    for (let i = 0; i < outpoints.length; i++) {
      const coin = rows[i];
      if (!coin || coin.script_key === null || coin.value === null) return (await this.isConfirmed(tx)) ? 'known' : 'unresolved';
      if (coin.held) held.push(outpoints[i]!);
      spent.push({ outpoint: outpoints[i]!, key: coin.script_key, value: BigInt(coin.value) });
    }
    // An input spent by another held transaction: that one was replaced (or conflicted) in the node.
    const others = await this.spenders(outpoints);
    for (const { outpoint } of spent) {
      const other = others.get(outpoint.toString('latin1'));
      if (other !== undefined) await this.removeWithDescendants(other, touched);
    }
    const paid: (Flow & { outpoint: Buffer })[] = [];
    tx.outputs.forEach((out, vout) => {
      if (!isUnspendable(out.script)) paid.push({ outpoint: outpointKey(tx.txid, vout), key: scriptKey(out.script), value: out.value });
    });
    if (paid.length > 0)
      await client.query(
        `INSERT INTO ${schema}.mempool_outputs (outpoint, script_key, value) SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bigint[]) ` +
          'ON CONFLICT (outpoint) DO UPDATE SET script_key = excluded.script_key, value = excluded.value',
        [paid.map((p) => p.outpoint), paid.map((p) => p.key), paid.map((p) => p.value.toString())],
      );
    const effect = txEffect(spent, paid);
    const inputs = distinct(effect.inputs);
    if (inputs.length > 0)
      await client.query(
        `INSERT INTO ${schema}.mempool_spends (outpoint, txid) SELECT op, $2::bytea FROM unnest($1::bytea[]) AS q(op) ` +
          'ON CONFLICT (outpoint) DO UPDATE SET txid = excluded.txid',
        [inputs, tx.txid],
      );
    const seq = ++this.seq;
    const fee = txFee(spent, tx);
    await client.query(
      `INSERT INTO ${schema}.mempool_txs (txid, seq, outputs, effect, fee, unconfirmed_inputs) VALUES ($1, $2, $3, $4, $5, $6)`,
      // Distinct outpoints (as mempool_spends): one row each, so one decrement each when their parent goes.
      [tx.txid, seq, tx.outputs.length, encodeEffect(effect), fee === null ? null : fee.toString(), distinct(held).length],
    );
    await this.applyScripts(tx.txid, seq, effect, 1, touched);
    this.count++;
    return 'added';
  }

  /** A transaction already in a block we indexed (a late report): one of its outputs is a confirmed UTXO. */
  private async isConfirmed(tx: ParsedTx): Promise<boolean> {
    if (tx.outputs.length === 0) return false;
    const { rows } = await this.client.query(`SELECT 1 FROM ${this.schema}.utxos WHERE outpoint = ANY($1::bytea[]) LIMIT 1`, [
      tx.outputs.map((_, vout) => outpointKey(tx.txid, vout)),
    ]);
    return rows.length > 0;
  }

  /** The held transactions spending `outpoints`, by outpoint id (latin1). */
  private async spenders(outpoints: readonly Buffer[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    if (outpoints.length === 0) return found;
    const { rows } = await this.client.query<{ outpoint: Buffer; txid: Buffer }>(
      `SELECT outpoint, txid FROM ${this.schema}.mempool_spends WHERE outpoint = ANY($1::bytea[])`,
      [outpoints],
    );
    for (const r of rows) found.set(r.outpoint.toString('latin1'), r.txid);
    return found;
  }

  private async removeWithDescendants(txid: Buffer, touched: Touched): Promise<number> {
    let removed = 0;
    const stack = [txid];
    while (stack.length > 0) {
      const children = await this.removeOne(stack.pop()!, touched);
      if (children === null) continue;
      removed++;
      stack.push(...children);
    }
    return removed;
  }

  /**
   * Removes one transaction's rows and subtracts its effect; returns the held transactions spending its
   * outputs (each told, in the same statement, how many of its inputs lost their held parent), or null
   * when not held.
   */
  private async removeOne(txid: Buffer, touched: Touched): Promise<Buffer[] | null> {
    const { schema, client } = this;
    const { rows } = await client.query<{ seq: string; outputs: number; effect: Buffer }>(
      `DELETE FROM ${schema}.mempool_txs WHERE txid = $1 RETURNING seq::text AS seq, outputs, effect`,
      [txid],
    );
    const row = rows[0];
    if (!row) return null;
    const effect = decodeEffect(row.effect);
    if (effect.inputs.length > 0)
      await client.query(`DELETE FROM ${schema}.mempool_spends WHERE outpoint = ANY($1::bytea[]) AND txid = $2`, [effect.inputs, txid]);
    let children: Buffer[] = [];
    if (row.outputs > 0) {
      const outpoints = Array.from({ length: row.outputs }, (_, vout) => outpointKey(txid, vout));
      await client.query(`DELETE FROM ${schema}.mempool_outputs WHERE outpoint = ANY($1::bytea[])`, [outpoints]);
      const { rows: spenders } = await client.query<{ txid: Buffer }>(
        `WITH c AS (SELECT txid, count(*) AS n FROM ${schema}.mempool_spends WHERE outpoint = ANY($1::bytea[]) GROUP BY txid), ` +
          `u AS (UPDATE ${schema}.mempool_txs AS t SET unconfirmed_inputs = t.unconfirmed_inputs - c.n FROM c WHERE t.txid = c.txid) ` +
          'SELECT txid FROM c',
        [outpoints],
      );
      children = spenders.map((r) => r.txid);
    }
    await this.applyScripts(txid, Number(row.seq), effect, -1, touched);
    this.count--;
    return children;
  }

  /**
   * The held children of a mined transaction: their effects do not change, but one whose last held parent
   * went now spends only confirmed coins (Electrum's height 0, not −1), so the feed names their scripts
   * for subscribers to re-read those statuses. Their effects in one statement.
   */
  private async childrenStay(children: readonly Buffer[], touched: Touched): Promise<void> {
    if (children.length === 0) return;
    const { rows } = await this.client.query<{ effect: Buffer }>(
      `SELECT effect FROM ${this.schema}.mempool_txs WHERE txid = ANY($1::bytea[])`,
      [children],
    );
    for (const row of rows) for (const s of decodeEffect(row.effect).scripts) touched.touch(s.key);
  }

  /**
   * Adds (or subtracts) an effect to the per-script sums in one upsert; drops the rows no transaction
   * touches any more. With history kept, adds (or removes) the transaction's rows of mempool_history.
   */
  private async applyScripts(txid: Buffer, seq: number, effect: TxEffect, sign: 1 | -1, touched: Touched): Promise<void> {
    const scripts = effect.scripts;
    if (scripts.length === 0) return;
    for (const s of scripts) touched.touch(s.key);
    const keys = scripts.map((s) => s.key);
    const signed = (v: bigint): string => (sign < 0 ? -v : v).toString();
    await this.client.query(
      `INSERT INTO ${this.schema}.mempool_scripts AS m (script_key, received, sent, utxo_count, tx_count) ` +
        'SELECT k, r, s, c, $5::bigint FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::bigint[]) AS q(k, r, s, c) ' +
        'ON CONFLICT (script_key) DO UPDATE SET received = m.received + excluded.received, sent = m.sent + excluded.sent, ' +
        'utxo_count = m.utxo_count + excluded.utxo_count, tx_count = m.tx_count + excluded.tx_count',
      [keys, scripts.map((s) => signed(s.received)), scripts.map((s) => signed(s.sent)), scripts.map((s) => sign * s.count), sign],
    );
    if (sign < 0)
      await this.client.query(`DELETE FROM ${this.schema}.mempool_scripts WHERE script_key = ANY($1::bytea[]) AND tx_count <= 0`, [keys]);
    if (!this.history()) return;
    if (sign > 0)
      await this.client.query(
        `INSERT INTO ${this.schema}.mempool_history (script_key, seq, txid, received, sent) ` +
          'SELECT k, $2::bigint, $3::bytea, r, s FROM unnest($1::bytea[], $4::bigint[], $5::bigint[]) AS q(k, r, s)',
        [keys, seq, txid, scripts.map((s) => s.received.toString()), scripts.map((s) => s.sent.toString())],
      );
    else
      await this.client.query(`DELETE FROM ${this.schema}.mempool_history WHERE script_key = ANY($1::bytea[]) AND seq = $2`, [keys, seq]);
  }
}

/** Outpoint keys without repeats (an invalid transaction may list one twice: one row per key). */
function distinct(keys: readonly Buffer[]): Buffer[] {
  const seen = new Map<string, Buffer>();
  for (const k of keys) seen.set(k.toString('latin1'), k);
  return [...seen.values()];
}
