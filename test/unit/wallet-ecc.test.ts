/**
 * The curve backend of src/wallet/ecc.ts: it passes bip32's own self-test with and without the native
 * binding, agrees with tiny-secp256k1 on the edge inputs it hands back to it, and deriveScripts on it names
 * byte for byte the scripts that plain bip32 on tiny-secp256k1 and bitcoinjs `payments({ pubkey })` name,
 * with the binding and without it (the fallback).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BIP32Factory } from 'bip32';
import { payments } from 'bitcoinjs-lib';
import * as tiny from 'tiny-secp256k1';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chainParams } from '../../src/chain/params.js';
import { parseDescriptor } from '../../src/wallet/descriptor.js';
import type * as DeriveModule from '../../src/wallet/derive.js';
import { curveBackend, loadNativeCurve, nativeCurve } from '../../src/wallet/ecc.js';

const BTC = chainParams('BTC', 'mainnet');
const A = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';
const B = 'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y';
const RANGE = 200;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const h = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));

/** A call's answer or the message it threw, so that answers and refusals compare alike. */
function outcome(fn: () => Uint8Array | null): string | null {
  try {
    const out = fn();
    return out && hex(out);
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

const native = loadNativeCurve();
const prebuild = path.join(path.dirname(createRequire(import.meta.url).resolve('secp256k1/package.json')), 'prebuilds');

/**
 * The reference: plain bip32 on tiny-secp256k1, bitcoinjs payments given the public keys, for each branch
 * `<0;1>` and index 0 … RANGE-1. Written out per descriptor, independently of descriptor.ts and derive.ts.
 */
const plain = BIP32Factory(tiny);
const child = (xpub: string, branch: number, i: number) => plain.fromBase58(xpub).derive(branch).derive(i).publicKey;
const CASES: Record<string, (branch: number, i: number) => Uint8Array | undefined> = {
  [`pkh(${A}/<0;1>/*)`]: (b, i) => payments.p2pkh({ pubkey: child(A, b, i) }).output,
  [`wpkh(${B}/<0;1>/*)`]: (b, i) => payments.p2wpkh({ pubkey: child(B, b, i) }).output,
  [`sh(wpkh(${A}/<0;1>/*))`]: (b, i) => payments.p2sh({ redeem: payments.p2wpkh({ pubkey: child(A, b, i) }) }).output,
  [`tr(${B}/<0;1>/*)`]: (b, i) => payments.p2tr({ internalPubkey: child(B, b, i).slice(1, 33) }).output,
  [`wsh(multi(2,${A}/<0;1>/*,${B}/<0;1>/*))`]: (b, i) =>
    payments.p2wsh({ redeem: payments.p2ms({ m: 2, pubkeys: [child(A, b, i), child(B, b, i)] }) }).output,
  [`sh(multi(1,${B}/<0;1>/*,${A}/<0;1>/*))`]: (b, i) =>
    payments.p2sh({ redeem: payments.p2ms({ m: 1, pubkeys: [child(B, b, i), child(A, b, i)] }) }).output,
};

function expected(desc: string): string[] {
  return [0, 1].flatMap((b) => Array.from({ length: RANGE }, (_, i) => hex(CASES[desc]!(b, i)!)));
}

function derived(derive: typeof DeriveModule, desc: string): string[] {
  return derive.deriveScripts(parseDescriptor(BTC, desc), { range: RANGE, maxRange: RANGE }).map((s) => hex(s.script));
}

describe('the curve backend', () => {
  it('loads the native binding where the package ships a prebuild for this platform', () => {
    if (!existsSync(path.join(prebuild, `${process.platform}-${process.arch}`))) return;
    expect(native).not.toBeNull();
    expect(nativeCurve).toBe(true);
  });

  it('passes bip32’s own self-test of the interface, with the binding and without it', () => {
    expect(() => BIP32Factory(curveBackend(native))).not.toThrow();
    expect(() => BIP32Factory(curveBackend(null))).not.toThrow();
  });

  it('is tiny-secp256k1 itself when the binding cannot load', () => {
    expect(
      loadNativeCurve(() => {
        throw new Error('no binding');
      }),
    ).toBeNull();
    expect(curveBackend(null)).toBe(tiny);
  });

  it('answers the edge inputs as tiny-secp256k1 does', () => {
    const backend = curveBackend(native);
    const G = h('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
    const Gu = tiny.pointCompress(G, false);
    const N1 = h('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140'); // n - 1: G + (n-1)G = infinity
    const N = h('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
    const zero = new Uint8Array(32);
    const three = h('0000000000000000000000000000000000000000000000000000000000000003');
    const points = [
      G,
      Gu,
      G.slice(1),
      h('030000000000000000000000000000000000000000000000000000000000000005'),
      h('05' + hex(G.slice(1))),
      new Uint8Array(33),
    ];
    for (const p of points) expect(backend.isPoint(p)).toBe(tiny.isPoint(p));
    for (const [p, t, c] of [
      [G, three, undefined],
      [Gu, three, undefined],
      [Gu, three, true],
      [G, three, false],
      [G, zero, undefined],
      [G, N1, undefined],
      [G.slice(1), three, undefined],
    ] as const) {
      expect(outcome(() => backend.pointAddScalar(p, t, c))).toEqual(outcome(() => tiny.pointAddScalar(p, t, c)));
    }
    expect(outcome(() => backend.pointAddScalar(G, N))).toBe('throws Expected Tweak');
    expect(outcome(() => backend.pointAddScalar(new Uint8Array(33), three))).toBe('throws Expected Point');
    expect(outcome(() => backend.pointAddScalar(G, N1))).toBeNull();
  });
});

describe('deriveScripts on the curve backend', () => {
  afterEach(() => {
    vi.doUnmock('../../src/wallet/ecc.js');
    vi.resetModules();
  });

  it.each(Object.keys(CASES))('names the reference scripts for %s', async (desc) => {
    const derive = await import('../../src/wallet/derive.js');
    expect(derived(derive, desc)).toEqual(expected(desc));
  });

  it('names the same scripts when the binding cannot load (tiny-secp256k1 alone)', async () => {
    vi.resetModules();
    vi.doMock('../../src/wallet/ecc.js', async (importOriginal) => {
      const real = await importOriginal<typeof import('../../src/wallet/ecc.js')>();
      const none = real.loadNativeCurve(() => {
        throw new Error('no binding');
      });
      return { ...real, nativeCurve: none !== null, ecc: real.curveBackend(none) };
    });
    const derive = await import('../../src/wallet/derive.js');
    const { ecc } = await import('../../src/wallet/ecc.js');
    expect(ecc).toBe(tiny);
    for (const desc of Object.keys(CASES)) expect(derived(derive, desc)).toEqual(expected(desc));
  });
});
