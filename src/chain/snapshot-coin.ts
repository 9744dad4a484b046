/**
 * One coin of a `dumptxoutset` file, as Bitcoin Core serializes it (coins.h Coin, compressor.h
 * TxOutCompression): VARINT(code = height·2 + coinbase), VARINT(compressed amount), compressed script.
 * Pure decoding over a ByteReader; a read past the end is ParseError TRUNCATED, so a streaming caller can
 * refill its buffer and retry the same record.
 *
 * Script compression (compressor.cpp): a VARINT size below 6 names a special form of fixed length —
 * 0 P2PKH (20-byte hash), 1 P2SH (20-byte hash), 2/3 P2PK with a compressed key (the size is the key's
 * prefix byte, then 32 bytes of x), 4/5 P2PK with an uncompressed key stored compressed (prefix size−2);
 * otherwise the script follows raw with size−6 bytes, and a size above MAX_SCRIPT_SIZE stands for an
 * unspendable script whose bytes are skipped (Core substitutes a lone OP_RETURN).
 */
import { pointCompress } from 'tiny-secp256k1';
import { ByteReader, ParseError } from './byte-reader.js';
import { MAX_SCRIPT_SIZE } from './script.js';

export interface SnapshotCoin {
  height: number;
  coinbase: boolean;
  /**
   * Satoshis, as a number, unlike the block parser's bigint: a snapshot load decodes every coin of the
   * chain (185M) and packs the values as float64 for the loading thread and the per-script sums
   * (indexer/script-sums.ts), and one coin (≤ 2^53 − 1, checked by readAmount) and one script's
   * snapshot balance (≤ the supply) are exact there. A BigInt per coin would buy nothing but time.
   */
  value: number;
  script: Buffer;
}

/** Core's ReadVarInt as an exact number; a value above 2^53−1 is MALFORMED (no field of a valid coin is that large). */
export function readVarInt(r: ByteReader): number {
  const at = r.pos;
  let n = 0;
  for (;;) {
    const ch = r.u8();
    // n·128 + 127 + 1 must stay exact.
    if (n > (Number.MAX_SAFE_INTEGER - 128) / 128) throw new ParseError('MALFORMED', at, 'VarInt too large');
    n = n * 128 + (ch & 0x7f);
    if (ch & 0x80) n++;
    else return n;
  }
}

/** Core's DecompressAmount (compressor.cpp). */
export function decompressAmount(x: number): number {
  if (x === 0) return 0;
  x--;
  let e = x % 10;
  x = Math.floor(x / 10);
  let n: number;
  if (e < 9) {
    const d = (x % 9) + 1;
    x = Math.floor(x / 9);
    n = x * 10 + d;
  } else {
    n = x + 1;
  }
  while (e > 0) {
    n *= 10;
    e--;
  }
  return n;
}

/**
 * Core's CompressAmount, the inverse (for the snapshot writer of tests and benchmarks). The result can
 * pass 2^53 (it is about 9× the amount when the amount has no trailing zero): then it is a bigint.
 */
export function compressAmount(n: number): number | bigint {
  if (n === 0) return 0;
  let e = 0;
  while (n % 10 === 0 && e < 9) {
    n /= 10;
    e++;
  }
  if (n * 90 > Number.MAX_SAFE_INTEGER) return compressAmountBig(n, e);
  if (e < 9) {
    const d = n % 10;
    n = Math.floor(n / 10);
    return 1 + (n * 9 + d - 1) * 10 + e;
  }
  return 1 + (n - 1) * 10 + 9;
}

/** CompressAmount's last step on bigints, for mantissas whose result passes 2^53. */
function compressAmountBig(n: number, e: number): bigint {
  if (e < 9) {
    const d = BigInt(n % 10);
    return 1n + (BigInt(Math.floor(n / 10)) * 9n + d - 1n) * 10n + BigInt(e);
  }
  return 1n + (BigInt(n) - 1n) * 10n + 9n;
}

const MAX_U64 = (1n << 64n) - 1n;

/** DecompressAmount on a bigint, for compressed values above 2^53. */
function decompressAmountBig(x: bigint): bigint {
  if (x === 0n) return 0n;
  x--;
  let e = x % 10n;
  x /= 10n;
  let n: bigint;
  if (e < 9n) {
    const d = (x % 9n) + 1n;
    x /= 9n;
    n = x * 10n + d;
  } else {
    n = x + 1n;
  }
  for (; e > 0n; e--) n *= 10n;
  return n;
}

/**
 * A coin's amount: VARINT of the compressed amount, then DecompressAmount. Large amounts compress to
 * values past 2^53, so those are read again as a bigint (Core's uint64 VARINT bound applies).
 */
export function readAmount(r: ByteReader): number {
  const at = r.pos;
  const first = r.pos;
  // Fast path: compressed values of up to 7 VARINT bytes (< 2^49) are exact as numbers.
  let n = 0;
  for (let i = 0; i < 7; i++) {
    const ch = r.u8();
    n = n * 128 + (ch & 0x7f);
    if (ch & 0x80) n++;
    else return decompressAmount(n);
  }
  r.pos = first;
  let x = 0n;
  for (;;) {
    const ch = r.u8();
    x = (x << 7n) | BigInt(ch & 0x7f);
    if (x > MAX_U64) throw new ParseError('MALFORMED', at, 'VarInt too large');
    if (ch & 0x80) x++;
    else break;
  }
  const value = decompressAmountBig(x);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ParseError('MALFORMED', at, 'coin amount out of range');
  return Number(value);
}

