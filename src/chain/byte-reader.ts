/**
 * A bounds-checked cursor over a Buffer, and the typed error every parser in src/chain throws.
 *
 * Every read checks the remaining length first, so corrupt input ends in a ParseError, never in an
 * out-of-range read, a RangeError from Buffer, or a huge allocation. Reads return numbers (amounts:
 * bigints) or subarrays of the input (no copies).
 */

export type ParseErrorCode = 'TRUNCATED' | 'MALFORMED' | 'MERKLE_MISMATCH';

export class ParseError extends Error {
  override readonly name = 'ParseError';
  readonly code: ParseErrorCode;
  /** Byte offset in the input where the problem was found. */
  readonly offset: number;

  constructor(code: ParseErrorCode, offset: number, message: string) {
    super(`${message} (at byte ${offset})`);
    this.code = code;
    this.offset = offset;
  }
}

/**
 * Bitcoin Core's MAX_SIZE (serialize.h): ReadCompactSize() rejects any length or count above it
 * ("ReadCompactSize(): size too large"), whatever the remaining input.
 */
export const MAX_COMPACT_SIZE = 0x02000000;

/** Largest output value we accept: 2^53 - 1, far above any chain's MAX_MONEY (< 2^51). */
const MAX_SAFE_HIGH_WORD = 0x1fffff; // (2^53 - 1) >>> 32

export class ByteReader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, pos = 0, end = buf.length) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throws TRUNCATED unless `n` more bytes are available. */
  need(n: number): void {
    if (n > this.end - this.pos) {
      throw new ParseError('TRUNCATED', this.pos, `need ${n} bytes, ${this.end - this.pos} left`);
    }
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  u8(): number {
    if (this.pos >= this.end) throw new ParseError('TRUNCATED', this.pos, 'need 1 byte, 0 left');
    return this.buf[this.pos++]!;
  }

  u32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16)) + b[p + 3]! * 0x1000000;
  }

  /** A view of the next `n` bytes (no copy). */
  bytes(n: number): Buffer {
    this.need(n);
    const p = this.pos;
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }

  /**
   * Bitcoin Core's ReadCompactSize() with its range check: non-canonical encodings and values above
   * MAX_SIZE are MALFORMED. Beyond Core (which allocates in batches instead), a count is also refused
   * when `count * minElemBytes` cannot fit in what is left, so no caller ever loops or allocates for
   * elements that are not there.
   */
  compactSize(minElemBytes: number): number {
    const at = this.pos;
    const first = this.u8();
    let n: number;
    if (first < 253) {
      n = first;
    } else if (first === 253) {
      this.need(2);
      n = this.buf[this.pos]! | (this.buf[this.pos + 1]! << 8);
      this.pos += 2;
      if (n < 253) throw new ParseError('MALFORMED', at, 'non-canonical CompactSize');
    } else if (first === 254) {
      n = this.u32();
      if (n < 0x10000) throw new ParseError('MALFORMED', at, 'non-canonical CompactSize');
    } else {
      const lo = this.u32();
      const hi = this.u32();
      // Canonical 9-byte forms are >= 2^32, far above MAX_SIZE; either way the value is refused.
      if (hi === 0) throw new ParseError('MALFORMED', at, 'non-canonical CompactSize');
      n = hi * 0x100000000 + lo;
    }
    if (n > MAX_COMPACT_SIZE) throw new ParseError('MALFORMED', at, `CompactSize ${n} above MAX_SIZE`);
    if (n * minElemBytes > this.end - this.pos) {
      throw new ParseError('TRUNCATED', at, `count ${n} cannot fit in ${this.end - this.pos} remaining bytes`);
    }
    return n;
  }

  /**
   * An output value (CTxOut::nValue, int64 little-endian) as satoshis. Negative values and values above
   * 2^53-1 are MALFORMED: consensus caps amounts at MAX_MONEY (< 2^51), so no valid transaction carries
   * one. Below that bound the two words combine exactly as a number, and one BigInt() of it is cheaper
   * than Buffer's readBigUInt64LE (two BigInts, a shift and an add).
   */
  value(): bigint {
    const at = this.pos;
    const lo = this.u32();
    const hi = this.u32();
    if (hi > MAX_SAFE_HIGH_WORD) throw new ParseError('MALFORMED', at, 'output value out of range');
    return BigInt(hi * 0x100000000 + lo);
  }

  /**
   * Skips one of Bitcoin Core's VarInts (serialize.h ReadVarInt, MSB base-128 with the +1 offset),
   * applying Core's overflow checks for a signed integer of `bits` bits ("ReadVarInt(): size too
   * large"). Used only inside MWEB bodies; the value itself is not needed.
   */
  skipVarInt(bits: 32 | 64): void {
    const at = this.pos;
    const max = (1n << BigInt(bits - 1)) - 1n;
    let n = 0n;
    for (;;) {
      const ch = this.u8();
      if (n > max >> 7n) throw new ParseError('MALFORMED', at, 'VarInt too large');
      n = (n << 7n) | BigInt(ch & 0x7f);
      if ((ch & 0x80) === 0) return;
      if (n === max) throw new ParseError('MALFORMED', at, 'VarInt too large');
      n++;
    }
  }
}
