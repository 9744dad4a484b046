/**
 * The read side of the UTXO listing in PostgreSQL (utxo-list.ts), as the SQLite engine's
 * (../sqlite/utxo-page.ts): each script's rows are read from utxos_by_script starting right after the
 * position, at most limit + 1 of them, and merged into the page by ../utxo-listing.ts (the order and
 * cursors every engine shares). One statement reads every script's rows, a LATERAL subquery per key:
 * one range scan of the index each, in the index's order (no sort), so a page costs O(scripts × limit)
 * however deep it is, in one round trip per phase.
 *
 * With `mempool`, the confirmed rows say whether a mempool transaction spends them, and once they are
 * exhausted the unconfirmed outputs paying the scripts follow (mempool_outputs, one range scan of its
 * script index per key, migrations/postgres/0009).
 *
 * Call inside the reader's REPEATABLE READ READ ONLY transaction, so that the tip, the secret, the
 * caller's check and the rows share one snapshot. It only reads: it runs on a standby too.
 */
import type { UtxoPageRequest, UtxoPageResult, UtxoRow } from '../index-model.js';
import { closePage, coinbaseFlag, confirmedAfter, mempoolAfter, mergeConfirmed, mergeUnconfirmed } from '../utxo-listing.js';
import type { Queryable } from './pg-pool.js';

interface PageRow {
  /** Index of the script in the request's key list. */
  script: number;
  outpoint: Buffer;
  value: string;
  /** Only asked for with the mempool. */
  spent?: boolean;
}

interface ConfirmedRow extends PageRow {
  height: number;
  /** The height's coinbase txid; null when not recorded. */
  cb: Buffer | null;
}

const KEYS = 'unnest($1::bytea[]) WITH ORDINALITY AS q(k, ord)';
const SCRIPT = '(q.ord - 1)::integer AS script';
const spentColumn = (schema: string, mempool: boolean, alias: string): string =>
  mempool ? `, EXISTS (SELECT 1 FROM ${schema}.mempool_spends AS m WHERE m.outpoint = ${alias}.outpoint) AS spent` : '';

/**
 * Each key's confirmed rows after ($2 height, $3 outpoint), at most $4 per key. The row comparison is
 * one range of the index after the key's equality, read in its order (no sort), as SQLite's row value.
 * The coinbase txid is a lookup per row returned (a join could be planned as a scan of `blocks`).
 */
export function confirmedPageSql(schema: string, mempool: boolean): string {
  return (
    `SELECT ${SCRIPT}, u.outpoint, u.value::text AS value, u.height, ` +
    `(SELECT b.coinbase_txid FROM ${schema}.blocks AS b WHERE b.height = u.height) AS cb${spentColumn(schema, mempool, 'u')} ` +
    `FROM ${KEYS} CROSS JOIN LATERAL (SELECT outpoint, value, height FROM ${schema}.utxos ` +
    'WHERE script_key = q.k AND (height, outpoint) > ($2::integer, $3::bytea) ORDER BY height, outpoint LIMIT $4) AS u'
  );
}

/**
 * The listing's state, and the plan its pages need. The planner estimates a key's rows from the average
 * script (a handful), so for the first page of a script with many UTXOs it would fetch them all through
 * a bitmap and sort them: with bitmap scans off for the rest of this read transaction, the only
 * sensible plan left is the index range read in order, stopping at the limit, whatever the script
 * holds. set_config runs before the page statements are planned; it writes nothing (a standby allows it).
 */
const stateSql = (schema: string): string =>
  `SELECT set_config('enable_bitmapscan', 'off', true), utxo_list_secret AS secret FROM ${schema}.state`;

/** Each key's unconfirmed outputs after $2 (an outpoint key), at most $3 per key. */
export function mempoolPageSql(schema: string): string {
  return (
    `SELECT ${SCRIPT}, o.outpoint, o.value::text AS value${spentColumn(schema, true, 'o')} ` +
    `FROM ${KEYS} CROSS JOIN LATERAL (SELECT outpoint, value FROM ${schema}.mempool_outputs ` +
    'WHERE script_key = q.k AND outpoint > $2::bytea ORDER BY outpoint LIMIT $3) AS o'
  );
}

const spentOf = (mempool: boolean, r: PageRow): { spentInMempool?: boolean } => (mempool ? { spentInMempool: r.spent === true } : {});

/**
 * One page of the listing at `tip` (read by the caller in the same snapshot): `off`, or the page. Its
 * planner setting lasts until the caller's transaction ends: give each page a transaction of its own.
 */
export async function readUtxoPage(
  client: Queryable,
  schema: string,
  tip: { readonly tipHeight: number; readonly tipHash: Buffer },
  req: UtxoPageRequest,
): Promise<UtxoPageResult> {
  const { rows: state } = await client.query<{ secret: Buffer | null }>(stateSql(schema));
  const secret = state[0]?.secret ?? null;
  if (secret === null) return { kind: 'off', ...tip };
  req.check({ ...tip, secret });
  const want = req.limit + 1;
  let rows: UtxoRow[] = [];
  const from = confirmedAfter(req.after);
  if (from !== null) {
    const found = await client.query<ConfirmedRow>(confirmedPageSql(schema, req.mempool), [req.keys, from.height, from.outpoint, want]);
    rows = mergeConfirmed(
      found.rows.map((r) => ({
        script: r.script,
        outpoint: r.outpoint,
        valueSats: BigInt(r.value),
        height: r.height,
        coinbase: coinbaseFlag(r.cb, r.outpoint),
        ...spentOf(req.mempool, r),
      })),
      want,
    );
  }
  if (req.mempool && rows.length < want) {
    const room = want - rows.length;
    const found = await client.query<PageRow>(mempoolPageSql(schema), [req.keys, mempoolAfter(req.after), room]);
    const unconfirmed = found.rows.map((r): UtxoRow => ({
      script: r.script,
      outpoint: r.outpoint,
      valueSats: BigInt(r.value),
      height: null,
      coinbase: null,
      ...spentOf(true, r),
    }));
    rows.push(...mergeUnconfirmed(unconfirmed, room));
  }
  return { kind: 'page', ...tip, secret, ...closePage(rows, req.limit) };
}
