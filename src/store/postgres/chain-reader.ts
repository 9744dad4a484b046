/**
 * The read path of a chain's index in PostgreSQL (the API's), on the primary or a streaming standby: it
 * never creates, migrates or writes. Every answer comes from one snapshot: one statement, or several in
 * one REPEATABLE READ READ ONLY transaction, so the figures and the tip they are reported at belong to
 * one commit of the writer. Amounts come back as decimal text (int8) and become exact bigints.
 * While a snapshot load is unfinished (snapshot-load.ts) there is no tip, and bootstrap() says how far it is.
 * Not yet on PostgreSQL (issue 34): history figures and pages, the UTXO listing; the answers say so as
 * the ports allow (no history figures, a listing `off`, a `page` null). The mempool deltas come from
 * mempool_scripts (mempool-writer.ts) in the snapshot of the confirmed figures.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { StoreError } from '../errors.js';
import { parseBootstrapProgress } from '../bootstrap-state.js';
import type {
  BootstrapProgress,
  ChainStatus,
  FeedBounds,
  FeedEntry,
  HistoryPage,
  MempoolDelta,
  ScriptSummary,
  ScriptView,
  ScriptViews,
  UtxoListing,
  WalletHistoryPage,
} from '../index-model.js';
import type { FeedReader, IndexReader } from '../ports.js';
import { SCRIPT_KEY_BYTES, scriptKey } from '../script-key.js';
import { chainMismatch, chainSchema, checkPgSchemaVersion } from './chain-schema.js';
import { openPool, withTransaction, type Pool, type Queryable } from './pg-pool.js';

export const STATUS_COLUMNS =
  'st.tip_height, st.tip_hash, st.node_height, st.node_seen_at::text AS node_seen_at, st.tip_time::text AS tip_time';

export interface StatusRow {
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

const KINDS = { 1: 'block', 2: 'disconnect', 3: 'mempool' } as const;

export class PgIndexReader implements IndexReader {
  readonly feed: FeedReader;
  private lastTip: { raw: Buffer; hex: string } | null = null;

  private constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
  ) {
    this.feed = {
      bounds: () => this.bounds(),
      since: (after, limit) => this.since(after, limit),
    };
  }

  /** Throws StoreError NOT_INITIALIZED, SCHEMA_TOO_NEW, SCHEMA_TOO_OLD or CHAIN_MISMATCH. */
  static async open(
    url: string,
    id: { chain: ChainCode; network: NetworkName },
    opts: { maxConnections?: number } = {},
  ): Promise<PgIndexReader> {
    const schema = chainSchema(id.chain);
    const pool = openPool(url, { max: opts.maxConnections ?? 4, name: `addrsum-api-${id.chain.toLowerCase()}` });
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
    const { rows } = await this.pool.query<StatusRow & FiguresRow>(
      `SELECT ${STATUS_COLUMNS}, s.balance::text AS balance, s.utxo_count::text AS utxo_count ` +
        `FROM ${this.schema}.state AS st LEFT JOIN ${this.schema}.scripts AS s ON s.script_key = $1`,
      [scriptKey(script)],
    );
    const row = rows[0];
    const status = row ? this.toStatus(row) : null;
    return status && { ...status, ...figures(row!) };
  }

  views(scripts: readonly Uint8Array[], mempool: boolean): Promise<ScriptViews | null> {
    return this.viewsOf(
      scripts.map((s) => scriptKey(s)),
      mempool,
    );
  }

  /** History figures (distinct, groups) are not kept yet: views without them, as an index that keeps no history. */
  keyViews(keys: readonly Uint8Array[], mempool: boolean): Promise<ScriptViews | null> {
    return this.viewsOf(
      keys.map((k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength)),
      mempool,
    );
  }

  async status(): Promise<ChainStatus | null> {
    return this.toStatus(await this.statusRow(this.pool));
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

  /** The listing is never on yet: `off` at the tip, as an index that keeps none. */
  async utxoPage(): Promise<UtxoListing | null> {
    const row = await this.statusRow(this.pool);
    const status = this.toStatus(row);
    return status && { ...status, listing: { kind: 'off', tipHeight: status.tipHeight, tipHash: row.tip_hash! } };
  }

  /** No history kept yet: `page` null, as an index that keeps none. */
  async historyPage(): Promise<HistoryPage | null> {
    const status = await this.status();
    return status && { ...status, page: null };
  }

  async walletHistoryPage(): Promise<WalletHistoryPage | null> {
    const status = await this.status();
    return status && { ...status, page: null };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The status and every script's figures in one REPEATABLE READ snapshot. */
  private async viewsOf(keys: Buffer[], mempool: boolean): Promise<ScriptViews | null> {
    return withTransaction(
      this.pool,
      async (client) => {
        const status = this.toStatus(await this.statusRow(client));
        if (status === null) return null;
        const { rows } = await client.query<FiguresRow & Partial<MempoolRow>>(
          `SELECT s.balance::text AS balance, s.utxo_count::text AS utxo_count${mempool ? MEMPOOL_COLUMNS : ''} ` +
            `FROM unnest($1::bytea[]) WITH ORDINALITY AS q(k, ord) LEFT JOIN ${this.schema}.scripts AS s ON s.script_key = q.k ` +
            `${mempool ? `LEFT JOIN ${this.schema}.mempool_scripts AS m ON m.script_key = q.k ` : ''}ORDER BY q.ord`,
          [keys],
        );
        const items = rows.map((row): ScriptView => {
          const view: ScriptView = figures(row);
          if (mempool) view.unconfirmed = unconfirmed(row);
          return view;
        });
        return { ...status, items };
      },
      'snapshot',
    );
  }

  private async statusRow(client: Queryable): Promise<StatusRow> {
    const { rows } = await client.query<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM ${this.schema}.state AS st`);
    return rows[0] ?? { tip_height: null, tip_hash: null, node_height: null, node_seen_at: null, tip_time: null };
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

  private async bounds(): Promise<FeedBounds | null> {
    const { rows } = await this.pool.query<{ first: string | null; last: string | null }>(
      `SELECT MIN(seq)::text AS first, MAX(seq)::text AS last FROM ${this.schema}.changes`,
    );
    const row = rows[0];
    return !row || row.first === null || row.last === null ? null : { first: Number(row.first), last: Number(row.last) };
  }

  private async since(after: number, limit: number): Promise<FeedEntry[]> {
    const { rows } = await this.pool.query<{ seq: string; kind: number; tip_height: number | null; scripts: Buffer | null }>(
      `SELECT seq::text AS seq, kind, tip_height, scripts FROM ${this.schema}.changes AS c WHERE c.seq > $1 ORDER BY c.seq LIMIT $2`,
      [after, limit],
    );
    return rows.map((r) => ({
      seq: Number(r.seq),
      kind: KINDS[r.kind as keyof typeof KINDS] ?? 'block',
      tipHeight: r.tip_height,
      scripts: r.scripts === null ? null : splitKeys(r.scripts),
    }));
  }
}

const MEMPOOL_COLUMNS =
  ', m.received::text AS m_received, m.sent::text AS m_sent, m.utxo_count::text AS m_utxo_count, m.tx_count::text AS m_tx_count';

/** The mempool deltas (zeros when none touches the script); without history, no gross figures (as SQLite's). */
function unconfirmed(row: Partial<MempoolRow>): MempoolDelta {
  const amount = (v: string | null | undefined): bigint => (v == null ? 0n : BigInt(v));
  return {
    balanceSats: amount(row.m_received) - amount(row.m_sent),
    utxoCount: Number(row.m_utxo_count ?? 0),
    txCount: Number(row.m_tx_count ?? 0),
  };
}

function figures(row: FiguresRow): { balanceSats: bigint; utxoCount: number } {
  return { balanceSats: row.balance === null ? 0n : BigInt(row.balance), utxoCount: row.utxo_count === null ? 0 : Number(row.utxo_count) };
}

function splitKeys(blob: Buffer): Buffer[] {
  const keys: Buffer[] = [];
  for (let at = 0; at + SCRIPT_KEY_BYTES <= blob.length; at += SCRIPT_KEY_BYTES) keys.push(blob.subarray(at, at + SCRIPT_KEY_BYTES));
  return keys;
}
