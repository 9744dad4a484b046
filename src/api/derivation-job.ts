/**
 * What the derivation pool (derivation-pool.ts) and its worker threads (derivation-worker.ts) say to
 * each other. A slice of a wallet's scripts comes back packed into a few transferred ArrayBuffers, so
 * the API's thread copies nothing and builds no object per script until it unpacks:
 *   scripts  the scripts' bytes, one after another; `ends` (Uint32) says where each ends
 *   keys     the scripts' store keys (script-key.ts), SCRIPT_KEY_BYTES each
 *   places   Int32 pairs (branch, index), index −1 where the descriptor is not ranged
 *   paths    the derivation path texts (wallet/derive.ts), null without an extended key
 */
import type { ChainCode, NetworkName } from '../chain/params.js';
import { SCRIPT_KEY_BYTES, writeScriptKey } from '../store/script-key.js';
import type { DerivedScript } from '../wallet/derive.js';

/** One slice of one wallet: items from … to-1 of WalletDeriver's flat order. */
export interface SliceJob {
  readonly id: number;
  readonly chain: ChainCode;
  readonly network: NetworkName;
  /** The wallet input as the caller sent it (parsed and checked on the API's thread already). */
  readonly input: string;
  readonly range: number;
  readonly maxRange: number;
  readonly from: number;
  readonly to: number;
}

export interface PackedSlice {
  readonly scripts: ArrayBuffer;
  readonly ends: ArrayBuffer;
  readonly keys: ArrayBuffer;
  readonly places: ArrayBuffer;
  readonly paths: readonly (string | null)[];
}

export type SliceReply =
  | { readonly id: number; readonly slice: PackedSlice }
  | { readonly id: number; readonly error: { readonly code: string | null; readonly message: string } };

/** A wallet's derived scripts and, in the same order, their store keys: what its index reads are by. */
export interface DerivedWallet {
  readonly scripts: readonly DerivedScript[];
  readonly keys: readonly Buffer[];
}

export function packSlice(items: readonly DerivedScript[]): PackedSlice {
  const size = items.reduce((n, d) => n + d.script.length, 0);
  const scripts = Buffer.from(new ArrayBuffer(size));
  const ends = new Uint32Array(items.length);
  const keys = Buffer.from(new ArrayBuffer(items.length * SCRIPT_KEY_BYTES));
  const places = new Int32Array(items.length * 2);
  let at = 0;
  items.forEach((d, i) => {
    scripts.set(d.script, at);
    at += d.script.length;
    ends[i] = at;
    writeScriptKey(keys, i * SCRIPT_KEY_BYTES, d.script);
    places[2 * i] = d.branch;
    places[2 * i + 1] = d.index ?? -1;
  });
  return {
    scripts: scripts.buffer as ArrayBuffer,
    ends: ends.buffer,
    keys: keys.buffer as ArrayBuffer,
    places: places.buffer,
    paths: items.map((d) => d.path),
  };
}

/** The buffers a packed slice hands over (postMessage's transfer list). */
export function transferables(slice: PackedSlice): ArrayBuffer[] {
  return [slice.scripts, slice.ends, slice.keys, slice.places];
}

/** Appends a packed slice's items to `into`, as views of its buffers. */
export function unpackSlice(slice: PackedSlice, into: { scripts: DerivedScript[]; keys: Buffer[] }): void {
  const ends = new Uint32Array(slice.ends);
  const places = new Int32Array(slice.places);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    const index = places[2 * i + 1]!;
    into.scripts.push({
      branch: places[2 * i]!,
      index: index < 0 ? null : index,
      path: slice.paths[i] ?? null,
      script: new Uint8Array(slice.scripts, start, end - start),
    });
    into.keys.push(Buffer.from(slice.keys, i * SCRIPT_KEY_BYTES, SCRIPT_KEY_BYTES));
    start = end;
  }
}
