/**
 * The read path (the API's only door to a chain database). Opened `{ readonly: true, fileMustExist:
 * true }`: it never creates, migrates or writes (only the indexer does), and WAL lets it read while the
 * indexer commits.
 *
 * Consistency: each answer is ONE SQL statement, and a statement reads one snapshot (SQLite wraps it in
 * an implicit read transaction), so the balance and the tip it is reported at always belong to the
 * same commit. The balance is one primary-key lookup in `scripts` (WITHOUT ROWID: the row lives in the
 * key's b-tree leaf), however many UTXOs the script has.
 *
 * Amounts: a balance is read as a number first, which is exact below 2^53 and comes back as an unsafe
 * integer (rounded, never below 2^53) above it. Only then is the whole read done again with the same
 * statements under safeIntegers(true), where SQLite's 64-bit integer reaches us as an exact bigint (a
 * lifetime sum may pass 2^53) and every integer of the statement is a bigint, converted back with Number()
 * for counts and heights. Reading every balance as a bigint at once cost the single-address answer about
 * a tenth of its speed (BENCHMARKS.md engine-ports): several BigInts per row it almost never needs.
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { BOOTSTRAP_PROGRESS_KEY } from './bulk-load.js';
import { parseBootstrapProgress } from '../bootstrap-state.js';
import { FeedReader } from './change-feed.js';
import { openReaderDb, type Db, type ReaderDbOptions } from './db.js';
import { StoreError } from '../errors.js';
import { checkSchemaVersion } from './migrate.js';
import { scriptKey } from '../script-key.js';
import { UtxoPager } from './utxo-page.js';
import { BUILT_KEY } from './history-build.js';
import { BUILDING, HISTORY_KEY, HISTORY_SECRET_KEY } from './history-store.js';
import { HistoryPager } from './history-page.js';
import { ScriptTxReads } from './script-txs.js';
import { headerRange, withHeadersFrom, type HeaderRange } from '../header-chain.js';
import type { TxBlock } from '../tx-block.js';
import { txidIndexReads } from './txid-index.js';
import { spendsReads } from './spends-read.js';
import type { OutspendsRead } from '../spend-key.js';
import { headerReads } from './header-rows.js';
import { HistoryUnion } from './history-union.js';
import { historyFigures, sats, toView, type Int, type ViewRow } from './view-rows.js';
import { HISTORY_KEY_BYTES } from '../history-chunk.js';
import type Database from 'better-sqlite3';
import type {
  BootstrapProgress,
  ChainStatus,
  HistoryBuildProgress,
  HistoryPage,
  HistoryPageRequest,
  ScriptSummary,
  ScriptViews,
  UtxoListing,
  UtxoPageRequest,
  ViewOptions,
  WalletHistoryPage,
  WalletHistoryRequest,
} from '../index-model.js';
import type { ScriptTxsRead } from '../script-txs.js';

export { StoreError, type StoreErrorCode } from '../errors.js';

interface SummaryRow extends StatusRow {
  balance: Int | null;
  utxo_count: Int | null;
  /** The script's history head (history-chunk.ts); null when it has none or history is off. */
  h_data: Buffer | null;
}

/** The statements that read many balances: as numbers (`fast`), or as exact bigints when a number cannot hold one. */
interface BalanceStatements {
  readonly confirmed: Database.Statement<[Buffer], ViewRow>;
  readonly withMempool: Database.Statement<[Buffer], ViewRow>;
  /** The same with the script's history head, while the index keeps history. */
  readonly confirmedHistory: Database.Statement<[Buffer], ViewRow>;
  readonly withMempoolHistory: Database.Statement<[Buffer], ViewRow>;
}

/** A number read from SQLite that may have been rounded: the read is done again exactly. */
const unsafe = (v: Int | null | undefined): boolean => typeof v === 'number' && !Number.isSafeInteger(v);

interface StatusRow {
  tip_height: Int | null;
  tip_hash: Buffer | null;
  node_height: Int | null;
  node_seen_at: Int | null;
  tip_time: Int | null;
  /** meta history: 1 while the index keeps history, 2 while it is being built. */
  history: Int | null;
}

