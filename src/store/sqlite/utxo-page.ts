/**
 * The read side of the UTXO listing (utxo-list.ts): one page of the unspent outputs of one or more
 * scripts, in (height, outpoint key) order, after a position, with keyset paging: each script's rows
 * are read from the listing's index starting right after the position, at most limit + 1 of them, and
 * merged into the page by ../utxo-listing.ts (the order and cursors every engine shares), so a page
 * costs O(scripts × limit) whatever the scripts hold and however deep the page is.
 *
 * With `mempool`, the confirmed rows say whether a mempool transaction spends them, and once they are
 * exhausted the listing goes on with the scripts' unconfirmed outputs (mempool_outputs, in outpoint
 * order: one range scan of its script index, migrations/0012, per script).
 *
 * Everything (the tip, the listing's state and secret, the caller's cursor check, the rows) is read in
 * ONE read transaction, so a page is true at exactly the tip it names: a cursor checked against that
 * tip can never yield a page mixed across blocks.
 *
 * Values: one UTXO's value is at most the chain's MAX_MONEY (< 2^53, checked when its block or snapshot
 * was parsed), so SQLite hands it over exactly as a number and one BigInt() makes it the model's bigint;
 * safeIntegers would also turn the height into a bigint to convert back.
 */
import type Database from 'better-sqlite3';
import type { Db } from './db.js';
import { UTXO_LIST_KEY, UTXO_LIST_SECRET_KEY } from './utxo-list.js';
import { shardIndexName, shardOf, shardTerms, UTXO_LIST_SHARDS } from './utxo-list-shards.js';
import { closePage, coinbaseFlag, confirmedAfter, mempoolAfter, mergeConfirmed, mergeUnconfirmed } from '../utxo-listing.js';
import { SNAPSHOT_COINBASE_KEY } from './bulk-load.js';
import type { UtxoPageRequest, UtxoPageResult, UtxoRow } from '../index-model.js';

interface ConfirmedRow {
  outpoint: Buffer;
  value: number;
  height: number;
  cb: Buffer | null;
}

const META = (key: string): string => `(SELECT value FROM meta WHERE key = '${key}')`;

/**
 * One script's page of confirmed rows, read through shard `shard` (whose WHERE terms it repeats). `cb`
 * is the coinbase txid of the row's height: from blocks (synced blocks), else from snapshot_coinbase
 * (heights loaded from a snapshot; its NULL txid stays unknown); an empty blob when the snapshot was
 * recorded complete up to that height and holds none there (no output at that height is a coinbase
 * output); null when unknown.
 */
export function confirmedPageSql(shard: number): string {
  return (
    `SELECT u.outpoint, u.value, u.height, COALESCE(b.coinbase_txid, CASE WHEN s.height IS NOT NULL THEN s.txid ` +
    `WHEN u.height <= ${META(SNAPSHOT_COINBASE_KEY)} THEN X'' END) AS cb ` +
    `FROM utxos AS u INDEXED BY ${shardIndexName(shard)} ` +
    'LEFT JOIN blocks AS b ON b.height = u.height LEFT JOIN snapshot_coinbase AS s ON s.height = u.height ' +
    `WHERE ${shardTerms(shard, 'u.script_key')} ` +
    // The row-value form, not an OR: SQLite turns it into one range of the index (a seek, not a scan).
    'AND u.script_key = ? AND (u.height, u.outpoint) > (?, ?) ORDER BY u.height, u.outpoint LIMIT ?'
  );
}

/** One script's unconfirmed outputs after an outpoint: a range scan of mempool_outputs_by_script (0012). */
export const MEMPOOL_PAGE_SQL =
  'SELECT outpoint, value FROM mempool_outputs WHERE script_key = ? AND outpoint > ? ORDER BY outpoint LIMIT ?';

export class UtxoPager {
  private readonly stateStmt: Database.Statement<
    [],
    { tip_height: number | null; tip_hash: Buffer | null; on: number | null; secret: Buffer | null }
  >;
  /** By shard, each prepared on first use. */
  private readonly confirmedStmts: (Database.Statement<[Buffer, number, Buffer, number], ConfirmedRow> | undefined)[] =
    Array(UTXO_LIST_SHARDS);
  private readonly mempoolStmt: Database.Statement<[Buffer, Buffer, number], { outpoint: Buffer; value: number }>;
  private readonly spentStmt: Database.Statement<[Buffer], number>;

  constructor(private readonly db: Db) {
    this.stateStmt = db.prepare(
      `SELECT ${META('tip_height')} AS tip_height, ${META('tip_hash')} AS tip_hash, ${META(UTXO_LIST_KEY)} AS "on", ${META(UTXO_LIST_SECRET_KEY)} AS secret`,
    );
    this.mempoolStmt = db.prepare(MEMPOOL_PAGE_SQL);
    this.spentStmt = db.prepare<[Buffer], number>('SELECT 1 FROM mempool_spends WHERE outpoint = ?').pluck();
  }

  /**
   * The page statement of the key's shard, prepared on first use: INDEXED BY fails to prepare while the
   * shard does not exist, and unless the WHERE repeats the shard's own terms (which it must, literally,
   * for SQLite to use a partial index at all).
   */
  private confirmed(key: Buffer): Database.Statement<[Buffer, number, Buffer, number], ConfirmedRow> {
    const k = shardOf(key);
    this.confirmedStmts[k] ??= this.db.prepare(confirmedPageSql(k));
    return this.confirmedStmts[k];
  }

  /** Call inside a read transaction (ChainReader.utxoPage): its statements must all read one snapshot. */
  read(req: UtxoPageRequest): UtxoPageResult {
    const state = this.stateStmt.get()!;
    if (state.tip_height === null || state.tip_hash === null) return { kind: 'empty' };
    const tip = { tipHeight: state.tip_height, tipHash: state.tip_hash };
    if (state.on !== 1 || state.secret === null) return { kind: 'off', ...tip };
    const secret = state.secret;
    req.check({ ...tip, secret });
    const want = req.limit + 1;
    let rows: UtxoRow[] = [];
    const from = confirmedAfter(req.after);
    if (from !== null) {
      req.keys.forEach((key, script) => {
        for (const r of this.confirmed(key).all(key, from.height, from.outpoint, want)) {
          rows.push({
            script,
            outpoint: r.outpoint,
            valueSats: BigInt(r.value),
            height: r.height,
            coinbase: coinbaseFlag(r.cb, r.outpoint),
            ...this.spent(req.mempool, r.outpoint),
          });
        }
      });
      rows = mergeConfirmed(rows, want);
    }
    if (req.mempool && rows.length < want) {
      const after = mempoolAfter(req.after);
      const unconfirmed: UtxoRow[] = [];
      req.keys.forEach((key, script) => {
        for (const r of this.mempoolStmt.all(key, after, want - rows.length)) {
          unconfirmed.push({
            script,
            outpoint: r.outpoint,
            valueSats: BigInt(r.value),
            height: null,
            coinbase: null,
            ...this.spent(true, r.outpoint),
          });
        }
      });
      rows.push(...mergeUnconfirmed(unconfirmed, want - rows.length));
    }
    return { kind: 'page', ...tip, secret, ...closePage(rows, req.limit) };
  }

  private spent(mempool: boolean, outpoint: Buffer): { spentInMempool?: boolean } {
    return mempool ? { spentInMempool: this.spentStmt.get(outpoint) !== undefined } : {};
  }
}
