/**
 * Encodes `dumptxoutset` files in either layout (the inverse of snapshot-format.ts), for tests and the
 * scale benchmark: the indexer itself only reads them. Records are returned as Buffers so the caller
 * can stream any number of coins to a file.
 */
import { CORE_MAGIC, CORE_VERSION } from './snapshot-format.js';
import { writeCoin, type SnapshotCoin } from './snapshot-coin.js';
import { compactSize } from './compact-size.js';

export interface SnapshotOutputIn {
  vout: number;
  coin: SnapshotCoin;
  /** Litecoin only: set the bit-31 peg-out flag. */
  pegout?: boolean;
}

export function coreHeader(networkMagicHex: string, baseHash: Buffer, coinCount: number, version = CORE_VERSION): Buffer {
  const b = Buffer.alloc(5 + 2 + 4 + 32 + 8);
  CORE_MAGIC.copy(b, 0);
  b.writeUInt16LE(version, 5);
  Buffer.from(networkMagicHex, 'hex').copy(b, 7);
  baseHash.copy(b, 11);
  b.writeBigUInt64LE(BigInt(coinCount), 43);
  return b;
}

export function ltcHeader(baseHash: Buffer, coinCount: number, nChainTx: number): Buffer {
  const b = Buffer.alloc(32 + 8 + 4);
  baseHash.copy(b, 0);
  b.writeBigUInt64LE(BigInt(coinCount), 32);
  b.writeUInt32LE(nChainTx, 40);
  return b;
}

/** One Core txid group: txid, CompactSize n, n × (CompactSize vout, Coin). */
export function coreGroup(txid: Buffer, outputs: readonly SnapshotOutputIn[]): Buffer {
  const parts: Buffer[] = [txid, compactSize(outputs.length)];
  for (const o of outputs) parts.push(compactSize(o.vout), writeCoin(o.coin));
  return Buffer.concat(parts);
}

/** Litecoin 0.21 records: one (txid ‖ uint32 vout, Coin) per output. */
export function ltcRecords(txid: Buffer, outputs: readonly SnapshotOutputIn[]): Buffer {
  const parts: Buffer[] = [];
  for (const o of outputs) {
    const vout = Buffer.alloc(4);
    vout.writeUInt32LE(o.vout);
    parts.push(txid, vout, writeCoin(o.coin, o.pegout ?? false));
  }
  return Buffer.concat(parts);
}