const META = (key: string): string => `(SELECT value FROM meta WHERE key = '${key}')`;
const STATUS_COLUMNS =
  `${META('tip_height')} AS tip_height, ${META('tip_hash')} AS tip_hash, ${META('node_height')} AS node_height, ` +
  `${META('node_seen_at')} AS node_seen_at, ${META('tip_time')} AS tip_time, ${META(HISTORY_KEY)} AS history`;
/** The history head of the script `q.k` (history-chunk.ts historyKey): an empty table costs one failed seek while history is off. */
const HISTORY_JOIN = `LEFT JOIN history AS h ON h.script_key = substr(q.k, 1, ${HISTORY_KEY_BYTES}) AND h.chunk = 0`;

export class ChainReader {
  /** The one-address read, as numbers; summaryExactStmt reads bigints when a number cannot hold the balance. */
  private readonly summaryStmt: Database.Statement<[Buffer], SummaryRow>;
  private readonly summaryExactStmt: Database.Statement<[Buffer], SummaryRow>;
  private readonly fast: BalanceStatements;
  private readonly exact: BalanceStatements;
  private readonly statusStmt: Database.Statement<[], StatusRow>;
  private readonly mempoolCountStmt: Database.Statement<[], { n: number }>;
  private readonly fundedStmt: Database.Statement<[Buffer], number>;
  private readonly bootstrapStmt: Database.Statement<[string], unknown>;
  private readonly readViews: (
    keys: Buffer[],
    mempool: boolean,
    stmts: BalanceStatements,
    opts: ViewOptions,
  ) => ScriptViews | null | typeof UNSAFE;
  /** What each commit of the indexer touched (change-feed.ts): the API's live pushes tail it. */
  readonly feed: FeedReader;
  private readonly readPage: (req: UtxoPageRequest) => UtxoListing | null;
  private readonly readStatus: () => ChainStatus | null;
  private readonly readHeaders: (from: number, count: number) => HeaderRange | null;
  /** Which block holds a txid (txid-index.ts), in one snapshot. */
  readonly txBlock: (txid: Buffer) => TxBlock | null;
  /** What spent each of the first `outputs` outputs of a transaction (spends-read.ts), in one snapshot with the tip. */
  readonly outspends: (txid: Buffer, outputs: number) => OutspendsRead | null;
  private readonly readScriptTxs: (key: Buffer, max: number, after: number | undefined) => ScriptTxsRead | null;
  private readonly readHistory: (req: HistoryPageRequest | WalletHistoryRequest) => HistoryPage | WalletHistoryPage | null;

