/**
 * Transactions, outputs, statuses, outspends and blocks in the shapes Blockstream's electrs answers
 * (docs/esplora.md): its field names and order, amounts in satoshis as JSON numbers, hashes in display
 * hex, fields it leaves out left out (an unconfirmed status is `{"confirmed":false}`, an input without a
 * witness has no `witness`), the ones it writes as null written as null (a coinbase's prevout). Pure.
 */
import { scriptToAddress } from '../../chain/address.js';
import type { BlockHeader } from '../../chain/block-header.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainParams } from '../../chain/params.js';
import { lastPush, scriptAsm } from '../../chain/script-asm.js';
import type { DecodedOutput, DecodedTx } from '../../chain/tx-decode.js';
import { esploraScriptType } from './esplora-script.js';
import { F64 } from './esplora-json.js';
import type { BlockPlace } from '../block-place.js';

export type EsploraStatus =
  | { readonly confirmed: false }
  | { readonly confirmed: true; readonly block_height: number; readonly block_hash: string; readonly block_time: number | null };

export function statusValue(place: BlockPlace | null): EsploraStatus {
  return place === null
    ? { confirmed: false }
    : { confirmed: true, block_height: place.height, block_hash: place.blockHash, block_time: place.blockTime };
}

export function outputValue(params: ChainParams, o: DecodedOutput): Record<string, unknown> {
  const address = scriptToAddress(params, o.script);
  return {
    scriptpubkey: o.script.toString('hex'),
    scriptpubkey_asm: scriptAsm(o.script),
    scriptpubkey_type: esploraScriptType(o.script),
    ...(address !== null && { scriptpubkey_address: address }),
    value: Number(o.value),
  };
}

const ZERO_TXID = '0'.repeat(64);
const isP2wsh = (s: Uint8Array): boolean => esploraScriptType(s) === 'v0_p2wsh';

/**
 * Inputs minus outputs in satoshis; 0 for a coinbase, and 0 while a prevout is unknown (an input below a
 * snapshot's base, where history starts): electrs has no null for it.
 */
export function esploraFee(tx: DecodedTx, prevouts: readonly (DecodedOutput | null)[]): number {
  if (tx.coinbase || prevouts.some((p) => p === null)) return 0;
  const fee = prevouts.reduce((sum, p) => sum + p!.value, 0n) - tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  return Number(fee);
}

export function txValue(
  params: ChainParams,
  tx: DecodedTx,
  prevouts: readonly (DecodedOutput | null)[],
  place: BlockPlace | null,
): Record<string, unknown> {
  return {
    txid: toDisplayHex(tx.txid),
    // electrs writes the i32 version as u32.
    version: tx.version >>> 0,
    locktime: tx.locktime,
    vin: tx.inputs.map((input, i) => {
      const prevout = prevouts[i] ?? null;
      const redeem = prevout !== null && esploraScriptType(prevout.script) === 'p2sh' ? lastPush(input.scriptSig) : null;
      const witnessScript =
        prevout !== null && (isP2wsh(prevout.script) || (redeem !== null && isP2wsh(redeem))) ? input.witness.at(-1) : undefined;
      return {
        txid: input.prevTxid === null ? ZERO_TXID : toDisplayHex(input.prevTxid),
        vout: input.vout,
        prevout: prevout === null ? null : outputValue(params, prevout),
        scriptsig: input.scriptSig.toString('hex'),
        scriptsig_asm: scriptAsm(input.scriptSig),
        ...(input.witness.length > 0 && { witness: input.witness.map((w) => w.toString('hex')) }),
        is_coinbase: input.prevTxid === null,
        sequence: input.sequence,
        ...(redeem !== null && { inner_redeemscript_asm: scriptAsm(redeem) }),
        ...(witnessScript !== undefined && { inner_witnessscript_asm: scriptAsm(witnessScript) }),
      };
    }),
    vout: tx.outputs.map((o) => outputValue(params, o)),
    size: tx.size,
    weight: tx.weight,
    fee: esploraFee(tx, prevouts),
    status: statusValue(place),
  };
}

/** What spent an output: `{"spent":false}`, or the spender's txid, input and status. */
export function outspendValue(
  spender: { txid: Buffer | null; vin: number | null; place: BlockPlace | null } | null,
): Record<string, unknown> {
  if (spender === null) return { spent: false };
  return {
    spent: true,
    ...(spender.txid !== null && { txid: toDisplayHex(spender.txid) }),
    ...(spender.vin !== null && { vin: spender.vin }),
    status: statusValue(spender.place),
  };
}

/** rust-bitcoin's difficulty_float: the largest target (bits 0x1d00ffff) over this one, as floats. */
export function esploraDifficulty(bits: number): number {
  const exponent = bits >>> 24;
  const mantissa = bits & 0x007fffff;
  const target = exponent <= 3 ? Math.floor(mantissa / 256 ** (3 - exponent)) : mantissa * 256 ** (exponent - 3);
  return 2.695953529101131e67 / target;
}

export interface EsploraBlockFacts {
  readonly hash: string;
  readonly height: number;
  readonly header: BlockHeader;
  readonly txCount: number;
  readonly size: number;
  readonly weight: number;
  readonly medianTime: number | null;
}

export function blockValue(b: EsploraBlockFacts): Record<string, unknown> {
  const h = b.header;
  return {
    id: b.hash,
    height: b.height,
    version: h.version >>> 0,
    timestamp: h.time,
    tx_count: b.txCount,
    size: b.size,
    weight: b.weight,
    merkle_root: toDisplayHex(h.merkleRoot),
    previousblockhash: b.height === 0 ? null : toDisplayHex(h.prevHash),
    mediantime: b.medianTime,
    nonce: h.nonce,
    bits: h.bits,
    difficulty: new F64(esploraDifficulty(h.bits)),
  };
}