const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;
const OP_EQUAL = 0x87;
const OP_RETURN = 0x6a;
export const SPECIAL_SCRIPTS = 6;

/** Reads one compressed script (ScriptCompression) and returns the scriptPubKey it stands for. */
export function readCompressedScript(r: ByteReader): Buffer {
  const size = readVarInt(r);
  switch (size) {
    case 0: {
      const s = Buffer.allocUnsafe(25);
      s[0] = OP_DUP;
      s[1] = OP_HASH160;
      s[2] = 20;
      r.bytes(20).copy(s, 3);
      s[23] = OP_EQUALVERIFY;
      s[24] = OP_CHECKSIG;
      return s;
    }
    case 1: {
      const s = Buffer.allocUnsafe(23);
      s[0] = OP_HASH160;
      s[1] = 20;
      r.bytes(20).copy(s, 2);
      s[22] = OP_EQUAL;
      return s;
    }
    case 2:
    case 3: {
      const s = Buffer.allocUnsafe(35);
      s[0] = 33;
      s[1] = size;
      r.bytes(32).copy(s, 2);
      s[34] = OP_CHECKSIG;
      return s;
    }
    case 4:
    case 5: {
      const key = Buffer.allocUnsafe(33);
      key[0] = size - 2;
      r.bytes(32).copy(key, 1);
      let full: Uint8Array | null = null;
      try {
        full = pointCompress(key, false);
      } catch {
        full = null;
      }
      // Core's DecompressScript fails on an x that is not on the curve and leaves the script empty.
      if (full === null || full.length !== 65) return Buffer.alloc(0);
      const s = Buffer.allocUnsafe(67);
      s[0] = 65;
      s.set(full, 1);
      s[66] = OP_CHECKSIG;
      return s;
    }
    default: {
      const n = size - SPECIAL_SCRIPTS;
      if (n > MAX_SCRIPT_SIZE) {
        r.skip(n);
        return Buffer.from([OP_RETURN]);
      }
      return Buffer.from(r.bytes(n));
    }
  }
}

/**
 * Reads one Coin. `pegoutFlag`: Litecoin's Coin code carries a peg-out flag in bit 31 of
 * height·2 + coinbase, which is masked off before the height is taken.
 */
export function readCoin(r: ByteReader, pegoutFlag: boolean): SnapshotCoin {
  let code = readVarInt(r);
  if (code > 0xffffffff) throw new ParseError('MALFORMED', r.pos, 'coin code above 32 bits');
  if (pegoutFlag) code = code & 0x7fffffff;
  const value = readAmount(r);
  const script = readCompressedScript(r);
  return { height: Math.floor(code / 2), coinbase: code % 2 === 1, value, script };
}

/** Core's WriteVarInt (for the snapshot writer of tests and benchmarks). */
export function writeVarInt(value: number | bigint): Buffer {
  let n = BigInt(value);
  const tmp: number[] = [];
  let len = 0;
  for (;;) {
    tmp.push(Number(n & 0x7fn) | (len ? 0x80 : 0x00));
    if (n <= 0x7fn) break;
    n = (n >> 7n) - 1n;
    len++;
  }
  return Buffer.from(tmp.reverse());
}

/** Core's script compression for the writer: the special forms where they apply, else raw. */
export function compressScript(script: Uint8Array): Buffer {
  const s = Buffer.from(script);
  if (s.length === 25 && s[0] === OP_DUP && s[1] === OP_HASH160 && s[2] === 20 && s[23] === OP_EQUALVERIFY && s[24] === OP_CHECKSIG) {
    return Buffer.concat([Buffer.from([0]), s.subarray(3, 23)]);
  }
  if (s.length === 23 && s[0] === OP_HASH160 && s[1] === 20 && s[22] === OP_EQUAL) {
    return Buffer.concat([Buffer.from([1]), s.subarray(2, 22)]);
  }
  if (s.length === 35 && s[0] === 33 && s[34] === OP_CHECKSIG && (s[1] === 2 || s[1] === 3)) {
    return Buffer.concat([Buffer.from([s[1]!]), s.subarray(2, 34)]);
  }
  if (s.length === 67 && s[0] === 65 && s[1] === 4 && s[66] === OP_CHECKSIG) {
    const compressed = safeCompress(s.subarray(1, 66));
    if (compressed) return Buffer.concat([Buffer.from([compressed[0]! + 2]), compressed.subarray(1)]);
  }
  return Buffer.concat([writeVarInt(s.length + SPECIAL_SCRIPTS), s]);
}

function safeCompress(key: Uint8Array): Buffer | null {
  try {
    return Buffer.from(pointCompress(key, true));
  } catch {
    return null;
  }
}

/** One serialized Coin (Core's layout); `pegout` sets Litecoin's bit-31 flag. */
export function writeCoin(coin: SnapshotCoin, pegout = false): Buffer {
  let code = coin.height * 2 + (coin.coinbase ? 1 : 0);
  if (pegout) code = (code | 0x80000000) >>> 0;
  return Buffer.concat([writeVarInt(code), writeVarInt(compressAmount(coin.value)), compressScript(coin.script)]);
}
