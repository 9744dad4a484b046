/**
 * What an index holds and answers, in engine-free shapes: the vocabulary of the ports (ports.ts) that
 * every engine (src/store/sqlite/ today) speaks and that the API, the indexer and the CLIs use.
 * Satoshi amounts are bigints (src/chain/amount.ts: sums may pass 2^53); counts and heights are numbers.
 */
import type { ParsedTx } from '../chain/block-parser.js';

export interface ChainStatus {
  tipHeight: number;
  /** Display (byte-reversed) hex. */
  tipHash: string;
  /** The node's height as last recorded by the indexer (null when never reached). */
  nodeHeight: number | null;
  nodeSeenAt: Date | null;
  /** The tip block's header time; null for an index written before it was recorded (or just after a rollback). */
  tipTime: Date | null;
  /** Address history kept, or being built up to a height (status() only; absent: off). */
  historyState?: { readonly state: 'on' } | { readonly state: 'building'; readonly builtHeight: number };
  /** status() only: every block header from this height to the tip is stored, not yet those below (header-chain.ts); absent: all are. */
  headersFrom?: number;
  /** status() only, read from a streaming standby: seconds its replay is behind what it received (0: none). */
  standbyReplayLagSeconds?: number;
}

/** What a script's confirmed history adds up to: received − sent = its balance. */
export interface HistoryFigures {
  /** Distinct confirmed transactions paying to or spending from the script. */
  txCount: number;
  received: bigint;
  sent: bigint;
  /** Outputs paid to the script, and those of them spent (funded − spent = its confirmed UTXO count). */
  funded: number;
  spent: number;
}

/** A script's balance and UTXO count with the index status they are true at (the caller's freshness and lag checks). */
export interface ScriptSummary extends ChainStatus {
  balanceSats: bigint;
  utxoCount: number;
  /** Present while the index keeps history. */
  history?: HistoryFigures;
}

/** A script's mempool deltas (mempool-store.ts): Δ balance, Δ UTXO count (either may be < 0), txCount touching it; zeros: none. */
export interface MempoolDelta {
  balanceSats: bigint;
  utxoCount: number;
  txCount: number;
  /** While the index keeps history: what mempool transactions pay to the script and spend of it (Δ balance = received − sent). */
  received?: bigint;
  sent?: bigint;
  /** Asked for with ViewOptions.fundedOutputs: the mempool's outputs paying the script (spent or not). */
  funded?: number;
}

/** One script's aggregate, as the API answers it. */
export interface ScriptView {
  balanceSats: bigint;
  utxoCount: number;
  /** Present when asked for. */
  unconfirmed?: MempoolDelta;
  /** Present while the index keeps history. */
  history?: HistoryFigures;
}

/** Many scripts read in one snapshot: every view is true at the one status (tip) named. */
export interface ScriptViews extends ChainStatus {
  items: ScriptView[];
  /** Asked for with ViewOptions.distinct, while the index keeps history: the distinct confirmed transactions of all the scripts. */
  distinctTxCount?: number;
  /** Asked for with ViewOptions.groups, while the index keeps history: each group's distinct count, in the groups' order. */
  groupTxCounts?: number[];
}

export interface ViewOptions {
  /** Also count the distinct transactions across the scripts (a wallet's txCount): reads every history row of theirs. */
  readonly distinct?: boolean;
  /** Several wallets in one read (the live pushes): each group's distinct count, a group as indices into the keys. */
  readonly groups?: readonly (readonly number[])[];
  /** With the mempool deltas: also count each script's mempool outputs (MempoolDelta.funded; Esplora's mempool_stats). */
  readonly fundedOutputs?: boolean;
}

/** A page of the UTXO listing (utxo-page.ts) with the index status it is true at. */
export interface UtxoListing extends ChainStatus {
  listing: UtxoPageResult;
}

/** Where a page starts: after this row. Confirmed rows come first, then (with mempool) unconfirmed ones. */
export type UtxoPosition =
  | { readonly phase: 'confirmed'; readonly height: number; readonly outpoint: Buffer }
  | { readonly phase: 'mempool'; readonly outpoint: Buffer };

