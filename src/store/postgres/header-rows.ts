/**
 * The `headers` table in PostgreSQL (migrations/postgres/0006; invariants in ../header-chain.ts): one
 * contiguous run of 80-byte headers ending at the tip. The writer adds the blocks' rows with their blocks,
 * removes a rolled-back tip's in the rollback, and adds backfilled runs below the lowest; a reader takes a
 * range in one statement with the tip it belongs to.
 */
import { coinbaseTxid } from '../connect-blocks.js';
import { headerPrevHash } from '../../chain/block-header.js';
import { StoreError } from '../errors.js';
import { HeaderChecker } from '../header-verify.js';
import { checkHeaderRun, headerRange, headersFromOf, type HeaderRange } from '../header-chain.js';
import type { BlockToApply, Tip } from '../index-model.js';
import type { Queryable } from './pg-pool.js';

/** The lowest stored height (null: none), as one SQL expression for a status statement. */
export const lowestHeaderSql = (schema: string): string => `(SELECT MIN(height) FROM ${schema}.headers)`;

/** Inside the blocks' transaction: their blocks and headers rows. */
export async function insertBlockRows(client: Queryable, schema: string, blocks: readonly BlockToApply[]): Promise<void> {
  const heights = blocks.map((b) => b.height);
  await client.query(
    `INSERT INTO ${schema}.blocks (height, hash, prev_hash, coinbase_txid) SELECT * FROM unnest($1::integer[], $2::bytea[], $3::bytea[], $4::bytea[])`,
    [heights, blocks.map((b) => b.hash), blocks.map((b) => b.prevHash), blocks.map((b) => coinbaseTxid(b.txs))],
  );
  await client.query(`INSERT INTO ${schema}.headers (height, header) SELECT * FROM unnest($1::integer[], $2::bytea[])`, [
    heights,
    blocks.map((b) => b.header),
  ]);
}

/** Inside a rollback's transaction: the block row and headers of `height` and above leave. */
export async function deleteBlockRows(client: Queryable, schema: string, height: number): Promise<void> {
  await client.query(`DELETE FROM ${schema}.blocks WHERE height = $1`, [height]);
  await client.query(`DELETE FROM ${schema}.headers WHERE height >= $1`, [height]);
}

/** The index's headersFrom at `tip` (null while nothing is indexed). */
export async function readHeadersFrom(client: Queryable, schema: string, tip: Tip | null): Promise<number | null> {
  if (!tip) return null;
  const { rows } = await client.query<{ lowest: number | null }>(`SELECT ${lowestHeaderSql(schema)} AS lowest`);
  return headersFromOf(rows[0]?.lowest ?? null, tip.height);
}

/** Inside the caller's transaction: a backfilled run, checked against the header above it; returns the new headersFrom. */
export async function addHeadersBelow(
  client: Queryable,
  schema: string,
  from: number,
  headers: readonly Buffer[],
  tip: Tip | null,
): Promise<number> {
  if (!tip) throw new StoreError('EMPTY', 'no headers to add below: the index is empty');
  const headersFrom = (await readHeadersFrom(client, schema, tip))!;
  let above = tip.hash;
  if (headersFrom <= tip.height) {
    const { rows } = await client.query<{ header: Buffer }>(`SELECT header FROM ${schema}.headers WHERE height = $1`, [headersFrom]);
    above = headerPrevHash(rows[0]!.header);
  }
  checkHeaderRun(from, headers, { headersFrom, above });
  if (headers.length === 0) return headersFrom;
  await client.query(`INSERT INTO ${schema}.headers (height, header) SELECT * FROM unnest($1::integer[], $2::bytea[])`, [
    headers.map((_, i) => from + i),
    headers,
  ]);
  return from;
}

const clamp = (n: number): number => Math.max(-1, Math.min(n, 2 ** 40));

/** A reader's headers(from, count): one statement, so the rows and the tip belong to one commit. */
export async function readHeaderRange(client: Queryable, schema: string, from: number, count: number): Promise<HeaderRange | null> {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(count)) throw new RangeError(`headers(${from}, ${count}): not integers`);
  const { rows } = await client.query<{
    tip_height: number | null;
    tip_hash: Buffer | null;
    lowest: number | null;
    headers: Buffer[] | null;
  }>(
    `WITH st AS (SELECT tip_height, tip_hash, ${lowestHeaderSql(schema)} AS lowest FROM ${schema}.state) ` +
      'SELECT st.tip_height, st.tip_hash, st.lowest, ' +
      `(SELECT array_agg(h.header ORDER BY h.height) FROM ${schema}.headers AS h ` +
      'WHERE h.height BETWEEN $1::bigint AND LEAST($1::bigint + $2::bigint - 1, st.tip_height) ' +
      'AND $1::bigint >= COALESCE(st.lowest, st.tip_height + 1)) AS headers FROM st',
    // Out of range, nothing is read (headerRange answers with none): clamped only to stay a bigint.
    [clamp(from), clamp(count)],
  );
  const row = rows[0];
  if (!row || row.tip_height === null || row.tip_hash === null) return null;
  return headerRange({ height: row.tip_height, hash: row.tip_hash }, row.lowest, from, count, () => row.headers ?? []);
}

/** Headers per query of the verifier: keyset pages, so a mainnet's millions never sit in memory at once. */
const VERIFY_PAGE = 50_000;

/** `addrsum-verify`'s check of the stored headers (../header-verify.ts), inside the caller's snapshot. */
export async function verifyPgHeaders(client: Queryable, schema: string, tip: Tip | null): Promise<string[]> {
  const checker = new HeaderChecker();
  for (let from = 0; ;) {
    const { rows } = await client.query<{ height: number; header: Buffer; hash: Buffer | null }>(
      `SELECT h.height, h.header, b.hash FROM ${schema}.headers AS h LEFT JOIN ${schema}.blocks AS b ON b.height = h.height ` +
        'WHERE h.height >= $1 ORDER BY h.height LIMIT $2',
      [from, VERIFY_PAGE],
    );
    for (const r of rows) checker.add(r.height, r.header, r.hash);
    if (rows.length < VERIFY_PAGE) return checker.finish(tip);
    from = rows[rows.length - 1]!.height + 1;
  }
}
