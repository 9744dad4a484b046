/**
 * The 80-byte block header (Core's CBlockHeader): version, previous block hash, merkle root, time, bits,
 * nonce, little-endian. A block's hash is sha256d of these 80 bytes, so a header checks itself against
 * the hash the index holds for its height, and its prevHash against the header below it.
 */
import { sha256d } from './hash.js';
import { ParseError } from './byte-reader.js';
import { merkleRoot } from './merkle.js';

export const HEADER_SIZE = 80;

export interface BlockHeader {
  version: number;
  /** Internal byte order; views into the parsed buffer. */
  prevHash: Buffer;
  merkleRoot: Buffer;
  time: number;
  bits: number;
  nonce: number;
  /** sha256d of the 80-byte header, internal byte order. */
  hash: Buffer;
}

/** The header at the start of `buf` (a raw block or a header alone). */
export function readHeader(buf: Buffer): BlockHeader {
  if (buf.length < HEADER_SIZE) {
    throw new ParseError('TRUNCATED', buf.length, `block of ${buf.length} bytes is shorter than its header`);
  }
  return {
    version: buf.readInt32LE(0),
    prevHash: buf.subarray(4, 36),
    merkleRoot: buf.subarray(36, 68),
    time: buf.readUInt32LE(68),
    bits: buf.readUInt32LE(72),
    nonce: buf.readUInt32LE(76),
    hash: sha256d(buf.subarray(0, HEADER_SIZE)),
  };
}

/** The previous block's hash a header names (a view into it). */
export const headerPrevHash = (header: Buffer): Buffer => header.subarray(4, 36);

export function encodeHeader(h: Omit<BlockHeader, 'hash'>): Buffer {
  const out = Buffer.alloc(HEADER_SIZE);
  out.writeInt32LE(h.version, 0);
  h.prevHash.copy(out, 4);
  h.merkleRoot.copy(out, 36);
  out.writeUInt32LE(h.time, 68);
  out.writeUInt32LE(h.bits, 72);
  out.writeUInt32LE(h.nonce, 76);
  return out;
}

/** Regtest's target: any hash passes, which is all a header made without a node can claim. */
const REGTEST_BITS = 0x207fffff;

/**
 * The header and hash of a block made without a node (tests, benchmarks): its transactions' merkle root,
 * regtest's bits and no proof of work. `nonce` tells apart blocks with the same parent and transactions.
 */
export function syntheticHeader(prevHash: Buffer, txids: Buffer[], time: number, nonce: number): { header: Buffer; hash: Buffer } {
  const header = encodeHeader({
    version: 0x20000000,
    prevHash,
    merkleRoot: merkleRoot(txids),
    time,
    bits: REGTEST_BITS,
    nonce: nonce >>> 0,
  });
  return { header, hash: sha256d(header) };
}
