/**
 * The ports: everything the API, the live hub, the indexer and the CLIs may ask of a chain's index and of
 * the key store. An engine (src/store/sqlite/ today) implements them; nothing outside the engine's folder
 * knows how it stores anything.
 *
 * Every call returns a Promise, because an engine on another machine cannot answer synchronously. Every
 * read answers from one snapshot: the status it returns and every row with it belong to one commit of the
 * writer. Every write commits whole or not at all, so a kill at any point leaves the previous commit.
 * Failures are StoreErrors (errors.ts) with the same codes whatever the engine: test/contract/ holds
 * every engine to them.
 */
import type { ChainCode, NetworkName } from '../chain/params.js';
import type { ParsedTx } from '../chain/block-parser.js';
import type { Tier } from './keys/tier.js';
import type {
  AddResult,
  AggregateReport,
  BaseBlock,
  BlockToApply,
  BootstrapProgress,
  BulkLoadOptions,
  ChainStatus,
  FeedBounds,
  FeedEntry,
  NodeSeen,
  ScriptSummary,
  ScriptViews,
  Tip,
  Totals,
  UtxoListEvent,
  UtxoListing,
  HistoryBuildProgress,
  HistoryPage,
  HistoryPageRequest,
  UtxoPageRequest,
  ViewOptions,
  WalletHistoryPage,
  WalletHistoryRequest,
  WarmResult,
} from './index-model.js';
import type { ScriptTxsRead } from './script-txs.js';
import type { HeaderRange } from './header-chain.js';
import type { TxBlock } from './tx-block.js';
import type { OutspendsRead } from './spend-key.js';

/** Reading one chain's index: the API, the live hub and verification. */
export interface IndexReader {
  readonly chain: ChainCode;
  readonly network: NetworkName;
  /** One script's balance and UTXO count with the status they are true at; null while nothing is indexed. */
  summary(script: Uint8Array): Promise<ScriptSummary | null>;
  /** Several scripts (duplicates allowed) at one tip, optionally with their mempool deltas. */
  views(scripts: readonly Uint8Array[], mempool: boolean): Promise<ScriptViews | null>;
  /**
   * views() by script key (the first 16 bytes of SHA-256(script), script-key.ts); with `distinct`, also
   * the distinct transactions across them (a wallet's txCount), and with `groups` those of each group of
   * them (several wallets), in the same snapshot.
   */
  keyViews(keys: readonly Uint8Array[], mempool: boolean, opts?: ViewOptions): Promise<ScriptViews | null>;
  status(): Promise<ChainStatus | null>;
  /** Mempool transactions the index holds. */
  mempoolTxs(): Promise<number>;
  /** Where an unfinished snapshot load stands while nothing is indexed; null: no load. */
  bootstrap(): Promise<BootstrapProgress | null>;
  /** One page of the opt-in UTXO listing; the request's check runs inside the page's snapshot. */
  utxoPage(req: UtxoPageRequest): Promise<UtxoListing | null>;
  /** One page of a script's history, newest first, in one snapshot; `page` null while no history is kept. */
  historyPage(req: HistoryPageRequest): Promise<HistoryPage | null>;
  /**
   * One page of several scripts' histories merged, each transaction once, newest first (with `mempool`
   * the unconfirmed ones first), in one snapshot; historyPage is the case of one script.
   */
  walletHistoryPage(req: WalletHistoryRequest): Promise<WalletHistoryPage | null>;
  /**
   * One script's whole history (confirmed, then mempool) when it holds at most `max` transactions, lean,
   * in one snapshot with the feed position it is true at; Electrum's histories and statuses read it.
   * `after` (an earlier read's `newest`): only the confirmed transactions since are listed.
   */
  scriptTxs(key: Buffer, max: number, after?: number): Promise<ScriptTxsRead | null>;
  /**
   * At most `count` stored block headers from height `from` up, never past the tip, in one snapshot with
   * that tip and how far down the stored headers reach; null while nothing is indexed.
   */
  headers(from: number, count: number): Promise<HeaderRange | null>;
  /**
   * The block holding a confirmed transaction (txid in internal byte order), for any transaction of the
   * blocks history covers; null for any other, or while history is off (tx-block.ts).
   */
  txBlock(txid: Buffer): Promise<TxBlock | null>;
  /**
   * What spent each of the first `outputs` outputs of a transaction (txid in internal byte order), from
   * history's spend index (spend-key.ts), the UTXO set and the mempool, in one snapshot; null while nothing
   * is indexed.
   */
  outspends(txid: Buffer, outputs: number): Promise<OutspendsRead | null>;
  /** The change feed the live pushes tail. */
  readonly feed: FeedReader;
  close(): Promise<void>;
}

export interface FeedReader {
  bounds(): Promise<FeedBounds | null>;
  /** Rows with seq > `after`, oldest first, at most `limit`. */
  since(after: number, limit: number): Promise<readonly FeedEntry[]>;
  /**
   * Calls `onWrite` soon after the indexer writes (a commit, or part of one), where the engine can tell
   * (SQLite's WAL file); returns what stops it. Best effort: a reader of the feed still polls it.
   */
  watch?(onWrite: () => void): () => void;
}

