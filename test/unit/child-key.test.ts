/**
 * src/wallet/child-key.ts: its per-child path (node:crypto HMAC, libsecp256k1 tweak-add) names exactly
 * the keys bip32's own derive does, for random parents and indices up to the last non-hardened one, and
 * hands bip32 every child it does not answer itself (no binding, a hardened index, a refused tweak).
 */
import { randomBytes } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import * as tiny from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import { childKeys } from '../../src/wallet/child-key.js';
import { loadNativeCurve, type NativeCurve } from '../../src/wallet/ecc.js';
import { HARDENED } from '../../src/wallet/key-expression.js';

const bip32 = BIP32Factory(tiny);
const native = loadNativeCurve();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('childKeys', () => {
  it('loads the native binding on this machine (else the comparisons below test bip32 against itself)', () => {
    expect(native).not.toBeNull();
  });

  it('equals bip32 derive for 40 random parents × 50 indices, first and last non-hardened included', () => {
    for (let p = 0; p < 40; p++) {
      const parent = bip32.fromSeed(randomBytes(32)).neutered().derive(p);
      const children = childKeys(parent, native);
      const indices = [0, 1, HARDENED - 1, ...Array.from({ length: 47 }, () => randomBytes(4).readUInt32BE(0) % HARDENED)];
      for (const i of indices) expect(hex(children(i)), `parent ${p} index ${i}`).toBe(hex(parent.derive(i).publicKey));
    }
  });

  it('leaves hardened indices to bip32, which refuses them on a public parent', () => {
    const parent = bip32.fromSeed(randomBytes(32)).neutered();
    expect(() => childKeys(parent, native)(HARDENED)).toThrow(/Missing private key for hardened child key/);
  });

  it('asks bip32 when the binding refuses (BIP32 invalid child) and when there is no binding', () => {
    const parent = bip32.fromSeed(randomBytes(32)).neutered();
    const refusing: NativeCurve = {
      publicKeyTweakAdd: () => {
        throw new Error('The tweak was out of range or the resulted public key is invalid');
      },
      publicKeyVerify: () => true,
    };
    for (const curve of [refusing, null]) expect(hex(childKeys(parent, curve)(7))).toBe(hex(parent.derive(7).publicKey));
  });
});
