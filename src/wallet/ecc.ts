/**
 * The curve backend bip32 derives with (`BIP32Factory(ecc)`): tiny-secp256k1, with its two per-child calls
 * answered by the native libsecp256k1 binding of the `secp256k1` package when that binding loads.
 *
 * Why: a public child costs one `pointAddScalar` (a point addition, after decompressing the parent) and one
 * `isPoint` (bip32 checks every child it builds). In tiny-secp256k1's WASM these took ≈ 210 µs and ≈ 30 µs
 * a child on the bench machine; the native `publicKeyTweakAdd` and `publicKeyVerify` ≈ 50 µs and ≈ 8 µs
 * (BENCHMARKS.md, figures behind design choices). Both libraries run libsecp256k1's own code, so they
 * agree by construction; everything else (and every input the native call refuses, such as an x-only key,
 * a tweak ≥ n or a sum at infinity) goes to tiny-secp256k1, whose answers and errors are the ones bip32
 * was written against.
 *
 * The package's `index.js` falls back to pure-JS `elliptic` when the binding cannot load, which is slower
 * than WASM; we load `bindings.js` ourselves and fall back to tiny-secp256k1 entirely instead, quietly:
 * `nativeCurve` says which one runs, nothing is said per call.
 */
import { createRequire } from 'node:module';
import type { TinySecp256k1Interface } from 'bip32';
import type * as Secp256k1 from 'secp256k1';
import * as tiny from 'tiny-secp256k1';

/** The two calls of the binding we use (the `secp256k1` package's API). */
export type NativeCurve = Pick<typeof Secp256k1, 'publicKeyTweakAdd' | 'publicKeyVerify'>;

const require = createRequire(import.meta.url);

/** The native binding, or null when it cannot load (no prebuild for this platform and none compiled). */
export function loadNativeCurve(load: () => unknown = () => require('secp256k1/bindings.js')): NativeCurve | null {
  try {
    return load() as NativeCurve;
  } catch {
    return null;
  }
}

/** tiny-secp256k1 with `pointAddScalar` and `isPoint` from `native`; tiny-secp256k1 alone without it. */
export function curveBackend(native: NativeCurve | null): TinySecp256k1Interface {
  if (!native) return tiny;
  return {
    ...tiny,
    pointAddScalar(p, tweak, compressed) {
      try {
        return native.publicKeyTweakAdd(p, tweak, compressed ?? p.length === 33);
      } catch {
        // Refused by shape or value: tiny-secp256k1 decides (it throws on bad input, answers null at infinity).
        return tiny.pointAddScalar(p, tweak, compressed);
      }
    },
    isPoint(p) {
      try {
        return native.publicKeyVerify(p);
      } catch {
        // Not 33 or 65 bytes (an x-only key is 32): tiny-secp256k1 knows those shapes.
        return tiny.isPoint(p);
      }
    },
  };
}

const native = loadNativeCurve();

/** The native binding itself, for child-key.ts's per-child step; null when it did not load. */
export const nativeBinding: NativeCurve | null = native;

/** Whether derivation runs on the native binding (true) or tiny-secp256k1's WASM alone (false). */
export const nativeCurve = native !== null;

export const ecc: TinySecp256k1Interface = curveBackend(native);