/** Writing one chain's index: the indexer only, one writer per index. */
export interface IndexWriter {
  readonly chain: ChainCode;
  readonly network: NetworkName;
  tip(): Promise<Tip | null>;
  hashAt(height: number): Promise<Buffer | null>;
  /** UTXO count, amount and script count at the tip. */
  totals(): Promise<Totals>;
  /** The snapshot base height of a bootstrapped index; null for one synced from genesis. */
  base(): Promise<number | null>;
  /**
   * Connects consecutive blocks extending the tip, in one commit; `node` is recorded with them. Refuses
   * with NOT_CONNECTED, MISSING_UTXO or INCONSISTENT, writing nothing.
   */
  applyBlocks(blocks: readonly BlockToApply[], node?: NodeSeen): Promise<void>;
  /**
   * Disconnects the tip block from its undo record, in one commit, and empties the mempool view; returns
   * the new tip. Refuses with EMPTY, NO_UNDO (older than the undo window) or BELOW_BASE (a snapshot's base).
   */
  rollbackTip(): Promise<Tip | null>;
  setNodeHeight(height: number, at: Date): Promise<void>;
  /**
   * The lowest height from which every block header up to the tip is stored (0: all of them; tip + 1:
   * none); null while nothing is indexed. Blocks store theirs as they are applied (BlockToApply.header).
   */
  headersFrom(): Promise<number | null>;
  /**
   * Stores the headers of the heights from `from` up, which must end just below the stored ones, in one
   * commit (the backfill's); returns the new headersFrom. Refuses with NOT_CONNECTED (not just below) or
   * BAD_HEADER (a broken link, or the last not the parent of the header above), writing nothing.
   */
  addHeaders(from: number, headers: readonly Buffer[]): Promise<number>;
  /** Fills an empty index from a UTXO snapshot (resumable after a kill); returns the totals at its base. */
  loadSnapshot(rows: () => Iterable<unknown[]>, base: BaseBlock, opts?: BulkLoadOptions): Promise<Totals>;
  /** Throws BOOTSTRAP_PENDING when an interrupted snapshot load must be finished before block sync. */
  refusePendingBootstrap(): Promise<void>;
  /** Builds or drops the UTXO listing as the setting says; a no-op when it already is. */
  setUtxoList(on: boolean, onEvent?: (e: UtxoListEvent) => void): Promise<void>;
  /**
   * Keeps address history from now on, or stops and forgets it; a no-op when it already is. On an index
   * that holds blocks (or a snapshot) without history, history is built first (buildHistory).
   */
  setHistory(on: boolean): Promise<void>;
  /** Where building history stands; null when no build is under way. */
  historyBuild(): Promise<HistoryBuildProgress | null>;
  /**
   * Builds the history of the next blocks (the index's own, from genesis) in one commit; the commit that
   * reaches the tip turns history on. Returns where the build stands (null: done). Refuses with
   * NOT_CONNECTED, writing nothing, when they are not the next blocks on the index's chain.
   */
  buildHistory(blocks: readonly BlockToApply[]): Promise<HistoryBuildProgress | null>;
  /** After a bulk load: makes the new index fast to read (SQLite: folds the WAL, warms the page cache). */
  settle(): Promise<{ folded: boolean; warm: WarmResult | null }>;
  readonly mempool: MempoolWriter;
  close(): Promise<void>;
}

/** The index's view of the node's mempool (indexer/mempool-follow.ts keeps it equal to the node's). */
export interface MempoolWriter {
  /** Transactions held. */
  size(): Promise<number>;
  /** Times a rollback emptied the view in this process: the follower re-reads the node then. */
  clears(): number;
  has(txid: Buffer): Promise<boolean>;
  /** Every txid held (internal byte order). */
  txids(): Promise<Buffer[]>;
  /** Adds transactions in one commit, parents before children whatever the order given. */
  add(txs: readonly ParsedTx[]): Promise<AddResult>;
  /** Removes transactions (and their descendants) in one commit; returns how many left. */
  remove(txids: readonly Buffer[]): Promise<number>;
  clear(): Promise<void>;
}

/** Offline checks of an index (`addrsum-verify`). */
export interface IndexVerifier {
  /** Recomputes every script's aggregate from its UTXOs and compares it with the stored one. */
  aggregates(opts?: { maxDifferences?: number }): Promise<AggregateReport>;
  /** The block chain, undo window, totals and listing invariants; one line per problem. */
  chain(): Promise<string[]>;
  close(): Promise<void>;
}

export interface KeyRecord {
  readonly id: string;
  readonly tier: Tier;
  readonly label: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export interface StoredKey extends KeyRecord {
  readonly digest: Buffer;
}

export type RevokeResult = { outcome: 'revoked'; at: string } | { outcome: 'already'; at: string } | { outcome: 'unknown' };

/** The API keys (`addrsum-keys`). The API checks keys from memory (src/store/keys/key-verifier.ts), loaded from here. */
export interface KeyStore {
  create(tier: Tier, label: string, now?: Date): Promise<{ key: string; record: KeyRecord }>;
  list(): Promise<KeyRecord[]>;
  revoke(id: string, now?: Date): Promise<RevokeResult>;
  findByDigest(digest: Buffer): Promise<StoredKey | null>;
  close(): Promise<void>;
}
