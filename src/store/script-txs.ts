/**
 * The whole-history read of one script (IndexReader.scriptTxs), the engines' shared answer types; each
 * engine reads it in its own script-txs.ts.
 */
import type { ChainStatus, HistoryBuildProgress, UnconfirmedItem } from './index-model.js';

/**
 * One script's whole history, lean: what Electrum lists (src/electrum/index/script-history.ts), with no
 * object per confirmed transaction, so a history of 100,000 transactions is a few buffers.
 */
export interface ScriptTxList {
  /** Confirmed transactions, all of them, also those a read `after` a position does not list. */
  readonly confirmedCount: number;
  /**
   * Where the newest confirmed transaction stands in the index (−1: none): a read `after` it later lists
   * only what was confirmed since, while no block was disconnected in between (the change feed says).
   */
  readonly newest: number;
  /**
   * Confirmed transactions in blockchain order (height, then position), all of them or those after the
   * read's position: txids, internal byte order, 32 bytes each.
   */
  readonly txids: Buffer;
  /** Their heights, in the same order. */
  readonly heights: Uint32Array;
  /** Its mempool transactions, newest (highest seq) first. */
  readonly unconfirmed: readonly UnconfirmedItem[];
}

/** A whole-history read (IndexReader.scriptTxs) in one snapshot. */
export interface ScriptTxsRead extends ChainStatus {
  /** While history is being built: how far (`txs` is null then). */
  readonly building?: HistoryBuildProgress;
  /**
   * Null while the index keeps no history, or builds it; `tooLarge` when the script holds more
   * transactions (confirmed and mempool) than the read's `max`, with how many it holds at least.
   */
  readonly txs: ({ readonly tooLarge: false } & ScriptTxList) | { readonly tooLarge: true; readonly count: number } | null;
  /** The change feed's newest seq in this snapshot (0: none yet): the read is true as of that row. */
  readonly feedSeq: number;
}
