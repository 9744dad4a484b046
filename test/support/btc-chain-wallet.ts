/**
 * Keys, output scripts and input signing for the regtest chain builder. Every spend carries real
 * signatures over the real sighash (legacy, BIP143 witness v0, BIP341 key path), so a block from this
 * builder is what a node would accept script-wise; only proof-of-work is trivial (regtest).
 */
import { crypto as bcrypto, initEccLib, networks, payments, script as bscript, Transaction } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { SeededRng } from '../../harness/seeded-rng.js';

initEccLib(ecc);

const NETWORK = networks.regtest;

/** Kinds that have an address string (what the API is asked about). */
export const ADDRESS_KINDS = ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr', 'p2sh-multisig'] as const;
export type AddressKind = (typeof ADDRESS_KINDS)[number];
/** Spendable kinds without an address: Core's ExtractDestination gives no address for these. */
export const BARE_KINDS = ['p2pk', 'bare-multisig'] as const;
export type BareKind = (typeof BARE_KINDS)[number];
export type OwnedKind = AddressKind | BareKind;
export const OWNED_KINDS: readonly OwnedKind[] = [...ADDRESS_KINDS, ...BARE_KINDS];

/**
 * The bitcoinjs `Signer` shape (publicKey + sign + signSchnorr), backed directly by tiny-secp256k1.
 * `sign` returns the 64-byte compact ECDSA signature (low-S, RFC 6979), `signSchnorr` a BIP340 one.
 */
export interface KeySigner {
  readonly publicKey: Uint8Array;
  sign(hash: Uint8Array): Uint8Array;
  signSchnorr(hash: Uint8Array): Uint8Array;
}

export function makeSigner(privateKey: Uint8Array, schnorrAux: Uint8Array = new Uint8Array(32)): KeySigner {
  const publicKey = ecc.pointFromScalar(privateKey, true);
  if (!publicKey) throw new Error('invalid private key');
  return {
    publicKey,
    sign: (hash) => ecc.sign(hash, privateKey),
    // Fixed aux randomness keeps the chain deterministic (BIP340 allows any aux value).
    signSchnorr: (hash) => ecc.signSchnorr(hash, privateKey, schnorrAux),
  };
}

/** One script we hold the keys of. `keys` are in the script's pubkey order; `m` signatures are needed. */
export interface OwnedScript {
  readonly kind: OwnedKind;
  readonly script: Uint8Array;
  readonly scriptHex: string;
  readonly address: string | null;
  readonly keys: readonly KeySigner[];
  readonly m: number;
  /** P2SH redeem script (p2sh-p2wpkh, p2sh-multisig). */
  readonly redeemScript?: Uint8Array;
  /** P2WSH witness script. */
  readonly witnessScript?: Uint8Array;
  /** P2TR: signer for the BIP341-tweaked key (no script tree); its publicKey is the 32-byte output key. */
  readonly tweaked?: KeySigner;
}

function newPrivateKey(rng: SeededRng): Uint8Array {
  for (;;) {
    const d = rng.bytes(32);
    if (ecc.isPrivate(d)) return d;
  }
}

function multisig(m: number, keys: KeySigner[]): Uint8Array {
  const out = payments.p2ms({ m, pubkeys: keys.map((k) => k.publicKey), network: NETWORK }).output;
  if (!out) throw new Error('p2ms failed');
  return out;
}

/** BIP341 key-path-only tweak: t = H_TapTweak(P), d' = (P.y even ? d : n-d) + t. */
function taprootTweak(d: Uint8Array, rng: SeededRng): { internal: Uint8Array; tweaked: KeySigner } {
  const pub = ecc.pointFromScalar(d, true);
  if (!pub) throw new Error('invalid private key');
  const internal = pub.subarray(1, 33);
  const even = pub[0] === 0x02 ? d : ecc.privateNegate(d);
  const tweakedKey = ecc.privateAdd(even, bcrypto.taggedHash('TapTweak', internal));
  if (!tweakedKey) throw new Error('taproot tweak failed');
  const signer = makeSigner(tweakedKey, rng.bytes(32));
  return { internal, tweaked: { ...signer, publicKey: ecc.xOnlyPointFromScalar(tweakedKey) } };
}

/**
 * A fresh owned script of `kind`. P2WSH alternates 1-of-1 and 2-of-2 by `index`; P2SH multisig is
 * 2-of-3; bare multisig is 1-of-2 (the classic pre-P2SH form).
 */
