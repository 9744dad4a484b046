/** Bitcoin's transaction merkle tree (Bitcoin Core consensus/merkle.cpp). */
import { sha256d } from './hash.js';

const pair = Buffer.allocUnsafe(64);

export interface MerkleResult {
  root: Buffer;
  /**
   * ComputeMerkleRoot's `mutated`: two identical adjacent hashes at some level. The duplicate-last
   * rule then lets a different transaction list reproduce the same root (CVE-2012-2459), so Core
   * refuses such blocks ("bad-txns-duplicate").
   */
  mutated: boolean;
}

/**
 * ComputeMerkleRoot: pair hashes level by level, duplicating the last one of an odd level; an empty
 * list gives 32 zero bytes, a single leaf is its own root. Leaves and root are in internal byte order.
 */
export function computeMerkle(leaves: readonly Buffer[]): MerkleResult {
  if (leaves.length === 0) return { root: Buffer.alloc(32), mutated: false };
  let level: Buffer[] = leaves.slice();
  let mutated = false;
  while (level.length > 1) {
    const next: Buffer[] = new Array<Buffer>((level.length + 1) >> 1);
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1];
      if (right !== undefined && left.equals(right)) mutated = true;
      left.copy(pair, 0);
      (right ?? left).copy(pair, 32);
      next[i >> 1] = sha256d(pair);
    }
    level = next;
  }
  return { root: Buffer.from(level[0]!), mutated };
}

export function merkleRoot(txids: Buffer[]): Buffer {
  return computeMerkle(txids).root;
}

/**
 * The merkle branch of leaf `index` (Electrum's blockchain.transaction.get_merkle): the sibling at each
 * level from the leaves up, with the duplicate-last rule of computeMerkle. Internal byte order.
 */
export function merkleBranch(leaves: readonly Buffer[], index: number): Buffer[] {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) throw new RangeError(`leaf ${index} of ${leaves.length}`);
  const branch: Buffer[] = [];
  let level: Buffer[] = leaves.slice();
  let at = index;
  while (level.length > 1) {
    branch.push(level[at ^ 1] ?? level[at]!);
    const next: Buffer[] = new Array<Buffer>((level.length + 1) >> 1);
    for (let i = 0; i < level.length; i += 2) next[i >> 1] = sha256d(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!]));
    level = next;
    at >>= 1;
  }
  return branch;
}

/** The root a branch of leaf `index` folds to: what a wallet checks against the header's merkle root. */
export function foldBranch(leaf: Buffer, index: number, branch: readonly Buffer[]): Buffer {
  let hash = leaf;
  let at = index;
  for (const sibling of branch) {
    hash = sha256d(at & 1 ? Buffer.concat([sibling, hash]) : Buffer.concat([hash, sibling]));
    at >>= 1;
  }
  return hash;
}
