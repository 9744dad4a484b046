/**
 * BIP32 public child derivation (CKDpub) of many children of one parent: the ranged step of a
 * descriptor, 2 × 1,000 children for a bare key at the default range.
 *
 * Why not bip32's own `derive` for this step: per child it computes HMAC-SHA512 in pure JavaScript,
 * builds a node object, and checks the new key is a point (a second parse on the curve), ≈ 54 µs a
 * child against ≈ 35 µs here, where the HMAC is node:crypto's and the point addition is libsecp256k1's
 * `publicKeyTweakAdd` (ecc.ts) — the same two operations BIP32 defines, with no curve code of ours.
 * bip32 still parses, checks and derives every key up to the parent, and answers every child this path
 * does not: without the native binding, and in BIP32's invalid case (I_L ≥ n or a sum at infinity,
 * probability below 2⁻¹²⁷), where the binding throws and bip32 applies the rule it was written to.
 * test/unit/child-key.test.ts holds the two paths equal.
 */
import { createHmac } from 'node:crypto';
import type { BIP32Interface } from 'bip32';
import type { NativeCurve } from './ecc.js';
import { HARDENED } from './key-expression.js';

/** Public key (33 bytes, compressed) of the non-hardened child `index` of `parent`. */
export type ChildKeys = (index: number) => Uint8Array;

export function childKeys(parent: BIP32Interface, native: NativeCurve | null): ChildKeys {
  const bip32Child = (index: number): Uint8Array => parent.derive(index).publicKey;
  if (native === null) return bip32Child;
  const chainCode = Buffer.from(parent.chainCode);
  const data = Buffer.alloc(37);
  data.set(parent.publicKey, 0);
  return (index) => {
    // Hardened steps need the private key: bip32 says so in its own words.
    if (index >= HARDENED) return bip32Child(index);
    data.writeUInt32BE(index, 33);
    const i = createHmac('sha512', chainCode).update(data).digest();
    try {
      return native.publicKeyTweakAdd(data.subarray(0, 33), i.subarray(0, 32), true);
    } catch {
      return bip32Child(index);
    }
  };
}
