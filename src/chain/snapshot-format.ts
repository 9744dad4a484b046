/**
 * The two `dumptxoutset` layouts, told apart by the file's first bytes. Pure: headers and records are
 * decoded from Buffers; streaming is the caller's (indexer/snapshot-reader.ts).
 *
 * - Bitcoin Core ≥ 28 (node/utxo_snapshot.h): magic `utxo\xff`, uint16 version (2 is the only one),
 *   4-byte network magic (pchMessageStart), base block hash, uint64 coin count; then coins grouped per
 *   txid: txid, CompactSize n, n × (CompactSize vout, Coin).
 * - Litecoin Core 0.21 (the 0.21-era SnapshotMetadata, no magic): base block hash, uint64 coin count,
 *   uint32 nChainTx; then coin count × (outpoint = txid ‖ uint32 vout, Coin), Coin codes with Litecoin's
 *   bit-31 peg-out flag.
 * Which layout a chain's node writes, and which network magics it accepts, is its module's word.
 * A Litecoin file cannot be confused with a Core one unless its base hash starts with `utxo\xff` (odds 2⁻⁴⁰).
 */
import { chainParams, type ChainCode, type NetworkName } from './params.js';
import { CHAINS, chainModule } from './registry.js';
import type { SnapshotKind } from './chain-module.js';
import { ByteReader, ParseError } from './byte-reader.js';
import { readCoin, type SnapshotCoin } from './snapshot-coin.js';

export const CORE_MAGIC = Buffer.from('utxo\xff', 'latin1');
export const CORE_VERSION = 2;
export const CORE_HEADER_BYTES = 5 + 2 + 4 + 32 + 8;
export const LTC_HEADER_BYTES = 32 + 8 + 4;

export type { SnapshotKind };

export interface SnapshotHeader {
  kind: SnapshotKind;
  /** Base block hash, internal byte order. */
  baseHash: Buffer;
  coinCount: number;
  /** Where the first coin record starts. */
  dataOffset: number;
  /** Core files only: the 4-byte network magic. */
  networkMagic: Buffer | null;
}

export type SnapshotErrorCode =
  | 'UNREADABLE'
  | 'TRUNCATED'
  | 'BAD_MAGIC'
  | 'BAD_VERSION'
  | 'WRONG_NETWORK'
  | 'COUNT_MISMATCH'
  | 'MALFORMED'
  | 'UNKNOWN_BASE_BLOCK'
  | 'NODE_BEHIND'
  | 'INDEX_NOT_EMPTY'
  | 'DUPLICATE_COIN';

/** A snapshot that cannot be loaded; the message is one line naming the problem. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Every chain's names for the network magics it knows, to name the network a wrong file is for. */
const MAGIC_NAMES: Readonly<Record<string, string>> = Object.freeze(Object.assign({}, ...CHAINS.map((c) => c.snapshotMagicNames)));

/** Decodes the header from the file's first bytes (at least CORE_HEADER_BYTES unless the file is shorter). */
export function parseSnapshotHeader(head: Buffer, chain: ChainCode, network: NetworkName): SnapshotHeader {
  const kind = chainModule(chain).snapshotKind;
  if (head.subarray(0, 5).equals(CORE_MAGIC)) {
    if (head.length < CORE_HEADER_BYTES)
      throw new SnapshotError(
        'TRUNCATED',
        `snapshot truncated: ${head.length}-byte file is shorter than its ${CORE_HEADER_BYTES}-byte header`,
      );
    const version = head.readUInt16LE(5);
    if (version !== CORE_VERSION)
      throw new SnapshotError('BAD_VERSION', `snapshot format version ${version} is not supported (only version ${CORE_VERSION})`);
    const magic = Buffer.from(head.subarray(7, 11));
    const hex = magic.toString('hex');
    // The network's pchMessageStart (the chain module's snapshotMagics, from chainparams.cpp).
    if (kind !== 'core-v2' || !chainParams(chain, network).snapshotMagics.includes(hex)) {
      const name = (Object.hasOwn(MAGIC_NAMES, hex) ? MAGIC_NAMES[hex] : undefined) ?? `unknown network magic ${hex}`;
      throw new SnapshotError('WRONG_NETWORK', `snapshot is for ${name}, but this indexer is ${chain} ${network}`);
    }
    return {
      kind: 'core-v2',
      baseHash: Buffer.from(head.subarray(11, 43)),
      coinCount: u64(head, 43),
      dataOffset: CORE_HEADER_BYTES,
      networkMagic: magic,
    };
  }
  if (kind !== 'ltc-0.21') {
    throw new SnapshotError('BAD_MAGIC', `not a Bitcoin Core UTXO snapshot: the file does not start with the magic bytes utxo\\xff`);
  }
  if (head.length < LTC_HEADER_BYTES)
    throw new SnapshotError(
      'TRUNCATED',
      `snapshot truncated: ${head.length}-byte file is shorter than its ${LTC_HEADER_BYTES}-byte header`,
    );
  return {
    kind: 'ltc-0.21',
    baseHash: Buffer.from(head.subarray(0, 32)),
    coinCount: u64(head, 32),
    dataOffset: LTC_HEADER_BYTES,
    networkMagic: null,
  };
}

function u64(buf: Buffer, at: number): number {
  const n = buf.readBigUInt64LE(at);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new SnapshotError('MALFORMED', `snapshot coin count ${n} is not a plausible number`);
  return Number(n);
}

export interface SnapshotOutput {
  txid: Buffer;
  vout: number;
  coin: SnapshotCoin;
}

/**
 * Reads one record at the reader's position: a txid group (Core) or one coin (Litecoin). Throws
 * ParseError TRUNCATED when the record runs past the buffer (the caller refills and retries from the
 * same offset). `left` is how many coins the header still promises: a group claiming more is
 * COUNT_MISMATCH.
 */
export function readRecord(r: ByteReader, kind: SnapshotKind, left: number): SnapshotOutput[] {
  if (kind === 'ltc-0.21') {
    const txid = Buffer.from(r.bytes(32));
    const vout = r.u32();
    return [{ txid, vout, coin: readCoin(r, true) }];
  }
  const txid = Buffer.from(r.bytes(32));
  const n = r.compactSize(0);
  if (n === 0) throw new ParseError('MALFORMED', r.pos, 'txid group of 0 coins');
  if (n > left)
    throw new SnapshotError('COUNT_MISMATCH', `coin count mismatch: a group of ${n} coins exceeds the ${left} the header has left`);
  const out: SnapshotOutput[] = [];
  for (let i = 0; i < n; i++) {
    const vout = r.compactSize(0);
    out.push({ txid, vout, coin: readCoin(r, false) });
  }
  return out;
}
