/**
 * What one poll of a chain's change feed tells its listeners (the live hub tails the feed once per process
 * for every door): the tip it found and the scripts whose rows it read.
 */
import type { ChainCode } from '../chain/params.js';

export interface Tip {
  readonly chain: ChainCode;
  readonly blockHeight: number;
  readonly blockHash: string;
}

export type TipListener = (tip: Tip) => void;

/** The scripts one poll found changed (keys as latin1 strings of their 16 bytes); `all`: any script may have. */
export interface FeedChange {
  readonly all: boolean;
  readonly touched: ReadonlySet<string>;
}

/** Told of every poll's changes, in feed order; awaited before the next poll (the Electrum statuses). */
export type ChangeListener = (change: FeedChange) => Promise<void>;
