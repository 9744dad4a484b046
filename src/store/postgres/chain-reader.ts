/**
 * The read path of a chain's index in PostgreSQL (the API's), on the primary or a streaming standby: it
 * never creates, migrates or writes. Every answer comes from one snapshot: one statement, or several in
 * one REPEATABLE READ READ ONLY transaction, so the figures and the tip they are reported at belong to
 * one commit of the writer. Amounts come back as decimal text (int8) and become exact bigints.
 * While a snapshot load is unfinished (snapshot-load.ts) there is no tip, and bootstrap() says how far it is.
 * The mempool deltas come from mempool_scripts (mempool-writer.ts), and history's figures and pages from
 * its tables (history-reader.ts), in the snapshot of the confirmed figures; the UTXO listing's pages from
 * utxo-page.ts.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { StoreError } from '../errors.js';
import { parseBootstrapProgress } from '../bootstrap-state.js';
import type {
  BootstrapProgress,
  ChainStatus,
  HistoryPage,
  HistoryPageRequest,
  MempoolDelta,
  ScriptSummary,
  ScriptView,
  ScriptViews,
  UtxoListing,
  UtxoPageRequest,
  ViewOptions,
  WalletHistoryPage,
  WalletHistoryRequest,
} from '../index-model.js';
import type { ScriptTxsRead } from '../script-txs.js';
import type { FeedReader, IndexReader } from '../ports.js';
import { scriptKey } from '../script-key.js';
import { chainMismatch, chainSchema, checkPgSchemaVersion } from './chain-schema.js';
import {
  FIGURES_COLUMNS,
  HISTORY_STATUS_COLUMNS,
  HistoryReader,
  buildingOf,
  figuresJoin,
  historyFigures,
  historyOn,
  historyState,
  type HistoryFiguresRow,
  type HistoryStatusRow,
} from './history-reader.js';
import { openPool, withTransaction, type Pool, type Queryable } from './pg-pool.js';
import { readUtxoPage } from './utxo-page.js';
import { readScriptTxs } from './script-txs.js';
import { lastFeedSeq, pgFeedReader } from './feed-reader.js';
import { withHeadersFrom, type HeaderRange } from '../header-chain.js';
import type { TxBlock } from '../tx-block.js';
import { readTxBlock } from './tx-block-rows.js';
import { readOutspends } from './spend-rows.js';
import type { OutspendsRead } from '../spend-key.js';
import { lowestHeaderSql, readHeaderRange } from './header-rows.js';
import { STANDBY_LAG_SQL, standbyReplayLag } from './standby-lag.js';

export const STATUS_COLUMNS =
  'st.tip_height, st.tip_hash, st.node_height, st.node_seen_at::text AS node_seen_at, st.tip_time::text AS tip_time, ' +
  HISTORY_STATUS_COLUMNS;

export interface StatusRow extends HistoryStatusRow {
  tip_height: number | null;
  tip_hash: Buffer | null;
  node_height: number | null;
  node_seen_at: string | null;
  tip_time: string | null;
}

interface FiguresRow {
  balance: string | null;
  utxo_count: string | null;
}

/** A script's row of mempool_scripts, when asked for (null: no mempool transaction touches it). */
interface MempoolRow {
  m_received: string | null;
  m_sent: string | null;
  m_utxo_count: string | null;
  m_tx_count: string | null;
}

/** Connections of one API process to one chain's index. */
export const READER_CONNECTIONS = 4;
/**
 * Reads that may wait for a connection beyond those: a few milliseconds of work at a reader's pace, so a
 * request past it gets 503 at once instead of waiting out the connect timeout (pg-pool.ts).
 */
export const READER_MAX_WAITING = 256;

export class PgIndexReader implements IndexReader {
  readonly feed: FeedReader;
  private readonly history: HistoryReader;
  private lastTip: { raw: Buffer; hex: string } | null = null;

