/**
 * What the sync loop needs from a node. The process wires it to NodeClient with retries already
 * applied, so a call either succeeds, fails fatally, or rejects because shutdown began.
 */
import { CodedError } from '../src/coded-error.js';
import type { ChainTxPosition } from './progress.js';

export interface BlockSource {
  /** The node's validated height (`blocks`) and the height of the best header it knows (`headers`). */
  getTipHeights(): Promise<{ blocks: number; headers: number }>;
  getBlockHash(height: number): Promise<string>;
  /** Whether a block (display hex) is in the node's active chain; false when unknown or stale. */
  isInActiveChain(hash: string): Promise<boolean>;
  /** Raw block bytes as the node serializes them (MWEB data included). */
  getBlock(hash: string): Promise<Buffer>;
  /**
   * Where block `hash` stands in the chain's transactions, for progress lines only: one try, no retries,
   * null when the node cannot tell (so a progress line never holds up or stops the sync).
   */
  chainTxPosition(hash: string): Promise<ChainTxPosition | null>;
}

/**
 * The node's chain moved under a running fetch (e.g. a height is now past its tip after a reorg to a
 * shorter branch). Not an error: the loop commits what links and reconciles again.
 */
export class ChainChanged extends CodedError<'CHAIN_CHANGED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CHAIN_CHANGED', message, options);
  }
}
