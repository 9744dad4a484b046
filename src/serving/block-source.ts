/**
 * Blocks as the doors show them: the header, height and neighbours are the index's own (its stored
 * headers, so a block view agrees with the tip every other answer is true at); what a header does not
 * hold (transaction count and list, size, weight) is the node's `getblock <hash> 1`, checked against the
 * header's merkle root (Litecoin lists the transparent transactions, the HogEx last, which is what that
 * root covers) and kept for recent blocks: a page of a block's transactions asks for it again and again.
 */
import { LRUCache } from 'lru-cache';
import { readHeader, type BlockHeader } from '../chain/block-header.js';
import { fromDisplayHex, sha256d, toDisplayHex } from '../chain/hash.js';
import { computeMerkle } from '../chain/merkle.js';
import type { ChainCode } from '../chain/params.js';
import type { IndexReader } from '../store/ports.js';
import type { TxBlock } from '../store/tx-block.js';
import type { ChainNode } from './chain-node.js';
import { ServingError } from './errors.js';
import { askNode } from './node-answers.js';

/** The index reads a block lookup needs. */
export type BlockIndex = Pick<IndexReader, 'headers'>;

/** Core's GetMedianTimePast: the median of the last 11 blocks' times, this one's included. */
const MEDIAN_TIME_SPAN = 11;

export interface IndexedBlock {
  readonly height: number;
  readonly header: BlockHeader;
  /** Display hex. */
  readonly hash: string;
  /** The next block's hash in the indexed chain (display hex); null at the tip. */
  readonly nextHash: string | null;
  readonly tipHeight: number;
}

export interface BlockBody {
  readonly size: number;
  readonly strippedSize: number;
  readonly weight: number;
  /** Internal byte order, in block order. */
  readonly txids: readonly Buffer[];
}

/**
 * Where a transaction the index places in a block stands, for a merkle proof: its block with the
 * block's txids; in the mempool (no block); its block no longer the indexed one at that height (a reorg
 * since the lookup); or the node's block holding another transaction at its position.
 */
export type TxPlacement =
  | { readonly kind: 'placed'; readonly block: IndexedBlock; readonly txids: readonly Buffer[]; readonly position: number }
  | { readonly kind: 'unconfirmed' }
  | { readonly kind: 'left' }
  | { readonly kind: 'elsewhere'; readonly block: IndexedBlock; readonly position: number };

interface NodeBlock {
  size?: unknown;
  strippedsize?: unknown;
  weight?: unknown;
  tx?: unknown;
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export class BlockSource {
  private readonly bodies = new LRUCache<string, BlockBody>({ max: 32 });

  constructor(
    readonly chain: ChainCode,
    private readonly node: ChainNode,
  ) {}

  /** The indexed block at `height`; null above the tip or where no header is stored. */
  async atHeight(index: BlockIndex, height: number): Promise<IndexedBlock | null> {
    const range = await index.headers(height, 2);
    const own = range?.headers[0];
    if (range === null || own === undefined) return null;
    const header = readHeader(own);
    const next = range.headers[1];
    return {
      height,
      header,
      hash: toDisplayHex(header.hash),
      nextHash: next === undefined ? null : toDisplayHex(readHeader(next).hash),
      tipHeight: range.tipHeight,
    };
  }

  /**
   * The block's median time past; null while a header of the span is not stored (a backfill not done
   * yet) or the span moved meanwhile (a reorg).
   */
  async medianTime(index: BlockIndex, block: IndexedBlock): Promise<number | null> {
    const from = Math.max(0, block.height - (MEDIAN_TIME_SPAN - 1));
    const span = block.height - from + 1;
    const range = await index.headers(from, span);
    const own = range?.headers[span - 1];
    if (range === null || range.headers.length !== span || own === undefined || !readHeader(own).hash.equals(block.header.hash))
      return null;
    const times = range.headers.map((h) => readHeader(h).time).sort((a, b) => a - b);
    return times[Math.floor(span / 2)]!;
  }

  /** The indexed block of that hash (display hex); null when the indexed chain holds none. */
  async withHash(index: BlockIndex, hash: string): Promise<IndexedBlock | null> {
    const header = await askNode<{ height?: unknown }>(this.chain, this.node, 'getblockheader', [hash, true]);
    if (header === null || !count(header.height)) return null;
    const block = await this.atHeight(index, header.height);
    return block?.hash === hash ? block : null;
  }

  /** What the header does not hold, from the node. */
  /** The node's raw form of `block` (not kept: a block may be large), checked to be that block. */
  async raw(block: IndexedBlock): Promise<Buffer> {
    const answer = await askNode<unknown>(this.chain, this.node, 'getblock', [block.hash, 0], { hash: block.hash, height: block.height });
    const bytes = typeof answer === 'string' && /^(?:[0-9a-f]{2})+$/i.test(answer) ? Buffer.from(answer, 'hex') : null;
    if (bytes === null || bytes.length < 80 || toDisplayHex(sha256d(bytes.subarray(0, 80))) !== block.hash)
      throw new ServingError('NODE_UNAVAILABLE', `the ${this.chain} node's getblock ${block.hash} gave no such block; retry shortly`);
    return bytes;
  }

  /** Where transaction `txid` (internal byte order), which the index places at `at`, stands (TxPlacement). */
  async placement(index: BlockIndex, txid: Buffer, at: TxBlock | null): Promise<TxPlacement> {
    if (at === null) return { kind: 'unconfirmed' };
    const block = await this.atHeight(index, at.height);
    if (block === null || block.hash !== toDisplayHex(at.hash)) return { kind: 'left' };
    const { txids } = await this.body(block);
    if (!txids[at.position]?.equals(txid)) return { kind: 'elsewhere', block, position: at.position };
    return { kind: 'placed', block, txids, position: at.position };
  }

  async body(block: IndexedBlock): Promise<BlockBody> {
    const kept = this.bodies.get(block.hash);
    if (kept !== undefined) return kept;
    const where = { hash: block.hash, height: block.height };
    const answer = await askNode<NodeBlock>(this.chain, this.node, 'getblock', [block.hash, 1], where);
    const bad = (why: string): ServingError =>
      new ServingError('NODE_UNAVAILABLE', `the ${this.chain} node's getblock ${block.hash} ${why}`);
    if (answer === null) throw bad("found no such block: it has left the node's chain; retry shortly");
    const { size, strippedsize, weight, tx } = answer;
    if (
      !count(size) ||
      !count(strippedsize) ||
      !count(weight) ||
      !Array.isArray(tx) ||
      !tx.every((t) => typeof t === 'string' && /^[0-9a-f]{64}$/.test(t))
    )
      throw bad('gave no block');
    const txids = tx.map((t: string) => fromDisplayHex(t));
    if (!computeMerkle(txids).root.equals(block.header.merkleRoot)) throw bad("does not match its header's merkle root");
    const body = { size, strippedSize: strippedsize, weight, txids };
    this.bodies.set(block.hash, body);
    return body;
  }
}

/**
 * Bitcoin Core's GetDifficulty (the same formula on every chain and network), printed as Core prints a
 * double (16 significant digits), so a view shows the node's very number.
 */
export function difficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return Number(diff.toPrecision(16));
}
