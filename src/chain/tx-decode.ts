/**
 * A whole transaction decoded for the transaction view: every field decoderawtransaction shows, read by
 * bitcoinjs-lib from the transaction's transparent form. The indexer's parser (tx-parser.ts) skips
 * scripts and witnesses for speed; this one keeps them, and is used once per transaction shown.
 *
 * Litecoin's MWEB form (flag 0x08: the HogEx, a peg-in or peg-out relayed with its MWEB body) is read
 * without its MWEB part (ltc/mweb-strip.ts), which leaves the same txid. Litecoin Core weighs a
 * transaction without its MWEB part too (the MWEB body has a weight of its own), so size counts every
 * byte of the raw form while vsize and weight are the transparent form's. An MWEB-only transaction (no
 * transparent input or output) has no transparent form: it decodes with no inputs and no outputs.
 */
import { Transaction } from 'bitcoinjs-lib';
import { sha256d } from './hash.js';
import { parseTransaction } from './tx-parser.js';
import { withoutMweb } from './ltc/mweb-strip.js';

export interface DecodedInput {
  /** The spent outpoint's txid, internal byte order; null for a coinbase's input. */
  readonly prevTxid: Buffer | null;
  readonly vout: number;
  readonly scriptSig: Buffer;
  readonly sequence: number;
  readonly witness: readonly Buffer[];
}

export interface DecodedOutput {
  readonly value: bigint;
  readonly script: Buffer;
}

export interface DecodedTx {
  /** Internal byte order. */
  readonly txid: Buffer;
  /** The witness hash (BIP141), internal byte order; the txid when there is no witness. */
  readonly wtxid: Buffer;
  readonly version: number;
  readonly locktime: number;
  /** Bytes of the raw form, its MWEB part included. */
  readonly size: number;
  readonly vsize: number;
  readonly weight: number;
  readonly inputs: readonly DecodedInput[];
  readonly outputs: readonly DecodedOutput[];
  readonly coinbase: boolean;
  /** Litecoin's HogEx: the last transaction of an MWEB block, moving coins in and out of MWEB. */
  readonly hogEx: boolean;
  /** Litecoin: it carries an MWEB body, so its transparent side is not all it moves. */
  readonly mweb: boolean;
}

const WITNESS_SCALE_FACTOR = 4;

/** Decodes one raw transaction (exactly one; ParseError otherwise). */
export function decodeTransaction(raw: Buffer): DecodedTx {
  const parsed = parseTransaction(raw);
  const flags = { coinbase: parsed.coinbase, hogEx: parsed.hogEx, mweb: parsed.mweb };
  if (parsed.inputs.length === 0 && parsed.outputs.length === 0 && parsed.mweb) {
    return {
      txid: parsed.txid,
      wtxid: parsed.txid,
      version: raw.readInt32LE(0),
      locktime: raw.readUInt32LE(raw.length - 4),
      size: raw.length,
      vsize: 0,
      weight: 0,
      inputs: [],
      outputs: [],
      ...flags,
    };
  }
  const transparent = withoutMweb(raw);
  const tx = Transaction.fromBuffer(transparent);
  const weight = tx.weight();
  return {
    txid: parsed.txid,
    // The hash of the whole witness form, as Core's GetWitnessHash (bitcoinjs-lib gives a coinbase's as
    // zero, the value BIP141's commitment uses in its place).
    wtxid: tx.hasWitnesses() ? sha256d(transparent) : parsed.txid,
    version: tx.version,
    locktime: tx.locktime,
    size: raw.length,
    vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR),
    weight,
    inputs: tx.ins.map((input, i) => ({
      prevTxid: parsed.coinbase && i === 0 ? null : Buffer.from(input.hash),
      vout: input.index,
      scriptSig: Buffer.from(input.script),
      sequence: input.sequence,
      witness: input.witness.map((w) => Buffer.from(w)),
    })),
    outputs: tx.outs.map((o) => ({ value: BigInt(o.value), script: Buffer.from(o.script) })),
    ...flags,
  };
}
