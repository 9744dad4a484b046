/**
 * Taproot on a Litecoin Core 0.21.2.1 regtest node whose wallet cannot do it: the legacy (BDB) wallet
 * has no bech32m addresses and no descriptor wallets (built without sqlite). So the tests hold their own
 * keys, derive `rltc1p…` key-path-only addresses with bitcoinjs-lib, and sign spends themselves
 * (BIP341 key path: SIGHASH_DEFAULT Schnorr signature with the tweaked key).
 */
import { createHash } from 'node:crypto';
import { Transaction, crypto as bcrypto, initEccLib, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { chainParams } from '../src/chain/params.js';

initEccLib(ecc);

const NETWORK = chainParams('LTC', 'regtest').bitcoinjs;

export interface TaprootKey {
  address: string;
  /** scriptPubKey hex: OP_1 <32-byte output key>. */
  script: string;
  privateKey: string;
}

/** The i-th taproot key of a seed; deterministic so a chain can be rebuilt from its seed. */
export function taprootKey(seed: number, index: number): TaprootKey {
  for (let salt = 0; ; salt++) {
    const priv = createHash('sha256').update(`addrsum-regtest-taproot/${seed}/${index}/${salt}`).digest();
    if (!ecc.isPrivate(priv)) continue;
    return taprootKeyFromPrivate(priv);
  }
}

export function taprootKeyFromPrivate(priv: Uint8Array): TaprootKey {
  const pub = ecc.pointFromScalar(priv, true);
  if (pub === null) throw new RangeError('invalid private key');
  const p = payments.p2tr({ internalPubkey: pub.subarray(1, 33), network: NETWORK });
  if (p.address === undefined || p.output === undefined) throw new Error('p2tr derivation failed');
  return { address: p.address, script: Buffer.from(p.output).toString('hex'), privateKey: Buffer.from(priv).toString('hex') };
}

/** BIP341 key-path secret: negate d if its point has odd y, then add TapTweak(x(P)) (no script tree). */
function tweakedPrivate(privHex: string): Uint8Array {
  let d: Uint8Array = Buffer.from(privHex, 'hex');
  const p = ecc.pointFromScalar(d, true);
  if (p === null) throw new RangeError('invalid private key');
  if (p[0] === 0x03) {
    const neg = ecc.privateNegate(d);
    d = neg;
  }
  const tweaked = ecc.privateAdd(d, bcrypto.taggedHash('TapTweak', p.subarray(1, 33)));
  if (tweaked === null) throw new Error('tweak out of range');
  return tweaked;
}

export interface TaprootInput {
  txid: string;
  vout: number;
  sats: number;
  /** The taproot scriptPubKey hex being spent. */
  script: string;
  privateKey: string;
}

export interface RawOutput {
  script: string;
  sats: number;
}

/** A fully signed transaction (hex) spending taproot key-path inputs to the given outputs. */
export function signTaprootSpend(inputs: readonly TaprootInput[], outputs: readonly RawOutput[]): string {
  const tx = new Transaction();
  tx.version = 2;
  for (const i of inputs) tx.addInput(Buffer.from(i.txid, 'hex').reverse(), i.vout);
  for (const o of outputs) tx.addOutput(Buffer.from(o.script, 'hex'), BigInt(o.sats));
  const prevScripts = inputs.map((i) => Buffer.from(i.script, 'hex'));
  const values = inputs.map((i) => BigInt(i.sats));
  inputs.forEach((input, n) => {
    const sighash = tx.hashForWitnessV1(n, prevScripts, values, Transaction.SIGHASH_DEFAULT);
    const sig = ecc.signSchnorr(sighash, tweakedPrivate(input.privateKey));
    tx.setWitness(n, [sig]);
  });
  return tx.toHex();
}
