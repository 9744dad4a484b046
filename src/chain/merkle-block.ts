/**
 * A merkle block proving one transaction, as Bitcoin Core's `gettxoutproof` writes it (CMerkleBlock): the
 * 80-byte header, the block's transaction count, then the partial merkle tree (BIP 37) that matches that
 * one transaction, its hashes and its flag bits packed least significant first. Esplora's
 * /tx/:txid/merkleblock-proof answers it in hex. Pure.
 */
import { compactSize } from './compact-size.js';
import { sha256d } from './hash.js';

/** `header`: the block's 80 bytes; `txids` in internal byte order; `index`: the proven transaction's position. */
export function merkleBlockProof(header: Buffer, txids: readonly Buffer[], index: number): Buffer {
  const n = txids.length;
  if (header.length !== 80 || index < 0 || index >= n) throw new RangeError('merkleBlockProof: no such transaction in the block');
  const width = (height: number): number => (n + (1 << height) - 1) >> height;
  const hashAt = (height: number, pos: number): Buffer => {
    if (height === 0) return txids[pos]!;
    const left = hashAt(height - 1, pos * 2);
    const right = pos * 2 + 1 < width(height - 1) ? hashAt(height - 1, pos * 2 + 1) : left;
    return sha256d(Buffer.concat([left, right]));
  };
  const hashes: Buffer[] = [];
  const bits: boolean[] = [];
  // Core's TraverseAndBuild: a node above the match is descended into; any other is given by its hash.
  const walk = (height: number, pos: number): void => {
    const matched = pos === index >> height;
    bits.push(matched);
    if (height === 0 || !matched) {
      hashes.push(hashAt(height, pos));
      return;
    }
    walk(height - 1, pos * 2);
    if (pos * 2 + 1 < width(height - 1)) walk(height - 1, pos * 2 + 1);
  };
  let top = 0;
  while (width(top) > 1) top++;
  walk(top, 0);
  const flags = Buffer.alloc((bits.length + 7) >> 3);
  bits.forEach((bit, i) => {
    if (bit) flags[i >> 3]! |= 1 << (i & 7);
  });
  const count = Buffer.alloc(4);
  count.writeUInt32LE(n);
  return Buffer.concat([header, count, compactSize(hashes.length), ...hashes, compactSize(flags.length), flags]);
}
