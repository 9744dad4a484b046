/**
 * Address ⇄ scriptPubKey for every chain in the registry, matching Bitcoin Core's / Litecoin Core's DecodeDestination
 * and EncodeDestination (key_io.cpp). The codecs are bitcoinjs-lib's (base58check, bech32/bech32m);
 * this file only decides which decoded payloads are addresses of which network, and why not. Chain
 * quirks come from the chain's module (its params and `unsupportedScript`), never from its code.
 *
 * addressToScript never throws: every string gets either a script or a typed AddressError.
 */
import { address as bjsAddress, initEccLib, payments, script as bscript } from 'bitcoinjs-lib';
import { bech32 } from 'bech32';
import * as ecc from 'tiny-secp256k1';
import { chainParams, CHAIN_CODES, networkNames, type ChainParams } from './params.js';
import { chainModule } from './registry.js';

// bitcoinjs needs an ECC backend for anything taproot (p2tr). Our own witness encoding below does not
// use it, but registering it once here means every importer of the address codec gets a working p2tr.
initEccLib(ecc);

export type AddressErrorCode = 'INVALID_ADDRESS' | 'WRONG_NETWORK' | 'WRONG_CHAIN' | 'UNSUPPORTED_ADDRESS';

export class AddressError extends Error {
  override readonly name = 'AddressError';
  constructor(
    readonly code: AddressErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type AddressResult = { ok: true; script: Buffer } | { ok: false; error: AddressError };

/** Longer input is rejected before any decoding (the longest real address, MWEB, is ~120 chars). */
export const MAX_ADDRESS_LENGTH = 200;

/** BIP141 / Bitcoin Core BECH32_WITNESS_PROG_MAX_LEN and the minimum program size. */
const WITNESS_PROGRAM_MIN = 2;
const WITNESS_PROGRAM_MAX = 40;
/** OP_1..OP_16 are 0x51..0x60; OP_0 is 0x00. */
const OP_1 = 0x51;
/** Litecoin's StealthAddress::Serialized(): scan pubkey (33) + spend pubkey (33). */
const MWEB_PAYLOAD_BYTES = 66;

/** What a string means on one network: a script, or an MWEB stealth address (which has none). */
type Decoded = { kind: 'script'; script: Uint8Array } | { kind: 'mweb' };

/** The string run through each codec once; which network it belongs to is decided by decodeFor. */
interface Parsed {
  base58: { version: number; hash: Uint8Array } | null;
  segwit: { version: number; prefix: string; data: Uint8Array } | null;
  /** HRP of a well-formed MWEB stealth address (bech32, 66-byte payload), else null. */
  mwebHrp: string | null;
}

function tryDecode<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

/**
 * The shape of a bech32 string: letters (the HRPs of both chains), the separator `1`, then only bech32
 * data characters, in either case. Base58 never has `0`, and `1` only as leading zero bytes, so a real
 * address of one kind never has the other's shape; the shape only picks which codec to try first.
 */
const BECH32_SHAPE = /^[a-z]{1,83}1[02-9ac-hj-np-z]{6,}$/i;

function parseBase58(address: string): Parsed | null {
  const base58 = tryDecode(() => bjsAddress.fromBase58Check(address));
  return base58 ? { base58, segwit: null, mwebHrp: null } : null;
}

function parseBech32(address: string): Parsed | null {
  const segwit = tryDecode(() => bjsAddress.fromBech32(address));
  const mwebHrp = segwit === null && address.length > 90 ? parseMweb(address) : null;
  return segwit !== null || mwebHrp !== null ? { base58: null, segwit, mwebHrp } : null;
}

/**
 * Each codec reports failure by throwing, and building the exception is most of a failed attempt's
 * cost, so the codec the string's shape points to goes first; the other is tried only when it fails.
 */
function parse(address: string): Parsed {
  const bech32First = BECH32_SHAPE.test(address);
  const first = bech32First ? parseBech32(address) : parseBase58(address);
  if (first) return first;
  return (bech32First ? parseBase58(address) : parseBech32(address)) ?? { base58: null, segwit: null, mwebHrp: null };
}

/**
 * Litecoin Core's DecodeDestination MWEB branch: bech32 (not bech32m) with the extended length
 * allowed, first 5-bit group skipped (address version), the rest converting without padding to
 * exactly 66 bytes. The pubkeys are not checked for curve membership (neither does Core).
 */
function parseMweb(address: string): string | null {
  const dec = bech32.decodeUnsafe(address, MAX_ADDRESS_LENGTH);
  if (!dec || dec.words.length < 1) return null;
  const bytes = bech32.fromWordsUnsafe(dec.words.slice(1));
  return bytes !== undefined && bytes.length === MWEB_PAYLOAD_BYTES ? dec.prefix : null;
}

/** OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG, written directly (bitcoinjs payments validate lazily and cost more). */
function p2pkhScript(hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(25);
  out.set([0x76, 0xa9, 0x14]);
  out.set(hash, 3);
  out.set([0x88, 0xac], 23);
  return out;
}

/** OP_HASH160 <20> OP_EQUAL. */
function p2shScript(hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(23);
  out.set([0xa9, 0x14]);
  out.set(hash, 2);
  out[22] = 0x87;
  return out;
}

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  return bscript.compile([version === 0 ? 0 : OP_1 + version - 1, program]);
}

/**
 * Bitcoin Core's DecodeDestination for one network's params; null when the string is no address of it.
 * Base58: version must be this network's P2PKH or one of its P2SH versions, payload exactly 21 bytes
 * (bitcoinjs's fromBase58Check). Bech32: v0 needs bech32 and 20/32 bytes; v1..16 need bech32m and 2..40
 * bytes (v1/32 = taproot; the rest are WitnessUnknown, script `OP_n <program>`); bitcoinjs's fromBech32
 * enforces the checksum variant per version, the 90-char limit, the case rule and zero padding.
 * Taproot keys are not checked for being on the curve: Core does not either.
 */
function decodeFor(params: ChainParams, parsed: Parsed): Decoded | null {
  const { base58, segwit } = parsed;
  if (base58) {
    // fromBase58Check has checked the payload is a version byte and a 20-byte hash.
    if (base58.version === params.pubKeyHashVersion) {
      return { kind: 'script', script: p2pkhScript(base58.hash) };
    }
    if (params.scriptHashVersions.includes(base58.version)) {
      return { kind: 'script', script: p2shScript(base58.hash) };
    }
    return null;
  }
  if (params.mwebHrp !== null && parsed.mwebHrp === params.mwebHrp) return { kind: 'mweb' };
  if (!segwit || segwit.prefix !== params.bech32Hrp) return null;
  const { version, data } = segwit;
  if (!Number.isInteger(version) || version < 0 || version > 16) return null;
  if (version === 0 && data.length !== 20 && data.length !== 32) return null;
  if (data.length < WITNESS_PROGRAM_MIN || data.length > WITNESS_PROGRAM_MAX) return null;
  return { kind: 'script', script: witnessScript(version, data) };
}

/** Printable ASCII without spaces: anything else can never be an address. */
const ADDRESS_CHARS = /^[\x21-\x7e]+$/;

function invalid(params: ChainParams, why: string): AddressResult {
  return { ok: false, error: new AddressError('INVALID_ADDRESS', `not a ${params.label} address: ${why}`) };
}

function fail(code: AddressErrorCode, message: string): AddressResult {
  return { ok: false, error: new AddressError(code, message) };
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Whether two networks decode exactly the same address strings (Bitcoin testnet3, testnet4, signet). */
function sameAddresses(a: ChainParams, b: ChainParams): boolean {
  return (
    a.pubKeyHashVersion === b.pubKeyHashVersion &&
    a.bech32Hrp === b.bech32Hrp &&
    a.mwebHrp === b.mwebHrp &&
    a.scriptHashVersions.join() === b.scriptHashVersions.join()
  );
}

/**
 * Networks (other than `except` and those sharing its addresses) of one chain on which the parsed
 * string is an address; of networks sharing one address format, only the first is named.
 */
function networksDecoding(chain: ChainParams['chain'], parsed: Parsed, except?: ChainParams): ChainParams[] {
  const found: ChainParams[] = [];
  for (const n of networkNames(chain)) {
    const p = chainParams(chain, n);
    if (p === except || decodeFor(p, parsed) === null) continue;
    if ((except && sameAddresses(p, except)) || found.some((f) => sameAddresses(f, p))) continue;
    found.push(p);
  }
  return found;
}

function names(list: ChainParams[]): string {
  return list.map((p) => p.label).join(' or ');
}

/**
 * Decodes `address` for `params`. Order: valid here → script (or UNSUPPORTED_ADDRESS for MWEB stealth
 * addresses and Litecoin witness v8/v9 MWEB programs); else valid on the same chain's other network →
 * WRONG_NETWORK; else valid on the other chain (any network) → WRONG_CHAIN; else INVALID_ADDRESS.
 */
export function addressToScript(params: ChainParams, address: string): AddressResult {
  if (typeof address !== 'string' || address.length === 0) return invalid(params, 'the address is empty');
  if (address.length > MAX_ADDRESS_LENGTH) {
    return invalid(params, `longer than ${MAX_ADDRESS_LENGTH} characters`);
  }
  if (!ADDRESS_CHARS.test(address)) {
    return invalid(params, 'it contains spaces or characters that never occur in addresses');
  }
  try {
    return classify(params, address);
  } catch {
    // Defence in depth: a codec throwing where we did not expect must still be an answer, not a crash.
    return invalid(params, 'it could not be decoded');
  }
}

function classify(params: ChainParams, address: string): AddressResult {
  const parsed = parse(address);
  const own = decodeFor(params, parsed);
  if (own?.kind === 'mweb') {
    return fail(
      'UNSUPPORTED_ADDRESS',
      `this is a ${params.label} MWEB stealth address; its balance is confidential and cannot be looked up`,
    );
  }
  if (own) {
    // A real output that holds no user's balance (Litecoin's MWEB programs, docs/ltc-mweb.md).
    const unsupported = chainModule(params.chain).unsupportedScript?.(own.script) ?? null;
    if (unsupported !== null) return fail('UNSUPPORTED_ADDRESS', unsupported);
    return { ok: true, script: toBuffer(own.script) };
  }
  const sameChain = networksDecoding(params.chain, parsed, params);
  if (sameChain.length > 0) {
    return fail('WRONG_NETWORK', `this is a ${names(sameChain)} address; this service runs ${params.label}`);
  }
  for (const chain of CHAIN_CODES) {
    if (chain === params.chain) continue;
    const other = networksDecoding(chain, parsed);
    if (other.length > 0) {
      return fail('WRONG_CHAIN', `this is a ${names(other)} address; this service runs ${params.label}`);
    }
  }
  return invalid(params, 'the format, checksum, length or version is wrong');
}

/**
 * EncodeDestination(ExtractDestination(script)) of Bitcoin Core: P2PKH, P2SH (Litecoin: `M…`/`Q…`), witness
 * v0 (20/32 bytes, bech32) and v1..16 (2..40 bytes, bech32m). null for P2PK, bare multisig, OP_RETURN,
 * nonstandard scripts and Litecoin's witness v8/v9 MWEB programs.
 */
export function scriptToAddress(params: ChainParams, script: Uint8Array): string | null {
  const network = params.bitcoinjs;
  if (script.length === 25) {
    const p2pkh = tryDecode(() => payments.p2pkh({ output: script, network }).address);
    if (p2pkh) return p2pkh;
  }
  if (script.length === 23) {
    const p2sh = tryDecode(() => payments.p2sh({ output: script, network }).address);
    if (p2sh) return p2sh;
  }
  const program = witnessProgram(script);
  if (!program) return null;
  if ((chainModule(params.chain).unsupportedScript?.(script) ?? null) !== null) return null;
  return tryDecode(() => bjsAddress.toBech32(program.data, program.version, params.bech32Hrp));
}

/** Bitcoin Core's CScript::IsWitnessProgram plus the size rules an address can carry. */
function witnessProgram(script: Uint8Array): { version: number; data: Uint8Array } | null {
  const op = script[0];
  const len = script[1];
  if (op === undefined || len === undefined || script.length !== len + 2) return null;
  if (len < WITNESS_PROGRAM_MIN || len > WITNESS_PROGRAM_MAX) return null;
  let version: number;
  if (op === 0) version = 0;
  else if (op >= OP_1 && op <= OP_1 + 15) version = op - OP_1 + 1;
  else return null;
  if (version === 0 && len !== 20 && len !== 32) return null;
  return { version, data: script.subarray(2) };
}
