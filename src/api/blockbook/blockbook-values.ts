/**
 * Transactions, UTXOs and blocks in the shapes Trezor's Blockbook answers over REST v2 (docs/blockbook.md):
 * its field names in its order, amounts as JSON strings of satoshis, and the fields Go's `omitempty`
 * leaves out left out (an input spending output 0 has no `vout`, a version of 0 no `version`). Where
 * Blockbook reads its own database, the same facts come from the index and the node. Pure.
 */
import { payments } from 'bitcoinjs-lib';
import { scriptToAddress } from '../../chain/address.js';
import type { BlockHeader } from '../../chain/block-header.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainParams } from '../../chain/params.js';
import type { DecodedOutput, DecodedTx } from '../../chain/tx-decode.js';
import type { Outspend } from '../../serving/tx-source.js';

/** Where a transaction stands: in a block, or in the node's mempool since `time`. */
export type BlockbookPlace =
  | {
      readonly confirmed: true;
      readonly height: number;
      readonly blockHash: string;
      readonly blockTime: number;
      readonly tipHeight: number;
    }
  | { readonly confirmed: false; readonly time: number };

const OP_RETURN = 0x6a;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
/** BIP125: an input below this sequence signals replaceability. */
const RBF_BELOW = 0xfffffffe;

/** Blockbook's TryParseOPReturn: one push after OP_RETURN as `(text)` when it is UTF-8, else hex; null otherwise. */
export function opReturnText(script: Uint8Array): string | null {
  if (script.length < 2 || script[0] !== OP_RETURN) return null;
  let length: number;
  let data: Uint8Array;
  if (script[1] === OP_PUSHDATA1 && script.length > 2) {
    length = script[2]!;
    data = script.subarray(3);
    // Blockbook then reads 0x4c as a direct push of 76 bytes when the PUSHDATA1 length does not fit.
    if (length !== data.length) {
      length = script[1];
      data = script.subarray(2);
    }
  } else if (script[1] === OP_PUSHDATA2 && script.length > 3) {
    length = script[2]! + (script[3]! << 8);
    data = script.subarray(4);
  } else {
    length = script[1]!;
    data = script.subarray(2);
  }
  if (length !== data.length) return null;
  let text: string | null = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    // Not UTF-8: shown as hex.
  }
  return `OP_RETURN ${text === null ? Buffer.from(data).toString('hex') : `(${text})`}`;
}

/**
 * An output script's `addresses` and `isAddress` as Blockbook's parser gives them: the address of an
 * address script (searchable); the P2PKH addresses of a P2PK or bare multisig script's keys (not
 * searchable); an OP_RETURN's text; nothing for any other script (Litecoin's MWEB programs included).
 */
export function scriptAddresses(params: ChainParams, script: Uint8Array): { addresses: string[]; isAddress: boolean } {
  // Blockbook's parser knows witness versions 0 and 1 only: a v2..v16 program has no address there.
  const address = witnessVersion(script) > 1 ? null : scriptToAddress(params, script);
  if (address !== null) return { addresses: [address], isAddress: true };
  const network = params.bitcoinjs;
  const keys = ((): readonly Uint8Array[] => {
    try {
      return [payments.p2pk({ output: script, network }).pubkey!];
    } catch {
      // Not P2PK.
    }
    try {
      return payments.p2ms({ output: script, network }).pubkeys ?? [];
    } catch {
      return [];
    }
  })();
  const byKey = keys.map((pubkey) => payments.p2pkh({ pubkey, network }).address!);
  if (byKey.length > 0) return { addresses: byKey, isAddress: false };
  const text = opReturnText(script);
  return { addresses: text === null ? [] : [text], isAddress: false };
}

/** A witness program's version (OP_1..OP_16 then one push of 2 to 40 bytes); −1 for any other script. */
function witnessVersion(script: Uint8Array): number {
  const op = script[0];
  const fits = script.length >= 4 && script.length <= 42 && script[1] === script.length - 2;
  return fits && op !== undefined && op >= 0x51 && op <= 0x60 ? op - 0x50 : -1;
}

const sum = (values: readonly bigint[]): bigint => values.reduce((a, b) => a + b, 0n);

export interface TxFacts {
  readonly tx: DecodedTx;
  readonly raw: Buffer;
  readonly prevouts: readonly (DecodedOutput | null)[];
  /** Per output; null while the index keeps no spends. */
  readonly outspends: readonly (Outspend | null)[] | null;
  readonly place: BlockbookPlace;
}

/**
 * A transaction as Blockbook's Tx. `light` is its txslight form (what Blockbook builds from its database
 * for address and block pages): no version, lock time, raw hex, nor an input's sequence and scriptSig.
 */
