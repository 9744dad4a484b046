/**
 * A chain's index as every door of the API process reads it: acquired per request, dropped and reopened
 * when the file behind it is damaged or replaced (src/api-process/wiring.ts builds the real ones, tests pass fakes).
 */
import type { ChainParams } from '../chain/params.js';
import type { ChainStatus } from '../store/index-model.js';
import type { IndexReader } from '../store/ports.js';

/** The index's tip and the node height the indexer last saw (null when the node was never reached). */
export type IndexStatus = ChainStatus;
/**
 * What a door reads of a chain's index: the reader port (src/store/ports.ts), so every read is a
 * Promise and answers from one snapshot. null = nothing indexed yet. The optional parts may be absent
 * (test fakes): no mempool count, no snapshot-load progress, no UTXO listing, no live pushes.
 */
export type SummarySource = Pick<IndexReader, 'summary' | 'views' | 'keyViews' | 'status'> &
  Partial<
    Pick<
      IndexReader,
      | 'mempoolTxs'
      | 'bootstrap'
      | 'utxoPage'
      | 'historyPage'
      | 'walletHistoryPage'
      | 'feed'
      | 'headers'
      | 'txBlock'
      | 'outspends'
      | 'scriptTxs'
    >
  >;

export type FeedSource = IndexReader['feed'];

export type SourceState =
  | { readonly ok: true; readonly source: SummarySource }
  /** `damaged`: the file exists but cannot be read as an index (answered INDEX_DAMAGED, not CHAIN_UNAVAILABLE). */
  | { readonly ok: false; readonly reason: string; readonly damaged?: boolean };

/** What a read failure means for the chain; null = not a file problem (a bug: answered 500). */
export interface SourceFailure {
  readonly reason: string;
  readonly damaged: boolean;
}

export interface ChainHandle {
  readonly params: ChainParams;
  /** false when this service does not serve the chain (no node configured): /ready leaves it out. */
  readonly configured: boolean;
  /** The chain's index, or why there is none (not configured; database not created yet). Cheap: called per request. */
  acquire(): SourceState;
  /**
   * A read from the acquired source threw: when the file is damaged or gone, drop it (the next acquire
   * reopens) and say why; otherwise null.
   */
  failed?(err: unknown): SourceFailure | null;
}