  private constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
  ) {
    this.feed = pgFeedReader(pool, schema);
    this.history = new HistoryReader(schema);
  }

  /** Throws StoreError NOT_INITIALIZED, SCHEMA_TOO_NEW, SCHEMA_TOO_OLD or CHAIN_MISMATCH. */
  static async open(
    url: string,
    id: { chain: ChainCode; network: NetworkName },
    opts: { maxConnections?: number; maxWaiting?: number } = {},
  ): Promise<PgIndexReader> {
    const schema = chainSchema(id.chain);
    const pool = openPool(url, {
      max: opts.maxConnections ?? READER_CONNECTIONS,
      maxWaiting: opts.maxWaiting ?? READER_MAX_WAITING,
      name: `addrsum-api-${id.chain.toLowerCase()}`,
    });
    try {
      await checkPgSchemaVersion(pool, schema);
      const { rows } = await pool.query<{ chain: string; network: string }>(`SELECT chain, network FROM ${schema}.state`);
      const held = rows[0];
      if (!held) throw new StoreError('NOT_INITIALIZED', `PostgreSQL schema ${schema} has no chain recorded yet`);
      if (held.chain !== id.chain || held.network !== id.network) throw chainMismatch(schema, held, id);
      return new PgIndexReader(pool, schema, id.chain, id.network);
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  /** One statement: the script's figures and the status they are true at. */
  async summary(script: Uint8Array): Promise<ScriptSummary | null> {
    // A named statement: each connection parses and plans it once, not on every lookup (the API's hot path).
    const { rows } = await this.pool.query<StatusRow & FiguresRow & HistoryFiguresRow>({
      name: `${this.schema}.summary`,
      text: summarySql(this.schema),
      values: [scriptKey(script)],
    });
    const row = rows[0];
    const status = row ? this.toStatus(row) : null;
    if (!status) return null;
    const summary: ScriptSummary = { ...status, ...figures(row!) };
    if (historyOn(row!)) summary.history = historyFigures(row!);
    return summary;
  }

  views(scripts: readonly Uint8Array[], mempool: boolean): Promise<ScriptViews | null> {
    return this.viewsOf(
      scripts.map((s) => scriptKey(s)),
      mempool,
    );
  }

  /** views() by script key; with `distinct` or `groups` (while history is kept), their distinct transactions too. */
  keyViews(keys: readonly Uint8Array[], mempool: boolean, opts: ViewOptions = {}): Promise<ScriptViews | null> {
    return this.viewsOf(
      keys.map((k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength)),
      mempool,
      opts,
    );
  }

  /**
   * One statement: the tip and history's state belong to one commit; read on a streaming standby, also
   * how far its replay lags (standby-lag.ts).
   */
  async status(): Promise<ChainStatus | null> {
    const { rows } = await this.pool.query<StatusRow & { standby_lag: number | null; lowest_header: number | null }>(
      `SELECT ${STATUS_COLUMNS}, ${STANDBY_LAG_SQL} AS standby_lag, ${lowestHeaderSql(this.schema)} AS lowest_header FROM ${this.schema}.state AS st`,
    );
    const row = rows[0] ?? { ...EMPTY_STATUS, standby_lag: null, lowest_header: null };
    const lag = standbyReplayLag(row.standby_lag);
    const status = withHeadersFrom(this.toStatus(row), row.lowest_header);
    const state = historyState(row);
    return (
      status && {
        ...status,
        ...(state && { historyState: state }),
        ...(lag !== undefined && { standbyReplayLagSeconds: lag }),
      }
    );
  }

  /** Stored block headers from `from` (header-rows.ts), in one statement with the tip they belong to. */
  headers(from: number, count: number): Promise<HeaderRange | null> {
    return readHeaderRange(this.pool, this.schema, from, count);
  }

  /** The block holding a txid (tx-block-rows.ts). */
  txBlock(txid: Buffer): Promise<TxBlock | null> {
    return readTxBlock(this.pool, this.schema, txid);
  }

  /** What spent each output of a transaction (spend-rows.ts), in one snapshot with the tip. */
  outspends(txid: Buffer, outputs: number): Promise<OutspendsRead | null> {
    return withTransaction(
      this.pool,
      async (client) => readOutspends(client, this.schema, await this.statusRow(client), txid, outputs),
      'snapshot',
    );
  }

  /** Transactions of the node's mempool the index holds now (the status page shows it). */
  async mempoolTxs(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${this.schema}.mempool_txs`);
    return Number(rows[0]?.n ?? 0);
  }

  /** Where an unfinished snapshot load stands, as of its last committed chunk; null when there is none. */
  async bootstrap(): Promise<BootstrapProgress | null> {
    const { rows } = await this.pool.query<{ p: string | null }>(`SELECT bootstrap_progress AS p FROM ${this.schema}.state`);
    return parseBootstrapProgress(rows[0]?.p);
  }

  /** One page of the opt-in UTXO listing (utxo-page.ts), in one snapshot with the tip it names. */
  utxoPage(req: UtxoPageRequest): Promise<UtxoListing | null> {
    return withTransaction(
      this.pool,
      async (client) => {
        const row = await this.statusRow(client);
        const status = this.toStatus(row);
        return (
          status && {
            ...status,
            listing: await readUtxoPage(client, this.schema, { tipHeight: status.tipHeight, tipHash: row.tip_hash! }, req),
          }
        );
      },
      'snapshot',
    );
  }

  /** One page of a script's history, newest first (history-reader.ts), in one snapshot with the tip it names. */
  async historyPage(req: HistoryPageRequest): Promise<HistoryPage | null> {
    const { key, ...rest } = req;
    const page = await this.readHistory({ ...rest, keys: [key] });
    if (!page?.page) return page;
    const { unconfirmed, items } = page.page;
    return {
      ...page,
      page: {
        ...page.page,
        unconfirmed: unconfirmed.map(({ parts: _, ...u }) => u),
        items: items.map(({ parts: _, ...i }) => i),
      },
    };
  }

  /** One script's whole history, lean (script-txs.ts), in one snapshot with the feed position it is true at. */
  scriptTxs(key: Buffer, max: number, after?: number): Promise<ScriptTxsRead | null> {
    return withTransaction(
      this.pool,
      async (client) => {
        const row = await this.statusRow(client);
        const status = this.toStatus(row);
        if (status === null) return null;
        const feedSeq = await lastFeedSeq(client, this.schema);
        if (!historyOn(row)) return { ...status, txs: null, feedSeq, ...buildingOf(row, status) };
        return { ...status, txs: await readScriptTxs(client, this.schema, this.history, key, max, after), feedSeq };
      },
      'snapshot',
    );
  }

  /** One page of several scripts' histories merged, each transaction once (history-reader.ts), in one snapshot. */
  walletHistoryPage(req: WalletHistoryRequest): Promise<WalletHistoryPage | null> {
    return this.readHistory(req);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The status and every script's figures (and history's, while kept) in one REPEATABLE READ snapshot. */
  private async viewsOf(keys: Buffer[], mempool: boolean, opts: ViewOptions = {}): Promise<ScriptViews | null> {
    return withTransaction(
      this.pool,
      async (client) => {
        const statusRow = await this.statusRow(client);
        const status = this.toStatus(statusRow);
        if (status === null) return null;
        const history = historyOn(statusRow);
        const funded = mempool && opts.fundedOutputs === true;
        const { rows } = await client.query<FiguresRow & Partial<MempoolRow> & HistoryFiguresRow & { m_funded?: number }>(
          `SELECT s.balance::text AS balance, s.utxo_count::text AS utxo_count${mempool ? MEMPOOL_COLUMNS : ''}${history ? FIGURES_COLUMNS : ''}` +
            `${funded ? `, (SELECT count(*) FROM ${this.schema}.mempool_outputs AS mo WHERE mo.script_key = q.k)::int AS m_funded` : ''} ` +
            `FROM unnest($1::bytea[]) WITH ORDINALITY AS q(k, ord) LEFT JOIN ${this.schema}.scripts AS s ON s.script_key = q.k ` +
            `${mempool ? `LEFT JOIN ${this.schema}.mempool_scripts AS m ON m.script_key = q.k ` : ''}` +
            `${history ? `${figuresJoin(this.schema, 'q.k')} ` : ''}ORDER BY q.ord`,
          [keys],
        );
        const items = rows.map((row): ScriptView => {
          const view: ScriptView = figures(row);
          if (mempool) view.unconfirmed = unconfirmed(row, history);
          if (funded) view.unconfirmed!.funded = row.m_funded!;
          if (history) view.history = historyFigures(row);
          return view;
        });
        const views: ScriptViews = { ...status, items };
        if (history && (opts.distinct === true || opts.groups)) {
          const groups = opts.groups?.map((g) => g.map((i) => keys[i]!)) ?? [];
          const counts = await this.history.distinct(client, opts.distinct === true ? [keys, ...groups] : groups);
          if (opts.distinct === true) views.distinctTxCount = counts.shift()!;
          if (opts.groups) views.groupTxCounts = counts;
        }
        return views;
      },
      'snapshot',
    );
  }

  /**
   * The status, the cursor's check and every row of a page in one snapshot; `page` null (with the build's
   * progress while one is under way) while history is not kept.
   */
  private async readHistory(req: WalletHistoryRequest): Promise<WalletHistoryPage | null> {
    return withTransaction(
      this.pool,
      async (client) => {
        // The cursors' key with the status: one statement fewer per page.
        const { rows } = await client.query<StatusRow & { history_secret: Buffer | null }>(
          `SELECT ${STATUS_COLUMNS}, st.history_secret FROM ${this.schema}.state AS st`,
        );
        const row = rows[0];
        const status = row ? this.toStatus(row) : null;
        if (!row || status === null) return null;
        if (!historyOn(row)) return { ...status, page: null, ...buildingOf(row, status) };
        const ctx = { tipHeight: status.tipHeight, tipHash: row.tip_hash!, secret: row.history_secret! };
        req.check?.(ctx);
        return { ...status, page: { ...(await this.history.page(client, req)), ...ctx } };
      },
      'snapshot',
    );
  }

  private async statusRow(client: Queryable): Promise<StatusRow> {
    const { rows } = await client.query<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM ${this.schema}.state AS st`);
    return rows[0] ?? EMPTY_STATUS;
  }

  private toStatus(row: StatusRow): ChainStatus | null {
    if (row.tip_height === null || row.tip_hash === null) return null;
    if (this.lastTip === null || !this.lastTip.raw.equals(row.tip_hash))
      this.lastTip = { raw: row.tip_hash, hex: toDisplayHex(row.tip_hash) };
    return {
      tipHeight: row.tip_height,
      tipHash: this.lastTip.hex,
      nodeHeight: row.node_height,
      nodeSeenAt: row.node_seen_at === null ? null : new Date(Number(row.node_seen_at)),
      tipTime: row.tip_time === null ? null : new Date(Number(row.tip_time) * 1000),
    };
  }
}

