/**
 * Transaction parser: Bitcoin legacy and BIP144 (segwit) forms, plus Litecoin's MWEB flag.
 *
 * Follows Litecoin Core's UnserializeTransaction (primitives/transaction.h), a superset of Bitcoin
 * Core's: version, then vin; an empty vin means a marker, so the next byte is the flags byte and, when
 * non-zero, vin and vout follow. flags&1: one witness stack per input after vout. flags&8: an
 * `mweb_tx_present` byte after the witnesses, and when it is 1 an MWEB body (walked by ltc/mweb-skip.ts).
 * Any other flag bit is an error, as in Core. Litecoin's serialization is a superset of Bitcoin's, so one
 * parser serves every chain; the MWEB walker is the Litecoin module's (a Bitcoin block never sets flag 8).
 *
 * txid = sha256d(version ‖ vin ‖ vout ‖ locktime): the legacy serialization, hashed straight from the
 * input's slices (no marker/flag, no witnesses, no MWEB part, and no concatenation copy) — except for
 * a mempool MWEB-only transaction (no transparent inputs or outputs), whose txid is its first
 * kernel's BLAKE3 hash, as Litecoin Core computes it.
 */
import { blake3 } from '@noble/hashes/blake3';
import { sha256d } from './hash.js';
import { ByteReader, ParseError } from './byte-reader.js';
import { skipMwebTxBody } from './ltc/mweb-skip.js';

export interface TxInput {
  /** Previous txid, internal byte order: a view into the parsed buffer. */
  prevTxid: Buffer;
  vout: number;
}

export interface TxOutput {
  /** Satoshis. */
  value: bigint;
  /** scriptPubKey: a view into the parsed buffer. */
  script: Buffer;
}

export interface ParsedTx {
  /** Internal byte order (reverse for display). */
  txid: Buffer;
  inputs: TxInput[];
  outputs: TxOutput[];
  /** CTransaction::IsCoinBase(): exactly one input, spending the null outpoint. */
  coinbase: boolean;
  /**
   * Litecoin's HogEx (Core's m_hogEx): flags&8 with no MWEB body. In a block only the last
   * transaction may be one; a mempool transaction carrying an MWEB body is not.
   */
  hogEx: boolean;
  /**
   * Litecoin: it carries an MWEB body (a peg-in, a peg-out, an MWEB-only transaction): its transparent
   * inputs and outputs are not all it moves, so they do not give its fee.
   */
  mweb: boolean;
}

// Smallest serialized sizes, to refuse counts that cannot fit in what is left.
const MIN_INPUT = 32 + 4 + 1 + 4;
const MIN_OUTPUT = 8 + 1;
const NULL_INDEX = 0xffffffff;

const FLAG_WITNESS = 0x01;
const FLAG_MWEB = 0x08;