export interface UtxoRow {
  /** Index of the script (in the request's key list) this output pays. */
  readonly script: number;
  readonly outpoint: Buffer;
  readonly valueSats: bigint;
  /** null: unconfirmed (mempool phase). */
  readonly height: number | null;
  /** null: unconfirmed, or unknown (no coinbase txid recorded: synced before migration 0004, or an early snapshot). */
  readonly coinbase: boolean | null;
  /** Present only when the mempool was asked for. */
  readonly spentInMempool?: boolean;
}

/** What the caller's cursor check sees, inside the page's read transaction. */
export interface ListingContext {
  readonly tipHeight: number;
  readonly tipHash: Buffer;
  readonly secret: Buffer;
}

export type UtxoPageResult =
  | { readonly kind: 'empty' }
  | { readonly kind: 'off'; readonly tipHeight: number; readonly tipHash: Buffer }
  | {
      readonly kind: 'page';
      readonly tipHeight: number;
      readonly tipHash: Buffer;
      /** The index's cursor key (meta utxo_list_secret), to seal the next cursor. */
      readonly secret: Buffer;
      readonly rows: readonly UtxoRow[];
      /** The position after the last row when more rows follow; null on the last page. */
      readonly next: UtxoPosition | null;
    };

export interface UtxoPageRequest {
  readonly keys: readonly Buffer[];
  readonly after: UtxoPosition | null;
  readonly limit: number;
  readonly mempool: boolean;
  /** Runs inside the read transaction before any row is read (the cursor's MAC, binding and tip); throws to refuse. */
  readonly check: (ctx: ListingContext) => void;
}

/** One confirmed transaction of a script's history. */
export interface HistoryItem {
  /** Its number in the whole chain (history-chunk.ts): what a page's position is. */
  readonly txNum: number;
  /** Internal byte order. */
  readonly txid: Buffer;
  readonly height: number;
  /** Position in its block. */
  readonly position: number;
  readonly received: bigint;
  readonly sent: bigint;
}

/** One mempool transaction of a script's history (`mempool`: unconfirmed transactions come first). */
export interface UnconfirmedItem {
  /** The order the index learned of it (mempool-store.ts): what a page's position in the mempool part is. */
  readonly seq: number;
  /** Internal byte order. */
  readonly txid: Buffer;
  readonly received: bigint;
  readonly sent: bigint;
  /** Satoshis it pays in fees (inputs minus all outputs), for Electrum's get_history; null with an MWEB part. */
  readonly fee: bigint | null;
  /** It spends an output of a transaction still in the mempool view: Electrum's height −1 (0 otherwise). */
  readonly spendsUnconfirmed: boolean;
}

/** What one transaction paid to (`received`) and spent from (`sent`) one script of a wallet. */
export interface HistoryPart {
  /** Index of the script in the request's key list. */
  readonly script: number;
  readonly received: bigint;
  readonly sent: bigint;
}

/**
 * Where a history page starts: after this transaction. With `mempool` the unconfirmed part comes first,
 * highest seq first, then the confirmed part, highest number first.
 */
export type HistoryPosition = { readonly phase: 'mempool'; readonly seq: number } | { readonly phase: 'confirmed'; readonly txNum: number };

/** One confirmed transaction of a wallet's merged history: `received` and `sent` are the sums of its parts. */
export interface WalletHistoryItem extends HistoryItem {
  /** The wallet's scripts it touched, in key-list order, each once. */
  readonly parts: readonly HistoryPart[];
}

/** One mempool transaction of a wallet's merged history: `received` and `sent` are the sums of its parts. */
export interface WalletUnconfirmedItem extends UnconfirmedItem {
  /** The wallet's scripts it touched, in key-list order, each once. */
  readonly parts: readonly HistoryPart[];
}

