import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../src/chain/byte-reader.js';
import { sha256d } from '../../src/chain/hash.js';
import { foldBranch, merkleBranch, merkleRoot } from '../../src/chain/merkle.js';
import { readTransaction } from '../../src/chain/tx-parser.js';
import { readFixture, readHexFixture } from '../support/fixtures.js';

function txids(block: Buffer): Buffer[] {
  const r = new ByteReader(block, 80);
  const count = r.compactSize(1);
  return Array.from({ length: count }, () => readTransaction(r).txid);
}

describe('merkleBranch', () => {
  it('every leaf of 1 to 9 folds back to the root (odd levels duplicate their last)', () => {
    for (let n = 1; n <= 9; n++) {
      const leaves = Array.from({ length: n }, (_, i) => sha256d(Buffer.from([i])));
      const root = merkleRoot(leaves);
      for (let i = 0; i < n; i++) expect(foldBranch(leaves[i]!, i, merkleBranch(leaves, i)).equals(root)).toBe(true);
    }
  });

  it('real blocks: a branch folds to the header merkle root (Litecoin mainnet; a regtest MWEB block, HogEx included)', () => {
    for (const block of [readFixture('blocks/ltc-mainnet-878439.raw'), readHexFixture('blocks/ltc-regtest/443-pegout.hex')]) {
      const leaves = txids(block);
      const root = block.subarray(36, 68);
      for (const i of new Set([0, 1, leaves.length >> 1, leaves.length - 1]))
        expect(foldBranch(leaves[i]!, i, merkleBranch(leaves, i)).equals(root)).toBe(true);
    }
  });

  it('an index outside the leaves is a RangeError', () => {
    expect(() => merkleBranch([Buffer.alloc(32)], 1)).toThrow(RangeError);
  });
});
