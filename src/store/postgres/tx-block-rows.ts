/**
 * Which block holds a txid (../tx-block.ts), from history_txs by the index of migrations/postgres/0008 on
 * the txid's first 4 bytes as an integer: the candidates are checked against the whole txid.
 */
import type { TxBlock } from '../tx-block.js';
import type { Queryable } from './pg-pool.js';

/** 0008's indexed expression, word for word: the planner uses the index only for the same expression. */
const TXID_PREFIX_SQL = "(('x' || encode(substring(t.txid FROM 1 FOR 4), 'hex'))::bit(32)::integer)";

/** The first of equal txids (a BIP30 duplicate) by number, as the SQLite engine answers. */
export async function readTxBlock(client: Queryable, schema: string, txid: Buffer): Promise<TxBlock | null> {
  if (txid.length !== 32) return null;
  const { rows } = await client.query<{ height: number; position: number; hash: Buffer; tx_num: string }>(
    `SELECT t.height, t.position, b.hash, t.tx_num::text AS tx_num FROM ${schema}.history_txs AS t JOIN ${schema}.blocks AS b ON b.height = t.height
     WHERE ${TXID_PREFIX_SQL} = $2 AND t.txid = $1 ORDER BY t.tx_num LIMIT 1`,
    [txid, txid.readInt32BE(0)],
  );
  const row = rows[0];
  return row === undefined ? null : { height: row.height, position: row.position, hash: row.hash, txNum: Number(row.tx_num) };
}
