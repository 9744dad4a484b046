/**
 * Coins of every script kind for snapshot tests, and a helper writing them as a Core-format file.
 * Keys are real secp256k1 points (an uncompressed P2PK is stored compressed, so its x must be on the curve).
 */
import { writeFileSync } from 'node:fs';
import { pointFromScalar } from 'tiny-secp256k1';
import type { SnapshotCoin } from '../../src/chain/snapshot-coin.js';
import { coreGroup, coreHeader, type SnapshotOutputIn } from '../../src/chain/snapshot-writer.js';
import { Rng } from './blocks.js';

export interface GroupIn {
  txid: Buffer;
  outputs: SnapshotOutputIn[];
}

function pubkey(rng: Rng, compressed: boolean, wantOddY?: boolean): Buffer {
  for (;;) {
    const k = pointFromScalar(rng.bytes(32), compressed);
    if (k && (wantOddY === undefined || (compressed ? k[0] === 3 : (k[64]! & 1) === 1) === wantOddY)) return Buffer.from(k);
  }
}

const cat = (...parts: (number[] | Buffer)[]): Buffer => Buffer.concat(parts.map((p) => Buffer.from(p)));

/** One script of each kind the compressor treats differently, plus common raw ones. */
export function scriptKinds(rng: Rng): { name: string; script: Buffer }[] {
  return [
    { name: 'p2pkh', script: cat([0x76, 0xa9, 20], rng.bytes(20), [0x88, 0xac]) },
    { name: 'p2sh', script: cat([0xa9, 20], rng.bytes(20), [0x87]) },
    { name: 'p2pk compressed even', script: cat([33], pubkey(rng, true, false), [0xac]) },
    { name: 'p2pk compressed odd', script: cat([33], pubkey(rng, true, true), [0xac]) },
    { name: 'p2pk uncompressed even', script: cat([65], pubkey(rng, false, false), [0xac]) },
    { name: 'p2pk uncompressed odd', script: cat([65], pubkey(rng, false, true), [0xac]) },
    { name: 'p2wpkh', script: cat([0x00, 20], rng.bytes(20)) },
    { name: 'p2wsh', script: cat([0x00, 32], rng.bytes(32)) },
    { name: 'p2tr', script: cat([0x51, 32], rng.bytes(32)) },
    { name: 'bare multisig', script: cat([0x51, 33], pubkey(rng, true), [65], pubkey(rng, false), [0x52, 0xae]) },
    { name: 'empty', script: Buffer.alloc(0) },
    { name: 'nonstandard', script: cat([0x51]) },
    { name: 'p2pk-like with invalid key', script: cat([65, 4], Buffer.alloc(64, 7), [0xac]) },
    { name: 'op_return', script: cat([0x6a, 4], rng.bytes(4)) },
    { name: 'max-size raw', script: Buffer.concat([Buffer.from([0x51]), rng.bytes(9999)]) },
  ];
}

const AMOUNTS = [0, 1, 546, 1000, 12_345, 100_000_000, 2_100_000_000_000, 123_456_789, 5_000_000_000, 999_999_999];
const VOUTS = [0, 1, 2, 200, 255, 256, 65_535, 65_536, 70_000];

/** Groups covering every script kind × several amounts, vouts, heights and coinbase flags. */
export function coinGroups(rng: Rng, groups: number): GroupIn[] {
  const kinds = scriptKinds(rng);
  const out: GroupIn[] = [];
  let k = 0;
  for (let g = 0; g < groups; g++) {
    const n = 1 + (g % 4);
    const vouts = new Set<number>();
    while (vouts.size < n) vouts.add(VOUTS[rng.u32() % VOUTS.length]!);
    const outputs = [...vouts].map((vout): SnapshotOutputIn => {
      const kind = kinds[k++ % kinds.length]!;
      const coin: SnapshotCoin = {
        height: rng.u32() % 900_000,
        coinbase: rng.u32() % 5 === 0,
        value: AMOUNTS[rng.u32() % AMOUNTS.length]!,
        script: kind.script,
      };
      return { vout, coin };
    });
    out.push({ txid: rng.bytes(32), outputs });
  }
  return out;
}

export function writeCoreSnapshot(
  path: string,
  magicHex: string,
  baseHash: Buffer,
  groups: GroupIn[],
  opts: { count?: number; version?: number } = {},
): Buffer {
  const count = opts.count ?? groups.reduce((n, g) => n + g.outputs.length, 0);
  const bytes = Buffer.concat([coreHeader(magicHex, baseHash, count, opts.version), ...groups.map((g) => coreGroup(g.txid, g.outputs))]);
  writeFileSync(path, bytes);
  return bytes;
}
