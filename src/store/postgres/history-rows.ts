/**
 * The rows of address history in PostgreSQL (migrations/postgres/0004_history.sql), written inside the
 * caller's transaction from a batch's HistoryChange (../history-change.ts, the same numbering and per-script
 * figures as the SQLite engine's):
 *
 * | table           | key                  | value                                     | invariant                                           |
 * |-----------------|----------------------|-------------------------------------------|-----------------------------------------------------|
 * | history_txs     | tx_num               | txid, height, position                    | every transaction of the blocks covered, numbered 0… in chain order |
 * | history         | history_key, tx_num  | script_key, received, sent, funded, spent | one row per transaction paying to or spending from the script |
 * | history_scripts | history_key          | tx_count, received, sent, funded, spent   | = COUNT, SUMs of its history rows; no row when none |
 * | history_spends  | spend_key, tx_num, vin | —                                       | one row per input of the transactions numbered from state.history_spends_from on (../spend-key.ts) |
 *
 * One row per (script, transaction) instead of SQLite's packed chunks: a page is one backward range scan
 * of the primary key, and the figures one lookup in history_scripts. A rollback needs no before-images:
 * the tip block's rows are those numbered from its first transaction on.
 */
import type { HistoryChange } from '../history-change.js';
import { historyKey } from '../history-chunk.js';
import { StoreError } from '../errors.js';
import type { Queryable } from './pg-pool.js';
import { SPEND_PREFIX_BYTES, spendKey, spendKeysEnd } from '../spend-key.js';

/** One history key's figures changing by a commit. */
interface Totals {
  key: Buffer;
  count: number;
  received: bigint;
  sent: bigint;
  funded: number;
  spent: number;
}

interface RemovedRow {
  history_key: Buffer;
  script_key: Buffer;
  received: string;
  sent: string;
  funded: number;
  spent: number;
}

export class HistoryRows {
  constructor(
    private readonly client: Queryable,
    private readonly schema: string,
  ) {}

  /** The number the next connected transaction gets. */
  async nextTx(): Promise<number> {
    const { rows } = await this.client.query<{ n: string }>(
      `SELECT COALESCE(MAX(tx_num) + 1, 0)::text AS n FROM ${this.schema}.history_txs`,
    );
    return Number(rows[0]!.n);
  }

  /** Writes a batch's transactions, history rows and the figures they add, one statement per table. */
  async commit(change: HistoryChange): Promise<void> {
    const { client, schema } = this;
    const txs = { num: [] as number[], txid: [] as Buffer[], height: [] as number[], position: [] as number[] };
    for (const block of change.blocks)
      block.txids.forEach((txid, position) => {
        txs.num.push(block.firstTx + position);
        txs.txid.push(txid);
        txs.height.push(block.height);
        txs.position.push(position);
      });
    if (txs.num.length > 0)
      await client.query(
        `INSERT INTO ${schema}.history_txs (tx_num, txid, height, position) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::integer[], $4::integer[])`,
        [txs.num, txs.txid, txs.height, txs.position],
      );
    const spends = change.blocks.flatMap((b) => b.spends);
    if (spends.length > 0)
      await client.query(
        `INSERT INTO ${schema}.history_spends (spend_key, tx_num, vin) SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::integer[])`,
        [spends.map((s) => spendKey(s.outpoint)), spends.map((s) => s.txNum), spends.map((s) => s.vin)],
      );
    const entries = change.blocks.flatMap((b) => b.entries);
    if (entries.length === 0) return;
    await client.query(
      `INSERT INTO ${schema}.history (history_key, tx_num, script_key, received, sent, funded, spent) ` +
        'SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bytea[], $4::bigint[], $5::bigint[], $6::integer[], $7::integer[])',
      [
        entries.map((e) => historyKey(e.scriptKey)),
        entries.map((e) => e.txNum),
        entries.map((e) => e.scriptKey),
        entries.map((e) => e.received.toString()),
        entries.map((e) => e.sent.toString()),
        entries.map((e) => e.funded),
        entries.map((e) => e.spent),
      ],
    );
    const totals = new Map<string, Totals>();
    for (const e of entries) add(totals, historyKey(e.scriptKey), e.historyId, 1, e);
    await this.addTotals([...totals.values()]);
  }

