/**
 * One script's whole history, lean (../script-txs.ts ScriptTxList), in PostgreSQL: its count from
 * history_scripts, and its txids and heights (all, or those after a position) in one statement that
 * aggregates them in the server, in number order (blockchain order), into two byte strings. So a
 * history of 100,000 transactions crosses the wire as two values, not 100,000 rows the driver makes an
 * object of each.
 */
import { StoreError } from '../errors.js';
import { historyKey } from '../history-chunk.js';
import type { ScriptTxsRead } from '../script-txs.js';
import { TXID_BYTES } from '../outpoint.js';
import type { HistoryReader } from './history-reader.js';
import type { Queryable } from './pg-pool.js';

/**
 * Inside the caller's snapshot, history kept: the script's history (its confirmed part after position
 * `after` when given), or its count past `max`.
 */
export async function readScriptTxs(
  client: Queryable,
  schema: string,
  history: HistoryReader,
  key: Buffer,
  max: number,
  after: number | undefined,
): Promise<NonNullable<ScriptTxsRead['txs']>> {
  const at = historyKey(key);
  const counted = await client.query<{ n: string | null; newest: string | null }>(
    `SELECT (SELECT tx_count::text FROM ${schema}.history_scripts WHERE history_key = $1) AS n, ` +
      `(SELECT max(tx_num)::text FROM ${schema}.history WHERE history_key = $1) AS newest`,
    [at],
  );
  const confirmed = Number(counted.rows[0]?.n ?? 0);
  if (confirmed > max) return { tooLarge: true, count: confirmed };
  const unconfirmed = await history.scriptUnconfirmed(client, key, max + 1 - confirmed);
  const count = confirmed + unconfirmed.length;
  if (count > max) return { tooLarge: true, count };
  const { rows } = await client.query<{ n: string; txids: Buffer | null; heights: Buffer | null }>(
    `SELECT count(*)::text AS n, string_agg(t.txid, ''::bytea ORDER BY h.tx_num) AS txids, ` +
      `string_agg(int4send(t.height), ''::bytea ORDER BY h.tx_num) AS heights ` +
      `FROM ${schema}.history AS h JOIN ${schema}.history_txs AS t ON t.tx_num = h.tx_num WHERE h.history_key = $1 AND h.tx_num > $2`,
    [at, after ?? -1],
  );
  const listed = Number(rows[0]?.n ?? 0);
  const txids = rows[0]?.txids ?? Buffer.alloc(0);
  const packed = rows[0]?.heights ?? Buffer.alloc(0);
  if (
    listed > confirmed ||
    (after === undefined && listed !== confirmed) ||
    txids.length !== listed * TXID_BYTES ||
    packed.length !== listed * 4
  )
    throw new StoreError('INCONSISTENT', `a history lists ${listed} transactions where its count says ${confirmed}`);
  const heights = new Uint32Array(listed);
  for (let i = 0; i < listed; i++) heights[i] = packed.readUInt32BE(i * 4);
  return { tooLarge: false, confirmedCount: confirmed, newest: Number(counted.rows[0]?.newest ?? -1), txids, heights, unconfirmed };
}
