/**
 * What a history build (building history for an index that had none) accepts as its next blocks, the
 * same for every engine: its own blocks from genesis, one after another, up to the index's tip.
 */
import { toDisplayHex } from '../chain/hash.js';
import { StoreError } from './errors.js';
import type { BlockToApply, Tip } from './index-model.js';

/** Where a build stands: its height (−1: none yet) and that block's hash (null before block 0). */
export interface BuildState {
  readonly height: number;
  readonly hash: Buffer | null;
}

/** What the build checks its blocks against: the index's tip, its own block hashes, its snapshot base. */
export interface IndexChain {
  readonly tip: Tip | null;
  readonly hashAt: (height: number) => Buffer | undefined;
  readonly baseHeight: number | null;
}

/**
 * Throws NOT_CONNECTED unless the blocks continue the build on the index's chain: its own block at each
 * height, and below a snapshot's base (where the index has no rows) linked to the build's last block.
 */
export function checkLinks(blocks: readonly BlockToApply[], state: BuildState, tip: Tip, { hashAt, baseHeight }: IndexChain): void {
  let { height, hash: prev } = state;
  for (const block of blocks) {
    const own = hashAt(block.height);
    const fits =
      block.height === height + 1 &&
      block.height <= tip.height &&
      (prev === null ? block.height === 0 : block.prevHash.equals(prev)) &&
      (own ? own.equals(block.hash) : baseHeight !== null && block.height < baseHeight);
    if (!fits)
      throw new StoreError(
        'NOT_CONNECTED',
        `block ${block.height} (${toDisplayHex(block.hash)}) is not the next block of the history build at height ${height} ` +
          `on the index's chain to its tip ${tip.height}`,
      );
    prev = block.hash;
    height = block.height;
  }
}
