/**
 * Reading address history in PostgreSQL (history-rows.ts), inside the reader's one REPEATABLE READ READ
 * ONLY snapshot (chain-reader.ts), with the SQLite engine's answers (../sqlite/history-page.ts,
 * history-union.ts):
 *
 * - a script's figures: its history_scripts row, joined to the statement reading its balance;
 * - the distinct transactions across scripts (a wallet's txCount): COUNT(DISTINCT tx_num) over their rows;
 * - a page, newest first: per script the newest limit + 1 rows below the cursor, one backward range scan
 *   of history's primary key each (in one statement), merged (../history-merge.ts), then the items'
 *   txids, heights and positions from history_txs by number. With the mempool, the scripts' unconfirmed
 *   transactions (mempool_history) come first, highest seq first, merged the same way by seq.
 *
 * Two scripts whose history keys collide share one history (../history-chunk.ts): it is read once.
 */
import { StoreError } from '../errors.js';
import { HISTORY_KEY_BYTES, historyKey } from '../history-chunk.js';
import { distinctKeys, mergeNewest, type MergedEntry, type RankedList } from '../history-merge.js';
import type {
  ChainStatus,
  HistoryBuildProgress,
  HistoryFigures,
  HistoryPosition,
  UnconfirmedItem,
  WalletHistoryItem,
  WalletHistoryRequest,
  WalletUnconfirmedItem,
} from '../index-model.js';
import { mempoolTxFacts, unconfirmedItem, type MempoolTxFacts } from '../mempool-item.js';
import { HISTORY_CODES } from './history-writer.js';
import type { Queryable } from './pg-pool.js';

/** The state row's history columns, read with the status (`st`). */
export const HISTORY_STATUS_COLUMNS = 'st.history, st.history_built';

export interface HistoryStatusRow {
  history: number;
  history_built: number | null;
}

/** A script's history_scripts row (`hs`), when read. */
export interface HistoryFiguresRow {
  h_tx_count?: string | null;
  h_received?: string | null;
  h_sent?: string | null;
  h_funded?: string | null;
  h_spent?: string | null;
}

export const FIGURES_COLUMNS =
  ', hs.tx_count::text AS h_tx_count, hs.received::text AS h_received, hs.sent::text AS h_sent, hs.funded::text AS h_funded, hs.spent::text AS h_spent';

/** The history_scripts row of the script key `key` (an SQL expression) as `hs`. */
export const figuresJoin = (schema: string, key: string): string =>
  `LEFT JOIN ${schema}.history_scripts AS hs ON hs.history_key = substring(${key} from 1 for ${HISTORY_KEY_BYTES})`;

export const historyOn = (row: HistoryStatusRow): boolean => row.history === HISTORY_CODES.on;

/** A script's figures from its row; a script with no row has no history yet. */
export function historyFigures(row: HistoryFiguresRow): HistoryFigures {
  return {
    txCount: Number(row.h_tx_count ?? 0),
    received: BigInt(row.h_received ?? 0),
    sent: BigInt(row.h_sent ?? 0),
    funded: Number(row.h_funded ?? 0),
    spent: Number(row.h_spent ?? 0),
  };
}

/** status().historyState: on, or being built up to a height; undefined while off. */
export function historyState(row: HistoryStatusRow): ChainStatus['historyState'] {
  if (historyOn(row)) return { state: 'on' };
  if (row.history === HISTORY_CODES.building && row.history_built !== null) return { state: 'building', builtHeight: row.history_built };
  return undefined;
}

/** While history is being built, how far: what a history read answers in place of its rows. */
export function buildingOf(row: HistoryStatusRow, status: ChainStatus): { building?: HistoryBuildProgress } {
  const state = historyState(row);
  return state?.state === 'building' ? { building: { height: state.builtHeight, tipHeight: status.tipHeight } } : {};
}

type Keys = ReturnType<typeof distinctKeys>;

/** Where a part of a page is read from: a table of rows ranked per key, newest (highest rank) first. */
interface Ranked {
  readonly table: string;
  readonly key: string;
  readonly rank: string;
  /** Joined to each row of the table (alias `h`) in the chain's schema, with its leading space. */
  readonly join: (schema: string) => string;
  /** Further columns read, as [expression over `h` and the join, name]. */
  readonly more: readonly (readonly [string, string])[];
}

