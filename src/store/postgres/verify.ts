/**
 * Offline checks of a chain's index in PostgreSQL (`addrsum-verify`), as ../sqlite/verify.ts: every
 * aggregate recomputed from the UTXOs, and the chain's invariants (chain-writer.ts; history's in
 * history-verify.ts), each read in one REPEATABLE READ snapshot so a writer committing meanwhile cannot
 * make a difference appear.
 */
import type { AggregateReport, AggregateValues } from '../index-model.js';
import type { IndexVerifier } from '../ports.js';
import type { ChainCode } from '../../chain/params.js';
import { chainSchema, checkPgSchemaVersion } from './chain-schema.js';
import { verifyPgHistory } from './history-verify.js';
import { verifyPgHeaders } from './header-rows.js';
import { openPool, withTransaction, type PoolClient } from './pg-pool.js';
import { verifyPgUtxoList } from './utxo-list.js';

interface DiffRow {
  script_key: Buffer;
  s_balance: string | null;
  s_count: string | null;
  c_balance: string | null;
  c_count: string | null;
}

const values = (balance: string | null, count: string | null): AggregateValues | null =>
  balance === null || count === null ? null : { balance: BigInt(balance), utxoCount: Number(count) };

export async function openPgVerifier(url: string, chain: ChainCode): Promise<IndexVerifier> {
  const schema = chainSchema(chain);
  const pool = openPool(url, { max: 1, name: `addrsum-verify-${chain.toLowerCase()}` });
  try {
    await checkPgSchemaVersion(pool, schema);
  } catch (err) {
    await pool.end();
    throw err;
  }
  const snapshot = <T>(body: (client: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, body, 'snapshot');
  return {
    aggregates: (opts = {}) =>
      snapshot(async (client): Promise<AggregateReport> => {
        const max = opts.maxDifferences ?? 1000;
        const diff =
          `WITH c AS (SELECT script_key, SUM(value) AS balance, COUNT(*) AS utxo_count FROM ${schema}.utxos GROUP BY script_key) ` +
          `SELECT COALESCE(c.script_key, s.script_key) AS script_key, s.balance::text AS s_balance, s.utxo_count::text AS s_count, ` +
          `c.balance::text AS c_balance, c.utxo_count::text AS c_count FROM c FULL JOIN ${schema}.scripts AS s ON s.script_key = c.script_key ` +
          'WHERE c.script_key IS NULL OR s.script_key IS NULL OR c.balance <> s.balance OR c.utxo_count <> s.utxo_count';
        const shown = await client.query<DiffRow>(`${diff} ORDER BY 1 LIMIT $1`, [max]);
        const counted = await client.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM (${diff}) AS d`);
        const scripts = await client.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM ${schema}.scripts`);
        const utxos = await client.query<{ n: string; amount: string }>(
          `SELECT COUNT(*)::text AS n, COALESCE(SUM(value), 0)::text AS amount FROM ${schema}.utxos`,
        );
        return {
          differences: shown.rows.map((r) => ({
            scriptKey: r.script_key.toString('hex'),
            stored: values(r.s_balance, r.s_count),
            computed: values(r.c_balance, r.c_count),
          })),
          differenceCount: Number(counted.rows[0]!.n),
          scripts: Number(scripts.rows[0]!.n),
          utxos: Number(utxos.rows[0]!.n),
          amount: BigInt(utxos.rows[0]!.amount),
        };
      }),
    chain: () => snapshot((client) => verifyChain(client, schema)),
    close: () => pool.end(),
  };
}

/** The blocks, undo window, totals, listing and history invariants; one line per problem. */
async function verifyChain(client: PoolClient, schema: string): Promise<string[]> {
  const problems: string[] = [];
  const state = (
    await client.query<{
      tip_height: number | null;
      tip_hash: Buffer | null;
      base_height: number | null;
      utxo_count: string;
      utxo_amount: string;
      script_count: string;
    }>(`SELECT tip_height, tip_hash, base_height, utxo_count::text, utxo_amount::text, script_count::text FROM ${schema}.state`)
  ).rows[0];
  if (!state) return [`${schema}.state has no row`];
  const blocks = (
    await client.query<{ n: number; lo: number | null; hi: number | null }>(
      `SELECT COUNT(*)::integer AS n, MIN(height) AS lo, MAX(height) AS hi FROM ${schema}.blocks`,
    )
  ).rows[0]!;
  if (blocks.n === 0) {
    if (state.tip_height !== null) problems.push(`state tip_height ${state.tip_height} but no blocks`);
  } else {
    // A bootstrapped index's blocks start at its snapshot's base.
    const lo = state.base_height ?? 0;
    if (blocks.lo !== lo || blocks.hi !== lo + blocks.n - 1)
      problems.push(`blocks are not exactly heights ${lo}..${String(blocks.hi)} (${blocks.n} rows, from ${String(blocks.lo)})`);
    if (state.tip_height !== blocks.hi)
      problems.push(`state tip_height ${String(state.tip_height)} is not the last block ${String(blocks.hi)}`);
    const last = (await client.query<{ hash: Buffer }>(`SELECT hash FROM ${schema}.blocks WHERE height = $1`, [blocks.hi])).rows[0]!;
    if (!state.tip_hash?.equals(last.hash)) problems.push('state tip_hash is not the hash of the last block');
    const unlinked = (
      await client.query<{ n: number }>(
        `SELECT COUNT(*)::integer AS n FROM ${schema}.blocks AS b JOIN ${schema}.blocks AS p ON p.height = b.height - 1 WHERE b.prev_hash <> p.hash`,
      )
    ).rows[0]!.n;
    if (unlinked > 0) problems.push(`${unlinked} blocks whose prev_hash is not the hash of the block below`);
  }
  const stray = (
    await client.query<{ n: number }>(`SELECT COUNT(*)::integer AS n FROM ${schema}.undo WHERE height > $1`, [blocks.hi ?? -1])
  ).rows[0]!.n;
  if (stray > 0) problems.push(`${stray} undo rows above the tip`);
  problems.push(
    ...(await verifyPgHeaders(client, schema, state.tip_height === null ? null : { height: state.tip_height, hash: state.tip_hash! })),
  );
  const sums = (
    await client.query<{ scripts: string; utxos: string; amount: string }>(
      `SELECT COUNT(*)::text AS scripts, COALESCE(SUM(utxo_count), 0)::text AS utxos, COALESCE(SUM(balance), 0)::text AS amount FROM ${schema}.scripts`,
    )
  ).rows[0]!;
  const totals: [string, string, string][] = [
    ['utxo_count', state.utxo_count, sums.utxos],
    ['utxo_amount', state.utxo_amount, sums.amount],
    ['script_count', state.script_count, sums.scripts],
  ];
  for (const [name, stored, computed] of totals)
    if (BigInt(stored) !== BigInt(computed)) problems.push(`state ${name} ${stored} is not the scripts' ${computed}`);
  problems.push(...(await verifyPgUtxoList(client, schema)));
  problems.push(...(await verifyPgHistory(client, schema, state.tip_height)));
  return problems;
}
