/**
 * Offline checks of a chain's history in PostgreSQL (history-rows.ts), as ../sqlite/history-verify.ts
 * checks SQLite's, inside the verifier's one snapshot, while state.history = 1:
 *   - for every script: received − sent = its balance and funded − spent = its UTXO count (scripts
 *     sharing a history key, ../history-chunk.ts, share a history, which holds their coins together);
 *   - its history_scripts row is what its history rows add up to (SQLite: a head's sealed totals);
 *   - every history row names a numbered transaction, numbered 0… without gaps, block by block;
 *   - every indexed block from genesis is covered.
 */
import { HISTORY_KEY_BYTES } from '../history-chunk.js';
import { HISTORY_CODES } from './history-writer.js';
import type { Queryable } from './pg-pool.js';

/** Problems reported in full; beyond, only counted. */
const SHOWN = 20;

interface KeyRow {
  history_key: Buffer;
  n: string | null;
  received: string | null;
  sent: string | null;
  funded: string | null;
  spent: string | null;
  t_count: string | null;
  t_received: string | null;
  t_sent: string | null;
  t_funded: string | null;
  t_spent: string | null;
  balance: string | null;
  utxo_count: string | null;
}

const int = (v: string | null): bigint => BigInt(v ?? 0);

export async function verifyPgHistory(client: Queryable, schema: string, tipHeight: number | null): Promise<string[]> {
  const { rows: state } = await client.query<{ history: number }>(`SELECT history FROM ${schema}.state`);
  if (state[0]?.history !== HISTORY_CODES.on) return [];
  const problems: string[] = [];
  const figures =
    `WITH r AS (SELECT history_key, COUNT(*) AS n, SUM(received) AS received, SUM(sent) AS sent, SUM(funded) AS funded, ` +
    `SUM(spent) AS spent FROM ${schema}.history GROUP BY history_key), ` +
    `c AS (SELECT substring(script_key from 1 for ${HISTORY_KEY_BYTES}) AS history_key, SUM(balance) AS balance, ` +
    `SUM(utxo_count) AS utxo_count FROM ${schema}.scripts GROUP BY 1), ` +
    `k AS (SELECT history_key FROM r UNION SELECT history_key FROM ${schema}.history_scripts UNION SELECT history_key FROM c) ` +
    'SELECT k.history_key, r.n::text AS n, r.received::text AS received, r.sent::text AS sent, r.funded::text AS funded, ' +
    'r.spent::text AS spent, t.tx_count::text AS t_count, t.received::text AS t_received, t.sent::text AS t_sent, ' +
    't.funded::text AS t_funded, t.spent::text AS t_spent, c.balance::text AS balance, c.utxo_count::text AS utxo_count ' +
    `FROM k LEFT JOIN r ON r.history_key = k.history_key LEFT JOIN ${schema}.history_scripts AS t ON t.history_key = k.history_key ` +
    'LEFT JOIN c ON c.history_key = k.history_key ' +
    'WHERE r.n IS DISTINCT FROM t.tx_count OR r.received IS DISTINCT FROM t.received OR r.sent IS DISTINCT FROM t.sent ' +
    'OR r.funded IS DISTINCT FROM t.funded OR r.spent IS DISTINCT FROM t.spent ' +
    'OR COALESCE(r.received, 0) - COALESCE(r.sent, 0) <> COALESCE(c.balance, 0) ' +
    'OR COALESCE(r.funded, 0) - COALESCE(r.spent, 0) <> COALESCE(c.utxo_count, 0)';
  const { rows } = await client.query<KeyRow>(`${figures} ORDER BY 1 LIMIT $1`, [SHOWN]);
  for (const r of rows) {
    const hex = r.history_key.toString('hex');
    if (r.n === null && r.balance !== null) {
      problems.push(`script ${hex} holds coins but has no history`);
      continue;
    }
    if (r.n !== r.t_count || r.received !== r.t_received || r.sent !== r.t_sent || r.funded !== r.t_funded || r.spent !== r.t_spent)
      problems.push(`script ${hex}: its history_scripts row is not what its history rows add up to`);
    if (int(r.received) - int(r.sent) !== int(r.balance))
      problems.push(`script ${hex}: received ${int(r.received)} − sent ${int(r.sent)} is not its balance ${int(r.balance)}`);
    if (int(r.funded) - int(r.spent) !== int(r.utxo_count))
      problems.push(`script ${hex}: funded ${int(r.funded)} − spent ${int(r.spent)} outputs is not its UTXO count ${int(r.utxo_count)}`);
  }
  if (rows.length === SHOWN) {
    const { rows: counted } = await client.query<{ n: number }>(`SELECT COUNT(*)::integer AS n FROM (${figures}) AS d`);
    if (counted[0]!.n > SHOWN) problems.push(`… and ${counted[0]!.n - SHOWN} more scripts with history problems`);
  }
  const unnumbered = (
    await client.query<{ n: number }>(
      `SELECT COUNT(*)::integer AS n FROM ${schema}.history AS h WHERE NOT EXISTS (SELECT 1 FROM ${schema}.history_txs AS t WHERE t.tx_num = h.tx_num)`,
    )
  ).rows[0]!.n;
  if (unnumbered > 0) problems.push(`${unnumbered} history rows name a transaction history_txs does not number`);
  const txs = (
    await client.query<{ n: string; top: string | null; blocks: number; lo: number | null; hi: number | null; misplaced: number }>(
      `SELECT COUNT(*)::text AS n, MAX(tx_num)::text AS top, COUNT(DISTINCT height)::integer AS blocks, MIN(height) AS lo, MAX(height) AS hi, ` +
        `COUNT(DISTINCT (height, tx_num - position))::integer - COUNT(DISTINCT height)::integer AS misplaced ` +
        `FROM ${schema}.history_txs`,
    )
  ).rows[0]!;
  if (txs.top !== null && BigInt(txs.top) + 1n !== BigInt(txs.n))
    problems.push(`history_txs numbers ${txs.n} transactions, not 0..${txs.top} without gaps`);
  if (txs.misplaced !== 0) problems.push('history_txs positions do not follow the numbers within a block');
  // Every real block has a coinbase, so each height from genesis to the tip numbers at least one transaction.
  const blocks = (tipHeight ?? -1) + 1;
  if (txs.blocks !== blocks || (blocks > 0 && (txs.lo !== 0 || txs.hi !== blocks - 1)))
    problems.push(`history covers ${txs.blocks} blocks of the ${blocks} from genesis to the tip`);
  return problems;
}
