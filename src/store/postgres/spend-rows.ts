/**
 * Reading the spend index (migrations/postgres/0010, ../spend-key.ts) for IndexReader.outspends, as the
 * SQLite engine reads it (../sqlite/spends-read.ts): per output of a transaction, whether the UTXO set
 * holds it, the confirmed inputs under its spend key with their txids and heights (history_txs), and the
 * mempool transaction spending it. Three statements, inside the caller's snapshot.
 */
import { outpointKey } from '../outpoint.js';
import { spendKey, type OutputSpends, type OutspendsRead, type Spender } from '../spend-key.js';
import { historyState, type HistoryStatusRow } from './history-reader.js';
import type { Queryable } from './pg-pool.js';

/** IndexReader.outspends inside the caller's snapshot, `row` its status row; null while nothing is indexed. */
export async function readOutspends(
  client: Queryable,
  schema: string,
  row: HistoryStatusRow & { tip_height: number | null },
  txid: Buffer,
  outputs: number,
): Promise<OutspendsRead | null> {
  if (row.tip_height === null) return null;
  // The spend index answers only while history is kept for every block (not while it is built).
  const { rows } =
    historyState(row)?.state === 'on'
      ? await client.query<{ spends_from: string | null }>(`SELECT history_spends_from::text AS spends_from FROM ${schema}.state`)
      : { rows: [] };
  const from = rows[0]?.spends_from ?? null;
  const spendsFrom = from === null ? null : Number(from);
  return {
    tipHeight: row.tip_height,
    spendsFrom,
    outputs: spendsFrom === null ? [] : await readOutputSpends(client, schema, txid, outputs),
  };
}

async function readOutputSpends(client: Queryable, schema: string, txid: Buffer, count: number): Promise<OutputSpends[]> {
  const outpoints = Array.from({ length: count }, (_, vout) => outpointKey(txid, vout));
  const keys = outpoints.map(spendKey);
  const [utxos, spends, mempool] = await Promise.all([
    client.query<{ outpoint: Buffer }>(`SELECT outpoint FROM ${schema}.utxos WHERE outpoint = ANY($1::bytea[])`, [outpoints]),
    client.query<{ spend_key: Buffer; vin: number; txid: Buffer; height: number }>(
      `SELECT s.spend_key, s.vin, t.txid, t.height FROM ${schema}.history_spends AS s JOIN ${schema}.history_txs AS t ON t.tx_num = s.tx_num ` +
        'WHERE s.spend_key = ANY($1::bytea[]) ORDER BY s.spend_key, s.tx_num, s.vin',
      [keys],
    ),
    client.query<{ outpoint: Buffer; txid: Buffer }>(
      `SELECT outpoint, txid FROM ${schema}.mempool_spends WHERE outpoint = ANY($1::bytea[])`,
      [outpoints],
    ),
  ]);
  const unspent = new Set(utxos.rows.map((r) => r.outpoint.toString('latin1')));
  const byKey = new Map<string, Spender[]>();
  for (const r of spends.rows) {
    const id = r.spend_key.toString('latin1');
    const list = byKey.get(id) ?? [];
    list.push({ txid: r.txid, vin: r.vin, height: r.height });
    byKey.set(id, list);
  }
  const spentIn = new Map(mempool.rows.map((r) => [r.outpoint.toString('latin1'), r.txid]));
  return outpoints.map((op, vout) => ({
    unspent: unspent.has(op.toString('latin1')),
    spenders: byKey.get(keys[vout]!.toString('latin1')) ?? [],
    mempool: spentIn.get(op.toString('latin1')) ?? null,
  }));
}