  private constructor(
    readonly db: Db,
    readonly path: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
  ) {
    this.feed = new FeedReader(db);
    const pager = new UtxoPager(db);
    // One read transaction: the status (freshness checks), the cursor check and the rows share a snapshot.
    this.readPage = db.transaction((req: UtxoPageRequest): UtxoListing | null => {
      const status = this.toStatus(this.statusStmt.get()!);
      return status && { ...status, listing: pager.read(req) };
    });
    const history = new HistoryPager(db);
    const metaStmt = db.prepare<[string], Buffer>('SELECT value FROM meta WHERE key = ?').pluck();
    /** What a history read answers in place of rows while history is not kept: how far a build is. */
    const building = (row: StatusRow, status: ChainStatus): { building?: HistoryBuildProgress } =>
      Number(row.history) === BUILDING ? { building: { height: Number(metaStmt.get(BUILT_KEY)), tipHeight: status.tipHeight } } : {};
    // One read transaction: the status, the cursor's check and every row of the page share a snapshot.
    this.readHistory = db.transaction((req: HistoryPageRequest | WalletHistoryRequest): HistoryPage | WalletHistoryPage | null => {
      const row = this.statusStmt.get()!;
      const status = this.toStatus(row);
      if (status === null || !historyOn(row)) return status && { ...status, page: null, ...building(row, status) };
      const ctx = { tipHeight: status.tipHeight, tipHash: row.tip_hash!, secret: metaStmt.get(HISTORY_SECRET_KEY)! };
      req.check?.(ctx);
      return { ...status, page: { ...('key' in req ? history.scriptPage(req) : history.page(req)), ...ctx } };
    });
    const scriptTxs = new ScriptTxReads(db, history);
    // One read transaction: the status, the script's rows and the feed position share a snapshot.
    this.readScriptTxs = db.transaction((key: Buffer, max: number, after: number | undefined): ScriptTxsRead | null => {
      const row = this.statusStmt.get()!;
      const status = this.toStatus(row);
      if (status === null) return null;
      const feedSeq = this.feed.bounds()?.last ?? 0;
      return {
        ...status,
        feedSeq,
        ...(historyOn(row) ? { txs: scriptTxs.read(key, max, after) } : { txs: null, ...building(row, status) }),
      };
    });
    const headers = headerReads(db);
    this.txBlock = db.transaction(txidIndexReads(db));
    const spends = spendsReads(db);
    this.outspends = db.transaction((txid: Buffer, outputs: number): OutspendsRead | null => {
      const row = this.statusStmt.get()!;
      if (row.tip_height === null) return null;
      const spendsFrom = historyOn(row) ? spends.spendsFrom() : null;
      return { tipHeight: Number(row.tip_height), spendsFrom, outputs: spendsFrom === null ? [] : spends.outputs(txid, outputs) };
    });
    // One snapshot: the tip and the headers belong to one commit.
    this.readHeaders = db.transaction((from: number, count: number): HeaderRange | null => {
      const row = this.statusStmt.get()!;
      if (row.tip_height === null || row.tip_hash === null) return null;
      return headerRange({ height: Number(row.tip_height), hash: row.tip_hash }, headers.lowest(), from, count, headers.range);
    });
    // One snapshot: the tip, the headers' reach and the build's height belong to one commit.
    this.readStatus = db.transaction((): ChainStatus | null => {
      const row = this.statusStmt.get()!;
      const status = withHeadersFrom(this.toStatus(row), headers.lowest());
      if (status === null || row.history === null) return status;
      if (historyOn(row)) return { ...status, historyState: { state: 'on' } };
      return Number(row.history) === BUILDING
        ? { ...status, historyState: { state: 'building', builtHeight: Number(metaStmt.get(BUILT_KEY)) } }
        : status;
    });
    const union = new HistoryUnion(db);
    // The LEFT JOIN against a one-row subquery keeps the tip when the script has no row.
    const summarySql =
      `SELECT ${STATUS_COLUMNS}, s.balance, s.utxo_count, h.data AS h_data ` +
      `FROM (SELECT ? AS k) AS q LEFT JOIN scripts AS s ON s.script_key = q.k ${HISTORY_JOIN}`;
    this.summaryStmt = db.prepare<[Buffer], SummaryRow>(summarySql);
    this.summaryExactStmt = db.prepare<[Buffer], SummaryRow>(summarySql).safeIntegers(true);
    const mempoolSql = (history: string): string =>
      'SELECT s.balance, s.utxo_count, m.received AS m_received, m.sent AS m_sent, m.utxo_count AS m_utxo_count, m.tx_count AS m_tx_count' +
      `${history && ', h.data AS h_data'} FROM (SELECT ? AS k) AS q LEFT JOIN scripts AS s ON s.script_key = q.k ` +
      `LEFT JOIN mempool_scripts AS m ON m.script_key = q.k ${history}`;
    const balanceStatements = (exact: boolean): BalanceStatements => ({
      // The plain point lookup (no row for an unknown script): BENCHMARKS.md xpub measured it faster than
      // the LEFT JOIN form below, which a confirmed-only read does not need.
      confirmed: db.prepare<[Buffer], ViewRow>('SELECT balance, utxo_count FROM scripts WHERE script_key = ?').safeIntegers(exact),
      withMempool: db.prepare<[Buffer], ViewRow>(mempoolSql('')).safeIntegers(exact),
      confirmedHistory: db
        .prepare<[Buffer], ViewRow>(
          `SELECT s.balance, s.utxo_count, h.data AS h_data FROM (SELECT ? AS k) AS q LEFT JOIN scripts AS s ON s.script_key = q.k ${HISTORY_JOIN}`,
        )
        .safeIntegers(exact),
      withMempoolHistory: db.prepare<[Buffer], ViewRow>(mempoolSql(HISTORY_JOIN)).safeIntegers(exact),
    });
    this.fast = balanceStatements(false);
    this.exact = balanceStatements(true);
    this.statusStmt = db.prepare(`SELECT ${STATUS_COLUMNS}`);
    this.mempoolCountStmt = db.prepare('SELECT count(*) AS n FROM mempool_txs');
    // One range scan of mempool_outputs_by_script (migrations/0012).
    this.fundedStmt = db.prepare<[Buffer], number>('SELECT count(*) FROM mempool_outputs WHERE script_key = ?').pluck();
    this.bootstrapStmt = db.prepare<[string], unknown>('SELECT value FROM meta WHERE key = ?').pluck();
    // A deferred read transaction: every statement in it sees the snapshot of its first read (WAL), so
    // the tip and all the scripts belong to one commit of the indexer.
    this.readViews = db.transaction(
      (keys: Buffer[], mempool: boolean, stmts: BalanceStatements, opts: ViewOptions): ScriptViews | null | typeof UNSAFE => {
        const statusRow = this.statusStmt.get()!;
        const status = this.toStatus(statusRow);
        if (status === null) return null;
        const history = historyOn(statusRow);
        const stmt = history
          ? mempool
            ? stmts.withMempoolHistory
            : stmts.confirmedHistory
          : mempool
            ? stmts.withMempool
            : stmts.confirmed;
        const rows = keys.map((key) => stmt.get(key) ?? NO_ROW);
        if (rows.some((r) => unsafe(r.balance) || unsafe(r.m_received) || unsafe(r.m_sent))) return UNSAFE;
        const views: ScriptViews = { ...status, items: rows.map((row) => toView(row, mempool, history)) };
        if (mempool && opts.fundedOutputs === true) views.items.forEach((v, i) => (v.unconfirmed!.funded = this.fundedStmt.get(keys[i]!)!));
        if (history && opts.distinct === true)
          views.distinctTxCount = union.count(
            keys,
            rows.map((r) => r.h_data),
          );
        if (history && opts.groups)
          views.groupTxCounts = opts.groups.map((g) =>
            union.count(
              g.map((i) => keys[i]!),
              g.map((i) => rows[i]!.h_data),
            ),
          );
        return views;
      },
    );
  }

