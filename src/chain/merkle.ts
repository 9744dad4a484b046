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