  /**
   * Removes the history of block `height`, the tip, inside the caller's transaction; returns the scripts
   * whose history it changed. `spent`: the outpoints of the coins the block took from before it (its UTXO
   * undo record). Throws INCONSISTENT when history's last block is above it.
   */
  async rollback(height: number, spent: readonly Buffer[]): Promise<Buffer[]> {
    const { client, schema } = this;
    // Ordered by the column, not by its text (an output name would win over it in ORDER BY).
    const { rows } = await client.query<{ last: string; height: number; position: number }>(
      `SELECT t.tx_num::text AS last, t.height, t.position FROM ${schema}.history_txs AS t ORDER BY t.tx_num DESC LIMIT 1`,
    );
    const last = rows[0];
    // A block of no transaction (test chains) numbered none, so it changed no history.
    if (!last || last.height < height) return [];
    if (last.height !== height)
      throw new StoreError('INCONSISTENT', `history's last block is height ${last.height}, not the tip ${height}`);
    const first = Number(last.last) - last.position;
    const removed = await client.query<RemovedRow>(
      `DELETE FROM ${schema}.history WHERE tx_num >= $1 ` +
        'RETURNING history_key, script_key, received::text AS received, sent::text AS sent, funded, spent',
      [first],
    );
    // The block's spend rows, by key as SQLite's (no index by number): those of the coins it took from
    // before it, and those of outputs it both created and spent, which lie under its own txids.
    const { rows: own } = await client.query<{ txid: Buffer }>(`SELECT txid FROM ${schema}.history_txs WHERE tx_num >= $1`, [first]);
    const ranges = [
      ...spent.map((op) => [spendKey(op), Buffer.concat([spendKey(op), Buffer.from([0])])] as const),
      ...own.map((t) => [t.txid.subarray(0, SPEND_PREFIX_BYTES), spendKeysEnd(t.txid)] as const),
    ];
    if (ranges.length > 0)
      await client.query(
        `DELETE FROM ${schema}.history_spends AS s USING unnest($1::bytea[], $2::bytea[]) AS r(lo, hi) ` +
          'WHERE s.spend_key >= r.lo AND s.spend_key < r.hi AND s.tx_num >= $3',
        [ranges.map((r) => r[0]), ranges.map((r) => r[1]), first],
      );
    await client.query(`DELETE FROM ${schema}.history_txs WHERE tx_num >= $1`, [first]);
    const totals = new Map<string, Totals>();
    const touched = new Map<string, Buffer>();
    for (const r of removed.rows) {
      const e = { received: BigInt(r.received), sent: BigInt(r.sent), funded: r.funded, spent: r.spent };
      add(totals, r.history_key, r.history_key.toString('latin1'), -1, e);
      touched.set(r.script_key.toString('latin1'), r.script_key);
    }
    const keys = await this.addTotals([...totals.values()]);
    if (keys.length > 0)
      await client.query(`DELETE FROM ${schema}.history_scripts WHERE history_key = ANY($1::bytea[]) AND tx_count <= 0`, [keys]);
    return [...touched.values()];
  }

  /** Forgets every row (DELETE, not TRUNCATE: a reader's snapshot taken before this commit still sees them). */
  async clear(): Promise<void> {
    for (const table of ['history', 'history_txs', 'history_scripts', 'history_spends', 'mempool_history'])
      await this.client.query(`DELETE FROM ${this.schema}.${table}`);
  }

  /** Adds the totals to history_scripts in one upsert (a missing row starts at them); returns their keys. */
  private async addTotals(totals: readonly Totals[]): Promise<Buffer[]> {
    if (totals.length === 0) return [];
    const keys = totals.map((t) => t.key);
    await this.client.query(
      `INSERT INTO ${this.schema}.history_scripts AS h (history_key, tx_count, received, sent, funded, spent) ` +
        'SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) ' +
        'ON CONFLICT (history_key) DO UPDATE SET tx_count = h.tx_count + excluded.tx_count, received = h.received + excluded.received, ' +
        'sent = h.sent + excluded.sent, funded = h.funded + excluded.funded, spent = h.spent + excluded.spent',
      [
        keys,
        totals.map((t) => t.count),
        totals.map((t) => t.received.toString()),
        totals.map((t) => t.sent.toString()),
        totals.map((t) => t.funded),
        totals.map((t) => t.spent),
      ],
    );
    return keys;
  }
}

/** Adds one row's figures, times `sign`, to its history key's totals. */
function add(
  totals: Map<string, Totals>,
  key: Buffer,
  id: string,
  sign: 1 | -1,
  e: { received: bigint; sent: bigint; funded: number; spent: number },
): void {
  let t = totals.get(id);
  if (!t) totals.set(id, (t = { key, count: 0, received: 0n, sent: 0n, funded: 0, spent: 0 }));
  t.count += sign;
  t.received += sign < 0 ? -e.received : e.received;
  t.sent += sign < 0 ? -e.sent : e.sent;
  t.funded += sign * e.funded;
  t.spent += sign * e.spent;
}