export function makeOwnedScript(kind: OwnedKind, index: number, rng: SeededRng): OwnedScript {
  const keyCount = kind === 'p2sh-multisig' ? 3 : kind === 'bare-multisig' || (kind === 'p2wsh' && index % 2 === 1) ? 2 : 1;
  const privs = Array.from({ length: keyCount }, () => newPrivateKey(rng));
  const keys = privs.map((d) => makeSigner(d));
  const k0 = keys[0] as KeySigner;
  const build = (p: payments.Payment, m: number, extra: Partial<OwnedScript> = {}): OwnedScript => {
    if (!p.output) throw new Error(`${kind}: no output script`);
    return {
      kind,
      script: p.output,
      scriptHex: Buffer.from(p.output).toString('hex'),
      address: p.address ?? null,
      keys,
      m,
      ...extra,
    };
  };
  switch (kind) {
    case 'p2pkh':
      return build(payments.p2pkh({ pubkey: k0.publicKey, network: NETWORK }), 1);
    case 'p2wpkh':
      return build(payments.p2wpkh({ pubkey: k0.publicKey, network: NETWORK }), 1);
    case 'p2sh-p2wpkh': {
      const redeem = payments.p2wpkh({ pubkey: k0.publicKey, network: NETWORK });
      return build(payments.p2sh({ redeem, network: NETWORK }), 1, { redeemScript: redeem.output });
    }
    case 'p2wsh': {
      const witnessScript = multisig(keyCount, keys);
      const p = payments.p2wsh({ redeem: { output: witnessScript }, network: NETWORK });
      return build(p, keyCount, { witnessScript });
    }
    case 'p2sh-multisig': {
      const redeemScript = multisig(2, keys);
      return build(payments.p2sh({ redeem: { output: redeemScript }, network: NETWORK }), 2, { redeemScript });
    }
    case 'p2tr': {
      const { internal, tweaked } = taprootTweak(privs[0] as Uint8Array, rng);
      const p = payments.p2tr({ internalPubkey: internal, network: NETWORK });
      // Self-check: our tweaked private key must match bitcoinjs's idea of the output key.
      if (!p.pubkey || Buffer.compare(p.pubkey, tweaked.publicKey) !== 0) throw new Error('taproot tweak mismatch');
      return build(p, 1, { tweaked });
    }
    case 'p2pk':
      return build(payments.p2pk({ pubkey: k0.publicKey, network: NETWORK }), 1);
    case 'bare-multisig':
      return build({ output: multisig(1, keys) }, 1);
  }
}

/** A spent output as the sighash needs it. */
export interface Prevout {
  readonly script: Uint8Array;
  readonly value: bigint;
}

const ALL = Transaction.SIGHASH_ALL;
const der = (signer: KeySigner, hash: Uint8Array): Uint8Array => bscript.signature.encode(signer.sign(hash), ALL);

/**
 * Signs input `index` of `tx`, which spends `owner`'s output. `prevouts` lists every input's spent output
 * (BIP341 commits to all of them). Sets scriptSig and witness in place.
 */
export function signInput(tx: Transaction, index: number, owner: OwnedScript, prevouts: readonly Prevout[]): void {
  const prev = prevouts[index];
  if (!prev) throw new Error(`no prevout for input ${index}`);
  const signers = owner.keys.slice(0, owner.m);
  switch (owner.kind) {
    case 'p2pkh':
    case 'p2pk': {
      const sig = der(signers[0] as KeySigner, tx.hashForSignature(index, owner.script, ALL));
      const pushes = owner.kind === 'p2pkh' ? [sig, (signers[0] as KeySigner).publicKey] : [sig];
      tx.setInputScript(index, bscript.compile(pushes));
      return;
    }
    case 'bare-multisig':
    case 'p2sh-multisig': {
      const scriptCode = owner.redeemScript ?? owner.script;
      const hash = tx.hashForSignature(index, scriptCode, ALL);
      // OP_0 first: CHECKMULTISIG pops one extra element (the historical off-by-one, NULLDUMMY).
      const pushes = [bscript.OPS.OP_0, ...signers.map((s) => der(s, hash))];
      if (owner.redeemScript) pushes.push(owner.redeemScript);
      tx.setInputScript(index, bscript.compile(pushes));
      return;
    }
    case 'p2wpkh':
    case 'p2sh-p2wpkh': {
      const signer = signers[0] as KeySigner;
      // BIP143: the scriptCode of P2WPKH is the P2PKH script of the same key hash.
      const scriptCode = payments.p2pkh({ pubkey: signer.publicKey }).output as Uint8Array;
      const sig = der(signer, tx.hashForWitnessV0(index, scriptCode, prev.value, ALL));
      tx.setWitness(index, [sig, signer.publicKey]);
      if (owner.redeemScript) tx.setInputScript(index, bscript.compile([owner.redeemScript]));
      return;
    }
    case 'p2wsh': {
      const ws = owner.witnessScript as Uint8Array;
      const hash = tx.hashForWitnessV0(index, ws, prev.value, ALL);
      tx.setWitness(index, [new Uint8Array(0), ...signers.map((s) => der(s, hash)), ws]);
      return;
    }
    case 'p2tr': {
      const hash = tx.hashForWitnessV1(
        index,
        prevouts.map((p) => p.script),
        prevouts.map((p) => p.value),
        Transaction.SIGHASH_DEFAULT,
      );
      // SIGHASH_DEFAULT: a bare 64-byte signature, no hash-type byte (BIP341).
      tx.setWitness(index, [(owner.tweaked as KeySigner).signSchnorr(hash)]);
      return;
    }
  }
}
