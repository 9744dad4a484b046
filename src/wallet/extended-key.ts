/**
 * Extended public keys by their version bytes: which network and script kind a prefix names, and its
 * re-encoding with the node's own version (the form Core's descriptors take). A private key in any form
 * (xprv and kin, or WIF) is recognised by its payload alone, so no version list can let one through.
 */
import bs58check from 'bs58check';
import { isPoint } from 'tiny-secp256k1';
import { CHAINS } from '../chain/registry.js';
import type { ExtendedKeyKind, NetworkParams } from '../chain/chain-module.js';
import { WalletError, malformed } from './errors.js';

/** BIP32 serialization: version 4, depth 1, parent fingerprint 4, child number 4, chain code 32, key 33. */
const EXTENDED_KEY_BYTES = 78;
const KEY_DATA_OFFSET = 45;
const CHAIN_CODE_OFFSET = 13;
/** WIF: version + 32-byte secret, plus a 0x01 suffix for a compressed key. */
const WIF_BYTES = [33, 34];

export interface ExtendedPublicKey {
  readonly kind: ExtendedKeyKind;
  /** The 74 bytes after the version: depth, parent fingerprint, child number, chain code, key. */
  readonly body: Uint8Array;
  readonly chainCode: Uint8Array;
  readonly publicKey: Uint8Array;
}

function privateKeyRefused(what: string): WalletError {
  return new WalletError('PRIVATE_KEY_REFUSED', `${what} is a private key; only public keys are accepted (the key was not kept)`);
}

/** bs58check's payload, or null for anything that is not base58check. */
export function decodeBase58Check(text: string): Uint8Array | null {
  try {
    return bs58check.decode(text);
  } catch {
    return null;
  }
}

/** Refuses a WIF private key; a no-op for any other payload. */
export function refuseWif(payload: Uint8Array | null, what: string): void {
  if (payload !== null && WIF_BYTES.includes(payload.length) && (payload.length === 33 || payload[33] === 1)) {
    throw privateKeyRefused(what);
  }
}

/** Base58 words long enough to be a WIF (51–52 characters) or an extended key (111). */
const BASE58_WORD = /[1-9A-HJ-NP-Za-km-z]{50,112}/g;

/**
 * Refuses any private key anywhere in `text`, whatever else is wrong with it: a private key must be
 * refused as such even inside a descriptor that would not parse.
 */
export function refusePrivateKeys(text: string): void {
  for (const [word] of text.matchAll(BASE58_WORD)) {
    const payload = decodeBase58Check(word);
    refuseWif(payload, 'a key of the descriptor');
    if (payload?.length === EXTENDED_KEY_BYTES && payload[KEY_DATA_OFFSET] === 0) throw privateKeyRefused('a key of the descriptor');
  }
}

/** True when some network of some chain we serve uses this version, so a mismatch is a wrong network. */
function knownElsewhere(version: number): boolean {
  return CHAINS.some((c) => Object.values(c.params).some((p: NetworkParams) => p.extendedKeys.some((k) => k.version === version)));
}

/**
 * Decodes an extended key of `params`' network. `what` names it in messages (e.g. "key 2 of multi()").
 */
export function decodeExtendedKey(params: NetworkParams, text: string, what: string): ExtendedPublicKey {
  const payload = decodeBase58Check(text);
  refuseWif(payload, what);
  if (payload === null || payload.length !== EXTENDED_KEY_BYTES) throw malformed(`${what} is not a valid key`);
  // A private extended key carries 0x00 then the 32-byte secret where a public one has its 02/03 point.
  if (payload[KEY_DATA_OFFSET] === 0) throw privateKeyRefused(what);
  const version = new DataView(payload.buffer, payload.byteOffset).getUint32(0);
  const known = params.extendedKeys.find((k) => k.version === version);
  if (!known) {
    if (knownElsewhere(version))
      throw new WalletError('WRONG_NETWORK', `${what} is an extended key of another network than ${params.label}`);
    throw malformed(`${what} has unknown extended key version bytes`);
  }
  // BIP32's own validity rules (its test vector 5): a root key has no parent and no index; a point.
  const view = new DataView(payload.buffer, payload.byteOffset);
  if (payload[4] === 0 && (view.getUint32(5) !== 0 || view.getUint32(9) !== 0)) {
    throw malformed(`${what} is a root key with a parent or an index`);
  }
  if (!isPoint(payload.slice(KEY_DATA_OFFSET))) throw malformed(`${what} holds no valid public key`);
  const body = payload.slice(4);
  return {
    kind: known.kind,
    body,
    chainCode: payload.slice(CHAIN_CODE_OFFSET, CHAIN_CODE_OFFSET + 32),
    publicKey: payload.slice(KEY_DATA_OFFSET),
  };
}

/** The key with the network's own version (xpub/tpub), as Core prints and `scantxoutset` reads it. */
export function encodeExtendedKey(params: NetworkParams, key: ExtendedPublicKey): string {
  const out = new Uint8Array(EXTENDED_KEY_BYTES);
  new DataView(out.buffer).setUint32(0, params.bitcoinjs.bip32.public);
  out.set(key.body, 4);
  return bs58check.encode(out);
}