export function txValue(params: ChainParams, f: TxFacts, light = false): Record<string, unknown> {
  const { tx, place } = f;
  const value = sum(tx.outputs.map((o) => o.value));
  const valueIn = sum(f.prevouts.map((p) => p?.value ?? 0n));
  const vin = tx.inputs.map((input, n) => {
    const prevout = f.prevouts[n] ?? null;
    const owner = prevout === null ? null : scriptAddresses(params, prevout.script);
    const coinbase = input.prevTxid === null;
    return {
      ...(!coinbase && { txid: toDisplayHex(input.prevTxid!) }),
      ...(!coinbase && input.vout !== 0 && { vout: input.vout }),
      ...(!light && input.sequence !== 0 && { sequence: input.sequence }),
      n,
      ...(owner !== null && owner.addresses.length > 0 && { addresses: owner.addresses }),
      isAddress: owner?.isAddress ?? false,
      ...(prevout !== null && { value: String(prevout.value) }),
      ...(!light && !coinbase && input.scriptSig.length > 0 && { hex: input.scriptSig.toString('hex') }),
      ...(coinbase && { coinbase: input.scriptSig.toString('hex') }),
    };
  });
  const vout = tx.outputs.map((o, n) => {
    const spend = f.outspends?.[n] ?? null;
    const owner = scriptAddresses(params, o.script);
    return {
      value: String(o.value),
      n,
      ...(spend !== null && { spent: true }),
      ...(spend?.txid != null && { spentTxId: toDisplayHex(spend.txid) }),
      ...(spend?.vin != null && spend.vin !== 0 && { spentIndex: spend.vin }),
      ...(spend?.height != null && spend.height !== 0 && { spentHeight: spend.height }),
      hex: Buffer.from(o.script).toString('hex'),
      addresses: owner.addresses,
      isAddress: owner.isAddress,
    };
  });
  return {
    txid: toDisplayHex(tx.txid),
    ...(!light && tx.version !== 0 && { version: tx.version }),
    ...(!light && tx.locktime !== 0 && { lockTime: tx.locktime }),
    vin,
    vout,
    ...(place.confirmed && { blockHash: place.blockHash }),
    blockHeight: place.confirmed ? place.height : -1,
    confirmations: place.confirmed ? place.tipHeight - place.height + 1 : 0,
    blockTime: place.confirmed ? place.blockTime : place.time,
    ...(!light && { size: tx.size }),
    vsize: tx.vsize,
    value: String(value),
    valueIn: String(valueIn),
    fees: String(valueIn > value ? valueIn - value : 0n),
    ...(!light && { hex: f.raw.toString('hex') }),
    ...(!place.confirmed && tx.inputs.some((i) => i.sequence < RBF_BELOW) && { rbf: true }),
  };
}

/** Blockbook's minimum confirmations of a coinbase output: below them its UTXO says `coinbase`. */
const COINBASE_MATURITY = 100;

export interface UtxoFacts {
  readonly txid: Buffer;
  readonly vout: number;
  readonly value: bigint;
  /** null: in the mempool. */
  readonly height: number | null;
  readonly coinbase: boolean | null;
}

export function utxoValue(u: UtxoFacts, tipHeight: number): Record<string, unknown> {
  const confirmations = u.height === null ? 0 : tipHeight - u.height + 1;
  return {
    txid: toDisplayHex(u.txid),
    vout: u.vout,
    value: String(u.value),
    ...(u.height !== null && { height: u.height }),
    confirmations,
    ...(u.coinbase === true && u.height !== null && confirmations < COINBASE_MATURITY && { coinbase: true }),
  };
}

/** Page numbers as Blockbook computes them: a page past the end is the last one. */
export interface Paging {
  readonly page: number;
  readonly totalPages: number;
  readonly itemsOnPage: number;
}

export function paging(count: number, page: number, pageSize: number): Paging {
  const totalPages = Math.max(1, Math.ceil(count / pageSize));
  return { page: Math.min(Math.max(1, page), totalPages), totalPages, itemsOnPage: pageSize };
}

export interface BlockFacts {
  readonly hash: string;
  readonly height: number;
  readonly header: BlockHeader;
  readonly nextHash: string | null;
  readonly tipHeight: number;
  readonly size: number;
  readonly txCount: number;
  /** The node's difficulty as its JSON wrote it. */
  readonly difficulty: string;
}

/** A block as Blockbook's Block, its `txs` the page's transactions. */
export function blockValue(b: BlockFacts, page: Paging, txs: readonly Record<string, unknown>[]): Record<string, unknown> {
  const h = b.header;
  return {
    ...page,
    hash: b.hash,
    ...(b.height > 0 && { previousBlockHash: toDisplayHex(h.prevHash) }),
    ...(b.nextHash !== null && { nextBlockHash: b.nextHash }),
    height: b.height,
    confirmations: b.tipHeight - b.height + 1,
    size: b.size,
    time: h.time,
    version: h.version,
    merkleRoot: toDisplayHex(h.merkleRoot),
    nonce: String(h.nonce),
    bits: h.bits.toString(16).padStart(8, '0'),
    difficulty: b.difficulty,
    txCount: b.txCount,
    ...(txs.length > 0 && { txs }),
  };
}
