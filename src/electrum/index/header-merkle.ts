/**
 * The merkle tree of protocol 1.4's checkpoint proofs (`cp_height`): Bitcoin's tree (sha256d of each
 * pair, an odd level's last hash paired with itself) over the block hashes of heights 0..cp_height. Pure.
 *
 * The tree is cut at SUBTREE_LEVELS: every aligned run of 2^SUBTREE_LEVELS leaves has one node there,
 * and because the runs start at multiples of 2^SUBTREE_LEVELS, an odd level's last hash inside a run is
 * the whole level's last too, so each run climbs alone (even a short last run climbs all the levels,
 * as it does in the whole tree). The nodes at the cut form the upper tree. So a proof needs the leaves
 * of one run and the roots of the others, which stay the same once deep enough to cache.
 */
import { sha256d } from '../../chain/hash.js';

/** 2048 leaves per run: about one retarget period of headers per read. */
export const SUBTREE_LEVELS = 11;
export const SUBTREE_LEAVES = 1 << SUBTREE_LEVELS;

/** The levels of the tree over `n` leaves: ⌈log2 n⌉ (0 for a single leaf, its own root). */
export function depthOf(n: number): number {
  let depth = 0;
  while (1 << depth < n) depth++;
  return depth;
}

/**
 * Climbs exactly `levels` levels from `leaves`, pairing an odd level's last hash with itself, and
 * collects the sibling of `index` at each level: the branch. Hashes in internal byte order.
 */
export function climb(leaves: readonly Buffer[], index: number, levels: number): { root: Buffer; branch: Buffer[] } {
  if (leaves.length === 0 || index >= leaves.length) throw new RangeError(`leaf ${index} of ${leaves.length}`);
  const branch: Buffer[] = [];
  const pair = Buffer.allocUnsafe(64);
  let level: readonly Buffer[] = leaves;
  let at = index;
  for (let k = 0; k < levels; k++) {
    const sibling = at ^ 1;
    branch.push(level[sibling < level.length ? sibling : at]!);
    const next: Buffer[] = new Array<Buffer>((level.length + 1) >> 1);
    for (let i = 0; i < level.length; i += 2) {
      level[i]!.copy(pair, 0);
      (level[i + 1] ?? level[i]!).copy(pair, 32);
      next[i >> 1] = sha256d(pair);
    }
    level = next;
    at >>= 1;
  }
  if (level.length !== 1) throw new RangeError(`${leaves.length} leaves do not climb to one root in ${levels} levels`);
  return { root: level[0]!, branch };
}

/** The block hash a header names (internal byte order). */
export const headerHash = (header: Buffer): Buffer => sha256d(header);
