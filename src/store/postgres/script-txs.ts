/**
 * One script's whole history, lean (index-model.ts ScriptTxList), in PostgreSQL: its count from
 * history_scripts, and its txids and heights in one statement that aggregates them in the server, in
 * number order (blockchain order), into two byte strings. So a history of 100,000 transactions crosses
 * the wire as two values, not 100,000 rows the driver makes an object of each.
 */
import { StoreError } from '../errors.js';
import { historyKey } from '../history-chunk.js';
import type { ScriptTxsRead } from '../script-txs.js';
import { TXID_BYTES } from '../outpoint.js';
import type { HistoryReader } from './history-reader.js';
import type { Queryable } from './pg-pool.js';

/** Inside the caller's snapshot, history kept: the script's history, or its count past `max`. */
export async function readScriptTxs(
  client: Queryable,
  schema: string,
  history: HistoryReader,
  key: Buffer,
  max: number,
  mempoolOnly: boolean,
): Promise<NonNullable<ScriptTxsRead['txs']>> {
  const at = historyKey(key);
  const counted = await client.query<{ n: string }>(`SELECT tx_count::text AS n FROM ${schema}.history_scripts WHERE history_key = $1`, [
    at,
  ]);
  const confirmed = Number(counted.rows[0]?.n ?? 0);
  if (confirmed > max) return { tooLarge: true, count: confirmed };
  const unconfirmed = await history.scriptUnconfirmed(client, key, max + 1 - confirmed);
  const count = confirmed + unconfirmed.length;
  if (count > max) return { tooLarge: true, count };
  if (mempoolOnly) return { tooLarge: false, confirmedCount: confirmed, txids: Buffer.alloc(0), heights: new Uint32Array(0), unconfirmed };
  const { rows } = await client.query<{ txids: Buffer | null; heights: Buffer | null }>(
    `SELECT string_agg(t.txid, ''::bytea ORDER BY h.tx_num) AS txids, string_agg(int4send(t.height), ''::bytea ORDER BY h.tx_num) AS heights ` +
      `FROM ${schema}.history AS h JOIN ${schema}.history_txs AS t ON t.tx_num = h.tx_num WHERE h.history_key = $1`,
    [at],
  );
  const txids = rows[0]?.txids ?? Buffer.alloc(0);
  const packed = rows[0]?.heights ?? Buffer.alloc(0);
  if (txids.length !== confirmed * TXID_BYTES || packed.length !== confirmed * 4)
    throw new StoreError('INCONSISTENT', `a history holds ${txids.length / TXID_BYTES} transactions where its count says ${confirmed}`);
  const heights = new Uint32Array(confirmed);
  for (let i = 0; i < confirmed; i++) heights[i] = packed.readUInt32BE(i * 4);
  return { tooLarge: false, confirmedCount: confirmed, txids, heights, unconfirmed };
}
