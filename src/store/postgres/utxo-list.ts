/**
 * The opt-in UTXO listing's access path in PostgreSQL (`chains.<CODE>.utxoList`, ADDRSUM_UTXO_LIST), as
 * the SQLite engine's (../sqlite/utxo-list.ts) in one index: utxos (script_key, height, outpoint),
 * named utxos_by_script. The server keeps it inside every transaction that touches `utxos`, so it is
 * exactly as consistent through blocks, reorgs and kills as the table, with no code on the write path;
 * its order is the listing's (../utxo-listing.ts: bytea compares bytewise, as SQLite's blobs), so a
 * script's page is one range of it, read in order (utxo-page.ts).
 *
 * state.utxo_list_secret (migration 0003) keys the API's cursor MACs and says that the listing is on:
 * set in the transaction that builds the index, cleared in the one that drops it, so it never stands
 * without the index, and turning the listing off and on again voids old cursors.
 *
 * SQLite's 16 shards exist so that a kill loses one shard's work; here they would buy nothing: CREATE
 * INDEX is transactional and sorts in bulk (with parallel workers where the server allows), so the
 * build is one transaction that also sets the secret, and a kill rolls it back whole for the next
 * start to redo. It holds a SHARE lock on utxos meanwhile: readers go on, this writer's next commit
 * waits. Dropping the index takes an ACCESS EXCLUSIVE lock for a moment (a standby replaying it may
 * cancel a query that outlasts max_standby_streaming_delay).
 */
import { randomBytes } from 'node:crypto';
import type { UtxoListEvent } from '../index-model.js';
import { inTransaction, longStatement, type Queryable } from './pg-pool.js';

export const UTXO_LIST_INDEX = 'utxos_by_script';

/** The index: absent, valid, or invalid (left by a failed concurrent build: unused by the server). */
type IndexState = 'absent' | 'valid' | 'invalid';

interface ListingState {
  readonly index: IndexState;
  /** state.utxo_list_secret is set. */
  readonly on: boolean;
  readonly utxos: number;
}

async function listingState(client: Queryable, schema: string): Promise<ListingState> {
  const { rows } = await client.query<{ valid: boolean | null; listed: boolean; utxos: string }>(
    `SELECT (SELECT i.indisvalid FROM pg_index AS i WHERE i.indexrelid = to_regclass($1)) AS valid, ` +
      `utxo_list_secret IS NOT NULL AS listed, utxo_count::text AS utxos FROM ${schema}.state`,
    [`${schema}.${UTXO_LIST_INDEX}`],
  );
  const row = rows[0]!;
  return { index: row.valid === null ? 'absent' : row.valid ? 'valid' : 'invalid', on: row.listed, utxos: Number(row.utxos) };
}

/**
 * Makes the listing on or off as the setting says; a no-op when it already is. On: builds the index
 * and sets the secret in one transaction (events for the log: building, built; the single index is
 * no shard); off: drops both in one transaction.
 */
export async function setPgUtxoList(
  client: Queryable,
  schema: string,
  on: boolean,
  onEvent: (e: UtxoListEvent) => void = () => undefined,
): Promise<void> {
  const state = await listingState(client, schema);
  if (on === state.on && state.index === (on ? 'valid' : 'absent')) return;
  const index = `${schema}.${UTXO_LIST_INDEX}`;
  const record = (): Promise<unknown> =>
    client.query(`UPDATE ${schema}.state SET utxo_list_secret = COALESCE(utxo_list_secret, $1)`, [randomBytes(32)]);
  if (!on) {
    await inTransaction(client, async () => {
      await client.query(`DROP INDEX IF EXISTS ${index}`);
      await client.query(`UPDATE ${schema}.state SET utxo_list_secret = NULL`);
    });
    onEvent({ kind: 'removed' });
    return;
  }
  if (state.index === 'valid') {
    await inTransaction(client, record);
    return;
  }
  onEvent({ kind: 'building', utxos: state.utxos, shards: 1, of: 1 });
  const started = performance.now();
  const indexBytes = await inTransaction(client, async () => {
    // A writer killed meanwhile: the server gives the build up within a second (PostgreSQL 14+) rather
    // than finishing it for nobody while its session still holds the writer lock.
    await client.query(
      "SELECT set_config('client_connection_check_interval', '1s', true) WHERE current_setting('server_version_num')::integer >= 140000",
    );
    await client.query(`DROP INDEX IF EXISTS ${index}`);
    await longStatement(client, `CREATE INDEX ${UTXO_LIST_INDEX} ON ${schema}.utxos (script_key, height, outpoint)`);
    await record();
    const { rows } = await client.query<{ bytes: string }>('SELECT pg_relation_size(to_regclass($1))::text AS bytes', [index]);
    return Number(rows[0]!.bytes);
  });
  onEvent({ kind: 'built', utxos: state.utxos, seconds: (performance.now() - started) / 1000, indexBytes });
}

/**
 * verify: the secret and the index agree, and the index holds exactly each script's UTXO count (read
 * from the index itself, merge-joined with `scripts`). Runs inside the verifier's snapshot; the planner
 * settings it needs are undone before it returns. Human-readable problems.
 */
export async function verifyPgUtxoList(client: Queryable, schema: string): Promise<string[]> {
  const state = await listingState(client, schema);
  const problems: string[] = [];
  if (state.index === 'invalid') problems.push(`the UTXO listing index ${UTXO_LIST_INDEX} is invalid: turn the listing off and on again`);
  if (state.index === 'valid' && !state.on)
    problems.push(`the UTXO listing index ${UTXO_LIST_INDEX} exists but state says the listing is off`);
  if (state.index !== 'valid' && state.on)
    problems.push(`state says the UTXO listing is on but its index ${UTXO_LIST_INDEX} is ${state.index}`);
  if (problems.length > 0 || state.index === 'absent') return problems;
  // The counts must come from the index, not the table: no sequential scan, no hashing, so the server
  // groups the index's own entries in their order. SET LOCAL inside a savepoint rolled back: undone after.
  await client.query('SAVEPOINT utxo_list_check');
  try {
    await client.query('SET LOCAL enable_seqscan = off');
    await client.query('SET LOCAL enable_bitmapscan = off');
    await client.query('SET LOCAL enable_hashagg = off');
    const { rows } = await client.query<{ n: number }>(
      `WITH c AS (SELECT script_key, COUNT(*) AS n FROM ${schema}.utxos GROUP BY script_key ORDER BY script_key) ` +
        `SELECT COUNT(*)::integer AS n FROM c FULL JOIN ${schema}.scripts AS s ON s.script_key = c.script_key ` +
        'WHERE c.n IS DISTINCT FROM s.utxo_count',
    );
    const differences = rows[0]!.n;
    return differences === 0 ? [] : [`the UTXO listing index disagrees with scripts.utxo_count for ${differences} scripts`];
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT utxo_list_check');
    await client.query('RELEASE SAVEPOINT utxo_list_check');
  }
}