/** Reads one transaction at `r.pos`, leaving `r.pos` just after its locktime. */
export function readTransaction(r: ByteReader): ParsedTx {
  const buf = r.buf;
  const start = r.pos;
  r.skip(4); // version
  let bodyStart = r.pos;
  let inCount = r.compactSize(MIN_INPUT);
  let flags = 0;
  // An empty vin followed by 0x00 is a transaction with no inputs and no outputs (Core reads the
  // 0x00 as flags and then skips vout); followed by anything else it is the extended form.
  let readOutputs = true;
  if (inCount === 0) {
    flags = r.u8();
    if (flags !== 0) {
      bodyStart = r.pos;
      inCount = r.compactSize(MIN_INPUT);
    } else {
      readOutputs = false;
    }
  }

  const inputs: TxInput[] = new Array<TxInput>(inCount);
  for (let i = 0; i < inCount; i++) {
    r.need(36);
    const p = r.pos;
    const prevTxid = buf.subarray(p, p + 32);
    r.pos = p + 32;
    const vout = r.u32();
    r.skip(r.compactSize(1)); // scriptSig
    r.skip(4); // sequence
    inputs[i] = { prevTxid, vout };
  }

  let outputs: TxOutput[] = [];
  if (readOutputs) {
    const outCount = r.compactSize(MIN_OUTPUT);
    outputs = new Array<TxOutput>(outCount);
    for (let i = 0; i < outCount; i++) {
      const value = r.value();
      const script = r.bytes(r.compactSize(1));
      outputs[i] = { value, script };
    }
  }
  const bodyEnd = r.pos;

  const flagsAt = bodyStart - 1;
  let rest = flags;
  if (rest & FLAG_WITNESS) {
    rest ^= FLAG_WITNESS;
    if (!skipWitnesses(r, inCount)) {
      // UnserializeTransaction: "Superfluous witness record".
      throw new ParseError('MALFORMED', flagsAt, 'witness flag set but every witness is empty');
    }
  }
  let hogEx = false;
  let kernel: { kernelStart: number; kernelEnd: number } | undefined;
  if (rest & FLAG_MWEB) {
    rest ^= FLAG_MWEB;
    // Core's OptionalPtr reads one byte: exactly 1 means a body follows, any other value means none.
    if (r.u8() === 1) {
      kernel = skipMwebTxBody(r);
    } else {
      // UnserializeTransaction: "Missing HogEx output".
      if (outputs.length === 0) throw new ParseError('MALFORMED', flagsAt, 'HogEx without outputs');
      hogEx = true;
    }
  }
  if (rest !== 0) {
    // UnserializeTransaction: "Unknown transaction optional data".
    throw new ParseError('MALFORMED', flagsAt, `unknown transaction flags 0x${flags.toString(16)}`);
  }
  const lockAt = r.pos;
  r.skip(4);

  let txid: Buffer;
  if (kernel !== undefined && inCount === 0 && outputs.length === 0 && kernel.kernelEnd > kernel.kernelStart) {
    // Litecoin's CTransaction::ComputeHash: an MWEB-only transaction (IsMWEBOnly) takes the hash of
    // its first kernel as txid.
    txid = Buffer.from(blake3(buf.subarray(kernel.kernelStart, kernel.kernelEnd)));
  } else if (flags === 0) {
    txid = sha256d(buf.subarray(start, r.pos));
  } else {
    txid = legacyTxid(buf, start, bodyStart, bodyEnd, lockAt);
  }
  const first = inputs[0];
  const coinbase = inCount === 1 && first !== undefined && first.vout === NULL_INDEX && isZero32(first.prevTxid);
  return { txid, inputs, outputs, coinbase, hogEx, mweb: kernel !== undefined };
}

/**
 * Parses one transaction as relayed or returned by getrawtransaction (an MWEB body, when present, is
 * walked and skipped). The buffer must hold exactly one transaction.
 */
export function parseTransaction(buf: Buffer): ParsedTx {
  const r = new ByteReader(buf);
  const tx = readTransaction(r);
  if (r.pos !== buf.length) {
    throw new ParseError('MALFORMED', r.pos, `${buf.length - r.pos} trailing bytes after the transaction`);
  }
  return tx;
}

/** Skips one witness stack per input; true when at least one stack is non-empty (Core's HasWitness). */
function skipWitnesses(r: ByteReader, inCount: number): boolean {
  let any = false;
  for (let i = 0; i < inCount; i++) {
    const items = r.compactSize(1);
    if (items !== 0) any = true;
    for (let j = 0; j < items; j++) r.skip(r.compactSize(1));
  }
  return any;
}

/** Reused for segwit txids: version ‖ body ‖ locktime must be contiguous for one-shot hashing. */
let scratch = Buffer.allocUnsafe(4096);

/** sha256d(version ‖ buf[bodyStart, bodyEnd) ‖ locktime): the legacy serialization of a segwit/MWEB tx. */
function legacyTxid(buf: Buffer, start: number, bodyStart: number, bodyEnd: number, lockAt: number): Buffer {
  const size = bodyEnd - bodyStart + 8;
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  buf.copy(scratch, 0, start, start + 4);
  buf.copy(scratch, 4, bodyStart, bodyEnd);
  buf.copy(scratch, size - 4, lockAt, lockAt + 4);
  return sha256d(scratch.subarray(0, size));
}

function isZero32(b: Buffer): boolean {
  for (let i = 0; i < 32; i++) if (b[i] !== 0) return false;
  return true;
}