const CONFIRMED: Ranked = { table: 'history', key: 'history_key', rank: 'tx_num', join: () => '', more: [] };
// Each row's transaction by its key: fee and held parents come with the page's rows, no statement more.
const MEMPOOL: Ranked = {
  table: 'mempool_history',
  key: 'script_key',
  rank: 'seq',
  join: (schema) => ` JOIN ${schema}.mempool_txs AS t ON t.txid = h.txid`,
  more: [
    ['h.txid', 'txid'],
    ['t.fee::text', 'fee'],
    ['t.unconfirmed_inputs', 'unconfirmed_inputs'],
  ],
};

interface RankRow {
  ord: string;
  rank: string;
  received: string;
  sent: string;
  /** MEMPOOL's. */
  txid?: Buffer;
  fee?: string | null;
  unconfirmed_inputs?: number;
}

export class HistoryReader {
  constructor(private readonly schema: string) {}

  /** The distinct confirmed transactions of each group of script keys (a key given twice counts once). */
  async distinct(client: Queryable, groups: readonly (readonly Buffer[])[]): Promise<number[]> {
    const grp: number[] = [];
    const keys: Buffer[] = [];
    groups.forEach((g, i) => {
      for (const k of g) {
        grp.push(i);
        keys.push(historyKey(k));
      }
    });
    const counts = groups.map(() => 0);
    if (keys.length === 0) return counts;
    const { rows } = await client.query<{ grp: number; n: string }>(
      `SELECT q.grp, COUNT(DISTINCT h.tx_num)::text AS n FROM unnest($1::integer[], $2::bytea[]) AS q(grp, k) ` +
        `JOIN ${this.schema}.history AS h ON h.history_key = q.k GROUP BY q.grp`,
      [grp, keys],
    );
    for (const r of rows) counts[r.grp] = Number(r.n);
    return counts;
  }

  /**
   * With `mempool`, the unconfirmed part from `after` (or the top) and, when it ends on this page, the
   * confirmed part from its top; otherwise the confirmed part alone. A page full of unconfirmed
   * transactions names its last one as `next` while anything follows it.
   */
  async page(
    client: Queryable,
    req: WalletHistoryRequest,
  ): Promise<{ unconfirmed: WalletUnconfirmedItem[]; items: WalletHistoryItem[]; next: HistoryPosition | null }> {
    const keys = distinctKeys(req.keys);
    const after = req.after;
    if (!req.mempool || after?.phase === 'confirmed') {
      const confirmed = await this.confirmed(client, keys, after?.phase === 'confirmed' ? after.txNum : null, req.limit);
      return { unconfirmed: [], ...confirmed };
    }
    const merged = await this.unconfirmed(client, keys, after === null ? Number.MAX_SAFE_INTEGER : after.seq, req.limit + 1);
    const unconfirmed = merged.slice(0, req.limit);
    const last: HistoryPosition | null =
      unconfirmed.length > 0 ? { phase: 'mempool', seq: unconfirmed[unconfirmed.length - 1]!.seq } : null;
    if (merged.length > req.limit) return { unconfirmed, items: [], next: last };
    const room = req.limit - unconfirmed.length;
    if (room === 0) return { unconfirmed, items: [], next: (await this.confirmed(client, keys, null, 1)).items.length > 0 ? last : null };
    return { unconfirmed, ...(await this.confirmed(client, keys, null, room)) };
  }

  /** One script's `want` newest mempool transactions, newest first. */
  async scriptUnconfirmed(client: Queryable, key: Buffer, want: number): Promise<UnconfirmedItem[]> {
    const merged = await this.unconfirmed(client, distinctKeys([key]), Number.MAX_SAFE_INTEGER, want);
    return merged.map(({ parts: _, ...u }) => u);
  }

