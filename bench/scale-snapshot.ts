/**
 * A synthetic Bitcoin Core (v2) snapshot of N coins for the scale benchmark, written straight into a
 * file buffer (no per-coin Buffer objects: 185M coins must be written in minutes).
 *
 * Mainnet-like mix by UTXO count (2025 order of magnitude): P2WPKH 31 %, P2TR 28 %, P2PKH 24 %,
 * P2SH 9 %, P2WSH 3 %, bare multisig 2.5 %, other raw 2.2 %, P2PK compressed 0.2 %, uncompressed 0.1 %.
 * Address reuse: 40 % of coins pay a script an earlier coin paid (skewed towards a few heavy scripts),
 * so distinct scripts ≈ 0.6 N. Txids ascend as in a real dumptxoutset (Core writes it walking the
 * chainstate in key order): the group counter big-endian, then random-looking bytes. Order 'random'
 * puts the random bytes first instead, so the loader's sorting fallback can be measured too. Every txid
 * group has a vout 0, which the blocks on top spend.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { pointFromScalar } from 'tiny-secp256k1';
import { ByteReader } from '../src/chain/byte-reader.js';
import { compressAmount, readCompressedScript } from '../src/chain/snapshot-coin.js';
import { coreHeader } from '../src/chain/snapshot-writer.js';

/** Deterministic 32-bit mix (splitmix-like) of two integers. */
export function mix(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

const KINDS: [number, string][] = [
  [31, 'p2wpkh'],
  [28, 'p2tr'],
  [24, 'p2pkh'],
  [9, 'p2sh'],
  [3, 'p2wsh'],
  [2.5, 'multisig'],
  [2.2, 'other'],
  [0.2, 'p2pk'],
  [0.1, 'p2pk-u'],
];
const CUMULATIVE = (() => {
  let acc = 0;
  return KINDS.map(([w, k]) => {
    acc += w;
    return [acc, k] as const;
  });
})();
const TOTAL_WEIGHT = CUMULATIVE[CUMULATIVE.length - 1]![0];

/** Valid secp256k1 points, reused by the P2PK and multisig scripts (their x must be on the curve). */
const KEYS = Array.from({ length: 64 }, (_, i) => {
  const k = Buffer.alloc(32);
  k.writeUInt32BE(i + 1, 28);
  return Buffer.from(pointFromScalar(k, true)!);
});

function fill(buf: Buffer, at: number, n: number, seed: number): void {
  for (let i = 0; i < n; i += 4) {
    const v = mix(seed, i);
    buf[at + i] = v & 0xff;
    buf[at + i + 1] = (v >>> 8) & 0xff;
    buf[at + i + 2] = (v >>> 16) & 0xff;
    buf[at + i + 3] = v >>> 24;
  }
}

/** Core's VARINT (most significant group first), without allocating: 185M coins call it three times each. */
function varInt(buf: Buffer, at: number, n: number): number {
  let len = 0;
  for (let m = n; m > 0x7f; m = Math.floor(m / 128) - 1) len++;
  for (let i = len; i >= 0; i--) {
    buf[at + i] = (n % 128) | (i === len ? 0 : 0x80);
    n = Math.floor(n / 128) - 1;
  }
  return at + len + 1;
}

/** A raw script: its size code, `prefix`, then `n` random-looking bytes; returns the end offset. */
function rawScript(buf: Buffer, at: number, prefix: readonly number[], n: number, seed: number): number {
  at = varInt(buf, at, prefix.length + n + 6);
  for (const b of prefix) buf[at++] = b;
  fill(buf, at, n, seed);
  return at + n;
}

// Loops rather than closures below: tsx wraps every closure it creates in a naming helper, and this
// runs once per coin.
function kindOf(id: number): string {
  const pick = (mix(id, 0x51) / 0x100000000) * TOTAL_WEIGHT;
  for (const [c, k] of CUMULATIVE) if (pick < c) return k;
  return 'p2wpkh';
}

/** Writes script `id`'s compressed form at `at`; returns the end offset. */
export function writeScript(buf: Buffer, at: number, id: number): number {
  const kind = kindOf(id);
  const seed = mix(id, 0xabc);
  switch (kind) {
    case 'p2pkh':
    case 'p2sh':
      buf[at] = kind === 'p2pkh' ? 0 : 1;
      fill(buf, at + 1, 20, seed);
      return at + 21;
    case 'p2wpkh':
      return rawScript(buf, at, [0x00, 20], 20, seed);
    case 'p2wsh':
      return rawScript(buf, at, [0x00, 32], 32, seed);
    case 'p2tr':
      return rawScript(buf, at, [0x51, 32], 32, seed);
    case 'p2pk':
    case 'p2pk-u': {
      const key = KEYS[id % KEYS.length]!;
      buf[at] = key[0]! + (kind === 'p2pk' ? 0 : 2);
      key.copy(buf, at + 1, 1, 33);
      return at + 33;
    }
    case 'multisig': {
      // 1-of-2 bare multisig, as the "stamps" outputs on mainnet: 0x51 <33> <33> 0x52 0xae.
      at = varInt(buf, at, 71 + 6);
      buf[at++] = 0x51;
      for (const k of [KEYS[id % KEYS.length]!, KEYS[(id >>> 6) % KEYS.length]!]) {
        buf[at++] = 33;
        k.copy(buf, at);
        at += 33;
      }
      buf[at++] = 0x52;
      buf[at++] = 0xae;
      return at;
    }
    default:
      return rawScript(buf, at, [0x6b], 11 + (id % 20), seed);
  }
}

/** The scriptPubKey of script `id` (what an address lookup asks for). */
export function scriptOf(id: number): Buffer {
  const buf = Buffer.alloc(200);
  const end = writeScript(buf, 0, id);
  return readCompressedScript(new ByteReader(buf, 0, end));
}

export type TxidOrder = 'ascending' | 'random';

/** Writes group `group`'s txid at `at`: unique per group, ascending with it unless `order` is 'random'. */
function writeTxid(buf: Buffer, at: number, group: number, order: TxidOrder): void {
  fill(buf, at, 32, mix(group, 0x7711));
  buf.writeUInt32BE(group >>> 0, order === 'ascending' ? at : at + 4);
}

export function txidOf(group: number, order: TxidOrder = 'ascending'): Buffer {
  const t = Buffer.alloc(32);
  writeTxid(t, 0, group, order);
  return t;
}

export interface SyntheticSnapshot {
  coins: number;
  groups: number;
  /** Distinct scripts written (ids 0..scripts−1). */
  scripts: number;
  bytes: number;
  baseHash: Buffer;
}

/** Writes a Core v2 regtest snapshot of `coins` coins to `path`. */
export function writeSyntheticSnapshot(
  path: string,
  coins: number,
  baseHeight: number,
  baseHash = txidOf(0xffffffff),
  order: TxidOrder = 'ascending',
): SyntheticSnapshot {
  const fd = openSync(path, 'w');
  const CHUNK = 16 << 20;
  const buf = Buffer.allocUnsafe(CHUNK + 64 * 1024);
  let at = 0;
  let bytes = 0;
  const flush = (): void => {
    writeSync(fd, buf, 0, at);
    bytes += at;
    at = 0;
  };
  try {
    const header = coreHeader('fabfb5da', baseHash, coins);
    header.copy(buf, 0);
    at = header.length;
    let written = 0;
    let group = 0;
    let nextScript = 0;
    while (written < coins) {
      const r = mix(group, 1);
      const n = Math.min(coins - written, r % 10 < 7 ? 1 : r % 10 < 9 ? 2 : 3 + (r % 8));
      writeTxid(buf, at, group, order);
      at += 32;
      buf[at++] = n;
      for (let v = 0; v < n; v++) {
        const c = mix(group, v + 2);
        buf[at++] = v;
        const height = c % baseHeight;
        at = varInt(buf, at, height * 2 + (c % 100 === 0 ? 1 : 0));
        // Values log-uniform over 546 sat … 100 BTC, rounded as wallets round them.
        const exp = 2.7 + ((c >>> 8) % 1000) / 125;
        const value = Math.round(10 ** exp / 10 ** ((c >>> 20) % 4)) * 10 ** ((c >>> 20) % 4);
        at = varInt(buf, at, Number(compressAmount(value)));
        const reuse = (c >>> 4) % 10 < 4 && nextScript > 0;
        // Reused scripts skew to low ids: a few scripts get very many coins, as exchanges' do.
        const u = mix(c, 9) / 0x100000000;
        const id = reuse ? Math.floor(nextScript * u * u * u) : nextScript++;
        at = writeScript(buf, at, id);
      }
      written += n;
      group++;
      if (at >= CHUNK) flush();
    }
    flush();
    return { coins, groups: group, scripts: nextScript, bytes, baseHash };
  } finally {
    closeSync(fd);
  }
}