export interface HistoryPageRequest {
  /** The script's key (script-key.ts). */
  readonly key: Buffer;
  /** Only what follows this position (the previous page's `next`); null: from the newest. */
  readonly after: HistoryPosition | null;
  readonly limit: number;
  /** Unconfirmed transactions first (they and the confirmed ones read in the one snapshot). */
  readonly mempool?: boolean;
  /** Runs inside the read transaction before any row is read (the cursor's MAC, binding and tip); throws to refuse. */
  readonly check?: (ctx: ListingContext) => void;
}

/** Where building history for an index that had none stands (history-build.ts). */
export interface HistoryBuildProgress {
  /** The last height whose history is built; −1: none yet. */
  readonly height: number;
  /** The index's tip: the build is done when it reaches it. */
  readonly tipHeight: number;
}

/** A page of a script's history, newest first, with the index status it is true at. */
export interface HistoryPage extends ChainStatus {
  /** While history is being built: how far (`page` is null then). */
  readonly building?: HistoryBuildProgress;
  /** Null while the index keeps no history, or builds it. */
  readonly page: {
    /** With `mempool`: the page's unconfirmed transactions, listed before `items`; empty otherwise. */
    readonly unconfirmed: readonly UnconfirmedItem[];
    readonly items: readonly HistoryItem[];
    readonly next: HistoryPosition | null;
    /** The tip the page was read at (internal byte order) and the index's cursor key, to seal the next cursor. */
    readonly tipHeight: number;
    readonly tipHash: Buffer;
    readonly secret: Buffer;
  } | null;
}

/**
 * A page of several scripts' histories merged (a wallet's), each transaction once: with `mempool` its
 * unconfirmed transactions first, then the confirmed ones, paged as one script's (HistoryPageRequest).
 */
export interface WalletHistoryRequest {
  /** The scripts' keys (script-key.ts); a key given twice counts once, under its first index. */
  readonly keys: readonly Buffer[];
  /** Only what follows this position (the previous page's `next`); null: from the newest. */
  readonly after: HistoryPosition | null;
  readonly limit: number;
  /** Unconfirmed transactions first (they and the confirmed ones read in the one snapshot). */
  readonly mempool?: boolean;
  /** Runs inside the read transaction before any row is read (the cursor's MAC, binding and tip); throws to refuse. */
  readonly check?: (ctx: ListingContext) => void;
}

/** A page of a wallet's history, newest first, with the index status it is true at. */
export interface WalletHistoryPage extends ChainStatus {
  /** While history is being built: how far (`page` is null then). */
  readonly building?: HistoryBuildProgress;
  /** Null while the index keeps no history, or builds it. */
  readonly page: {
    /** With `mempool`: the page's unconfirmed transactions, listed before `items`; empty otherwise. */
    readonly unconfirmed: readonly WalletUnconfirmedItem[];
    readonly items: readonly WalletHistoryItem[];
    readonly next: HistoryPosition | null;
    readonly tipHeight: number;
    readonly tipHash: Buffer;
    readonly secret: Buffer;
  } | null;
}

export type ChangeKind = 'block' | 'disconnect' | 'mempool';

export interface FeedEntry {
  readonly seq: number;
  readonly kind: ChangeKind;
  readonly tipHeight: number | null;
  /** Touched script keys (16 bytes each); null = every script may have changed. */
  readonly scripts: readonly Buffer[] | null;
}

/** The oldest and newest seq held; null while the feed is empty. */
export interface FeedBounds {
  readonly first: number;
  readonly last: number;
}

/** A block ready to index, with its 80-byte header (hashing to `hash`, naming `prevHash`: header-chain.ts); hashes in internal byte order. */
export interface BlockToApply {
  height: number;
  hash: Buffer;
  prevHash: Buffer;
  header: Buffer;
  /** Header time, seconds since the epoch (recorded for the tip: how old the indexed chain is). */
  time?: number;
  txs: ParsedTx[];
}

/** The node's height and when it answered, recorded with a batch (catch-up: the blocks just came from it). */
export interface NodeSeen {
  height: number;
  at: Date;
}

export interface Tip {
  height: number;
  hash: Buffer;
}

export interface BaseBlock {
  height: number;
  hash: Buffer;
  prevHash: Buffer;
}