  /** Throws StoreError NO_DATABASE, UNREADABLE, DAMAGED, NOT_INITIALIZED, SCHEMA_TOO_NEW or SCHEMA_TOO_OLD. */
  static open(path: string, opts: ReaderDbOptions = {}): ChainReader {
    const db = openReaderDb(path, opts);
    try {
      checkSchemaVersion(db, path);
      const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('chain', 'network')").all() as { key: string; value: string }[];
      const meta = new Map(rows.map((r) => [r.key, r.value]));
      const chain = meta.get('chain');
      const network = meta.get('network');
      if (!chain || !network) throw new StoreError('NOT_INITIALIZED', `database ${path} has no chain recorded yet`);
      return new ChainReader(db, path, chain as ChainCode, network as NetworkName);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Balance and UTXO count of a scriptPubKey with the index status they are true at (one statement);
   * zeros for a script never seen, null while nothing is indexed.
   */
  summary(script: Uint8Array): ScriptSummary | null {
    const key = scriptKey(script);
    let row = this.summaryStmt.get(key)!;
    if (unsafe(row.balance)) row = this.summaryExactStmt.get(key)!;
    const status = this.toStatus(row);
    if (status === null) return null;
    const summary: ScriptSummary = { ...status, balanceSats: sats(row.balance), utxoCount: Number(row.utxo_count ?? 0) };
    if (historyOn(row)) summary.history = historyFigures(row.h_data);
    return summary;
  }

  /** One snapshot of many scripts, read again exactly when a balance passed what a number holds. */
  private viewsOf(keys: Buffer[], mempool: boolean, opts: ViewOptions = {}): ScriptViews | null {
    const views = this.readViews(keys, mempool, this.fast, opts);
    return views === UNSAFE ? (this.readViews(keys, mempool, this.exact, opts) as ScriptViews | null) : views;
  }

  /** The tip changes once per block, requests come far more often: keep the last hex spelling. */
  private tipHex(hash: Buffer): string {
    if (this.lastTip === null || !this.lastTip.raw.equals(hash)) this.lastTip = { raw: hash, hex: toDisplayHex(hash) };
    return this.lastTip.hex;
  }

  private lastTip: { raw: Buffer; hex: string } | null = null;

  /**
   * Several scripts (duplicates allowed) in one snapshot, optionally with their mempool deltas; null
   * while nothing is indexed.
   */
  views(scripts: readonly Uint8Array[], mempool: boolean): ScriptViews | null {
    return this.viewsOf(
      scripts.map((s) => scriptKey(s)),
      mempool,
    );
  }

  /**
   * views() by script key (script-key.ts) rather than by script: for callers that know only a hash of
   * the script, as an Electrum scripthash is. Same read, same snapshot rules. With `distinct` or `groups`
   * (while history is kept), the distinct transactions across the scripts or each group of them too, in
   * the same read (history-union.ts).
   */
  keyViews(keys: readonly Uint8Array[], mempool: boolean, opts: ViewOptions = {}): ScriptViews | null {
    return this.viewsOf(
      keys.map((k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength)),
      mempool,
      opts,
    );
  }

  /**
   * Where an unfinished snapshot load stands (bulk-load.ts BOOTSTRAP_PROGRESS_KEY), as of its last
   * committed chunk; null when no load is under way or left interrupted.
   */
  bootstrap(): BootstrapProgress | null {
    return parseBootstrapProgress(this.bootstrapStmt.get(BOOTSTRAP_PROGRESS_KEY));
  }

  /** Transactions of the node's mempool the index holds now (the status page shows it). */
  mempoolTxs(): number {
    return this.mempoolCountStmt.get()!.n;
  }

  /** One page of the opt-in UTXO listing (utxo-page.ts), read in one snapshot with the tip it names. */
  utxoPage(req: UtxoPageRequest): UtxoListing | null {
    return this.readPage(req);
  }

  /** One page of a script's history, newest first (history-page.ts), in one snapshot with the tip it names. */
  historyPage(req: HistoryPageRequest): HistoryPage | null {
    return this.readHistory(req) as HistoryPage | null;
  }

  /** One page of several scripts' histories merged, each transaction once (history-page.ts), in one snapshot. */
  walletHistoryPage(req: WalletHistoryRequest): WalletHistoryPage | null {
    return this.readHistory(req) as WalletHistoryPage | null;
  }

  /** One script's whole history, lean (script-txs.ts), in one snapshot with the feed position it is true at. */
  scriptTxs(key: Buffer, max: number, after?: number): ScriptTxsRead | null {
    return this.readScriptTxs(key, max, after);
  }

  /** Stored block headers from `from` (../header-chain.ts), in one snapshot with the tip they belong to. */
  headers(from: number, count: number): HeaderRange | null {
    return this.readHeaders(from, count);
  }

  /** Indexed tip and the node's height as last seen by the indexer; null while nothing is indexed. */
  status(): ChainStatus | null {
    return this.readStatus();
  }

  private toStatus(row: StatusRow): ChainStatus | null {
    if (row.tip_height === null || row.tip_hash === null) return null;
    return {
      tipHeight: Number(row.tip_height),
      tipHash: this.tipHex(row.tip_hash),
      nodeHeight: row.node_height === null ? null : Number(row.node_height),
      nodeSeenAt: row.node_seen_at === null ? null : new Date(Number(row.node_seen_at)),
      tipTime: row.tip_time === null ? null : new Date(Number(row.tip_time) * 1000),
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

const NO_ROW: ViewRow = { balance: null, utxo_count: null };
/** readViews' answer when a balance came back as a rounded number. */
const UNSAFE = Symbol('unsafe');

const historyOn = (row: StatusRow): boolean => row.history !== null && Number(row.history) === 1;
