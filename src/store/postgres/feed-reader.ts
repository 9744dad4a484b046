/**
 * Reading the change feed (migrations/postgres changes; the SQLite engine's ../sqlite/change-feed.ts):
 * the rows API processes tail for their live pushes, and its newest seq inside a read's snapshot.
 */
import type { FeedBounds, FeedEntry } from '../index-model.js';
import type { FeedReader } from '../ports.js';
import { splitScriptKeys } from '../script-key.js';
import type { Pool, Queryable } from './pg-pool.js';

const KINDS = { 1: 'block', 2: 'disconnect', 3: 'mempool' } as const;

export function pgFeedReader(pool: Pool, schema: string): FeedReader {
  return {
    async bounds(): Promise<FeedBounds | null> {
      const { rows } = await pool.query<{ first: string | null; last: string | null }>(
        `SELECT MIN(seq)::text AS first, MAX(seq)::text AS last FROM ${schema}.changes`,
      );
      const row = rows[0];
      return !row || row.first === null || row.last === null ? null : { first: Number(row.first), last: Number(row.last) };
    },
    async since(after: number, limit: number): Promise<FeedEntry[]> {
      const { rows } = await pool.query<{ seq: string; kind: number; tip_height: number | null; scripts: Buffer | null }>(
        `SELECT seq::text AS seq, kind, tip_height, scripts FROM ${schema}.changes AS c WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`,
        [after, limit],
      );
      return rows.map((r) => ({
        seq: Number(r.seq),
        kind: KINDS[r.kind as keyof typeof KINDS] ?? 'block',
        tipHeight: r.tip_height,
        scripts: r.scripts === null ? null : splitScriptKeys(r.scripts),
      }));
    },
  };
}

/** The newest seq of the change feed (0: empty), inside the caller's snapshot. */
export async function lastFeedSeq(client: Queryable, schema: string): Promise<number> {
  const { rows } = await client.query<{ last: string | null }>(`SELECT MAX(seq)::text AS last FROM ${schema}.changes`);
  return Number(rows[0]?.last ?? 0);
}