export const LOAD_PHASES = ['reading coins in txid order', 'reading and sorting coins', 'building aggregates', 'committing'] as const;

export type LoadPhase = (typeof LOAD_PHASES)[number];

export interface BulkLoadOptions {
  /** Called as each phase starts. */
  onPhase?: (phase: LoadPhase) => void;
  /** SQLite sorter helper threads (PRAGMA threads); 0 sorts on the loading thread only. */
  sortThreads?: number;
  /** Coins per committed chunk of the append path (default CHUNK_COINS). */
  chunkCoins?: number;
  /** Coins the snapshot holds (its header's count), for the progress readers see (BOOTSTRAP_PROGRESS_KEY). */
  totalCoins?: number;
  /** Called when committed chunks of an earlier, interrupted load of this snapshot are kept: coins up to `afterTxid` are skipped. */
  onResume?: (afterTxid: Buffer) => void;
  /** Called when committed chunks of an interrupted load of another snapshot (base `hash`) are deleted. */
  onDiscard?: (hash: Buffer) => void;
  /**
   * Called once the last call of `rows` has been read to its end: the [script_key, balance, utxo_count]
   * rows of every script among those rows, ascending by script_key (the decoder sums them as it goes,
   * indexer/script-sums.ts). Absent, or returning null: the aggregates are a GROUP BY over `utxos`.
   */
  sums?: () => Iterable<unknown[]> | null;
  /**
   * Called with `sums`: the [height, txid] of every coinbase coin among those rows, one per height (the
   * decoder collects them, indexer/snapshot-coinbases.ts; txid null where the coins disagree: unknown).
   * Recorded in snapshot_coinbase with the marker SNAPSHOT_COINBASE_KEY; absent, or returning null:
   * neither is written and the listing says `coinbase: null` at the snapshot's heights.
   */
  coinbases?: () => Iterable<[number, Buffer | null]> | null;
}

export interface BootstrapProgress {
  readonly phase: LoadPhase;
  readonly coins: number;
  readonly total: number | null;
}

/** What setUtxoList reports, for the log: a start, one event per shard built, an end; or a removal. */
export type UtxoListEvent =
  | { readonly kind: 'building'; readonly utxos: number; readonly shards: number; readonly of: number }
  | {
      readonly kind: 'shard';
      /** The shard just built (0–15: the high nibble of its script keys). */
      readonly shard: number;
      /** Shards that exist now, of `of`. */
      readonly built: number;
      readonly of: number;
      /** UTXOs in the shards built so far by this call, of `total` to build. */
      readonly utxos: number;
      readonly total: number;
      readonly seconds: number;
      /** The remaining UTXOs at this call's rate so far. */
      readonly etaSeconds: number;
    }
  | { readonly kind: 'built'; readonly utxos: number; readonly seconds: number; readonly indexBytes: number }
  | { readonly kind: 'removed' };

export type WarmResult = { warmed: true; bytes: number; seconds: number } | { warmed: false; bytes: number; availableBytes: number };

export interface AddResult {
  added: number;
  /** Already held, or already confirmed: nothing to do. */
  known: number;
  /** Spending coins neither confirmed nor in the mempool view (yet): try again later. */
  unresolved: ParsedTx[];
}

export interface AggregateValues {
  balance: bigint;
  utxoCount: number;
}

export interface AggregateDifference {
  /** Hex of the 16-byte script key. */
  scriptKey: string;
  /** What `scripts` holds (null: no row). */
  stored: AggregateValues | null;
  /** What the UTXOs add up to (null: no UTXO of that script). */
  computed: AggregateValues | null;
}

export interface AggregateReport {
  /** The first `maxDifferences` differences, in script-key order. */
  differences: AggregateDifference[];
  differenceCount: number;
  /** Rows in `scripts`. */
  scripts: number;
  /** Rows in `utxos` and the sum of their values. */
  utxos: number;
  amount: bigint;
}

export interface Totals {
  utxos: number;
  amount: bigint;
  scripts: number;
}
