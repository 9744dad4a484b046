/**
 * Checkpoint proofs (cp_height) against an independent computation: ElectrumX's Merkle.branch_and_root
 * written out here over the block hashes of random headers, Bitcoin's merkle root (src/chain/merkle.ts),
 * and the fold a wallet does to check a branch; at tree sizes around the 2048-leaf runs the proof is cut
 * into, and again once run roots are cached.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merkleRoot } from '../../src/chain/merkle.js';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import { CheckpointProofs } from '../../src/electrum/index/checkpoint.js';

const dsha = (b: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const hex = (b: Buffer): string => Buffer.from(b).reverse().toString('hex');

/** ElectrumX lib/merkle.py branch_and_root, transcribed. */
function branchAndRoot(leaves: Buffer[], index: number): { branch: Buffer[]; root: Buffer } {
  let hashes = [...leaves];
  const length = Math.ceil(Math.log2(hashes.length));
  const branch: Buffer[] = [];
  for (let k = 0; k < length; k++) {
    if (hashes.length & 1) hashes.push(hashes[hashes.length - 1]!);
    branch.push(hashes[index ^ 1]!);
    index >>= 1;
    const next: Buffer[] = [];
    for (let n = 0; n < hashes.length; n += 2) next.push(dsha(Buffer.concat([hashes[n]!, hashes[n + 1]!])));
    hashes = next;
  }
  return { branch, root: hashes[0]! };
}

/** What a wallet does with a proof: fold the branch from the leaf up. */
function fold(leaf: Buffer, index: number, branch: string[]): string {
  let h = leaf;
  for (const b of branch) {
    const sib = Buffer.from(b, 'hex').reverse();
    h = index & 1 ? dsha(Buffer.concat([sib, h])) : dsha(Buffer.concat([h, sib]));
    index >>= 1;
  }
  return hex(h);
}

function chain(n: number): { index: ElectrumIndex; hashes: Buffer[]; reads: () => number } {
  const headers = Array.from({ length: n }, () => randomBytes(80));
  let reads = 0;
  const index = {
    status: async () => ({ tipHeight: n - 1, tipHash: '', nodeHeight: null, nodeSeenAt: null, tipTime: null }),
    headers: async (from: number, count: number) => {
      reads++;
      return { tipHeight: n - 1, tipHash: Buffer.alloc(32), headersFrom: 0, headers: headers.slice(from, Math.min(from + count, n)) };
    },
  } as unknown as ElectrumIndex;
  return { index, hashes: headers.map(dsha), reads: () => reads };
}

describe('checkpoint proofs', () => {
  it.each([2, 3, 5, 2047, 2048, 2049, 4096, 4097, 6500])('equal ElectrumX and Bitcoin over %i leaves', async (leaves) => {
    const { index, hashes } = chain(leaves + 10);
    const proofs = new CheckpointProofs(6);
    const cp = leaves - 1;
    const expectedRoot = merkleRoot(hashes.slice(0, leaves));
    for (const height of new Set([0, 1, Math.floor(cp / 2), cp - 1, cp].filter((h) => h >= 0))) {
      const proof = await proofs.prove(index, height, cp);
      const want = branchAndRoot(hashes.slice(0, leaves), height);
      expect(proof.root).toBe(hex(want.root));
      expect(proof.root).toBe(hex(expectedRoot));
      expect(proof.branch).toEqual(want.branch.map(hex));
      expect(fold(hashes[height]!, height, proof.branch)).toBe(proof.root);
    }
  });

  it('keeps the roots of runs below the undo window: a second proof reads one run', async () => {
    const { index, hashes, reads } = chain(9000);
    const proofs = new CheckpointProofs(100);
    const first = await proofs.prove(index, 5, 8000);
    const before = reads();
    const again = await proofs.prove(index, 7000, 8000);
    // Only the run of height 7000, the last and partial one, which is never kept.
    expect(reads() - before).toBe(1);
    expect(first.root).toBe(again.root);
    expect(again.branch).toEqual(branchAndRoot(hashes.slice(0, 8001), 7000).branch.map(hex));
  });

  it('refuses a height above cp_height and a cp_height above the tip', async () => {
    const { index } = chain(10);
    const proofs = new CheckpointProofs(6);
    await expect(proofs.prove(index, 5, 4)).rejects.toThrow(/above cp_height/);
    await expect(proofs.prove(index, 5, 10)).rejects.toThrow(/above the tip/);
  });
});