/** The summary's one statement: the status and the script's figures, from one snapshot. */
function summarySql(schema: string): string {
  return (
    `SELECT ${STATUS_COLUMNS}, s.balance::text AS balance, s.utxo_count::text AS utxo_count${FIGURES_COLUMNS} ` +
    `FROM ${schema}.state AS st LEFT JOIN ${schema}.scripts AS s ON s.script_key = $1 ${figuresJoin(schema, '$1')}`
  );
}

/** What a state table without its row reads as: nothing indexed. */
const EMPTY_STATUS: StatusRow = {
  tip_height: null,
  tip_hash: null,
  node_height: null,
  node_seen_at: null,
  tip_time: null,
  history: 0,
  history_built: null,
};

const MEMPOOL_COLUMNS =
  ', m.received::text AS m_received, m.sent::text AS m_sent, m.utxo_count::text AS m_utxo_count, m.tx_count::text AS m_tx_count';

/** The mempool deltas (zeros when none touches the script); the gross figures only beside confirmed history (as SQLite's). */
function unconfirmed(row: Partial<MempoolRow>, history: boolean): MempoolDelta {
  const amount = (v: string | null | undefined): bigint => (v == null ? 0n : BigInt(v));
  const [received, sent] = [amount(row.m_received), amount(row.m_sent)];
  const delta: MempoolDelta = {
    balanceSats: received - sent,
    utxoCount: Number(row.m_utxo_count ?? 0),
    txCount: Number(row.m_tx_count ?? 0),
  };
  if (history) Object.assign(delta, { received, sent });
  return delta;
}

function figures(row: FiguresRow): { balanceSats: bigint; utxoCount: number } {
  return { balanceSats: row.balance === null ? 0n : BigInt(row.balance), utxoCount: row.utxo_count === null ? 0 : Number(row.utxo_count) };
}