  /** The mempool part: the scripts' `want` newest transactions with seq below `belowSeq`, merged. */
  private async unconfirmed(client: Queryable, keys: Keys, belowSeq: number, want: number): Promise<WalletUnconfirmedItem[]> {
    const rows = await this.newest(client, MEMPOOL, keys, belowSeq, want);
    const txs = new Map<number, MempoolTxFacts>();
    for (const r of rows) txs.set(Number(r.rank), mempoolTxFacts(r.txid!, r.fee!, r.unconfirmed_inputs!));
    return mergeNewest(ranked(keys, rows), want).map((m) => unconfirmedItem(m, txs.get(m.rank)!));
  }

  /** The confirmed part: transactions numbered below `beforeTx` (null: from the newest), at most `limit`, merged. */
  private async confirmed(
    client: Queryable,
    keys: Keys,
    beforeTx: number | null,
    limit: number,
  ): Promise<{ items: WalletHistoryItem[]; next: HistoryPosition | null }> {
    const want = limit + 1;
    const read = new Set<string>();
    const histories = keys.flatMap(({ script, key }) => {
      const at = historyKey(key);
      if (read.has(at.toString('latin1'))) return [];
      read.add(at.toString('latin1'));
      return [{ script, key: at }];
    });
    const rows = await this.newest(client, CONFIRMED, histories, beforeTx ?? Number.MAX_SAFE_INTEGER, want);
    const merged = mergeNewest(ranked(histories, rows), want);
    const items = await this.items(client, merged.slice(0, limit));
    return { items, next: merged.length > limit ? { phase: 'confirmed', txNum: items[items.length - 1]!.txNum } : null };
  }

  /** Each key's newest `want` rows of `from` ranked below `below`, newest first: one backward range scan per key. */
  private async newest(client: Queryable, from: Ranked, keys: Keys, below: number, want: number): Promise<RankRow[]> {
    if (keys.length === 0) return [];
    const { table, key, rank, join, more } = from;
    const inner = more.map(([expr, name]) => `, ${expr} AS ${name}`).join('');
    const outer = more.map(([, name]) => `, h.${name}`).join('');
    const { rows } = await client.query<RankRow>(
      `SELECT q.ord::text AS ord, h.rank::text AS rank, h.received::text AS received, h.sent::text AS sent${outer} ` +
        `FROM unnest($1::bytea[]) WITH ORDINALITY AS q(k, ord) CROSS JOIN LATERAL (` +
        `SELECT h.${rank} AS rank, h.received, h.sent${inner} FROM ${this.schema}.${table} AS h${join(this.schema)} ` +
        `WHERE h.${key} = q.k AND h.${rank} < $2 ORDER BY h.${rank} DESC LIMIT $3) AS h`,
      [keys.map((k) => k.key), below, want],
    );
    return rows;
  }

  /** The entries' txids, heights and positions, by number, in one statement. */
  private async items(client: Queryable, entries: readonly MergedEntry[]): Promise<WalletHistoryItem[]> {
    if (entries.length === 0) return [];
    const { rows } = await client.query<{ tx_num: string; txid: Buffer; height: number; position: number }>(
      `SELECT tx_num::text AS tx_num, txid, height, position FROM ${this.schema}.history_txs WHERE tx_num = ANY($1::bigint[])`,
      [entries.map((e) => e.rank)],
    );
    const byNum = new Map(rows.map((r) => [Number(r.tx_num), r]));
    return entries.map(({ rank: txNum, parts, received, sent }) => {
      const tx = byNum.get(txNum);
      if (!tx) throw new StoreError('INCONSISTENT', `history names transaction ${txNum}, which the index does not hold`);
      return { txNum, txid: tx.txid, height: tx.height, position: tx.position, received, sent, parts };
    });
  }
}

/** The rows of one statement (newest), as one ranked list per key, in the keys' order. */
function ranked(keys: Keys, rows: readonly RankRow[]): RankedList[] {
  const lists = keys.map(({ script }) => ({ script, entries: [] as { rank: number; received: bigint; sent: bigint }[] }));
  // Rows of one key come in descending rank: LATERAL runs its ordered subquery once per key.
  for (const r of rows)
    lists[Number(r.ord) - 1]!.entries.push({ rank: Number(r.rank), received: BigInt(r.received), sent: BigInt(r.sent) });
  for (const l of lists) l.entries.sort((a, b) => b.rank - a.rank);
  return lists;
}
