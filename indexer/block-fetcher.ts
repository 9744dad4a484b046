import PQueue from 'p-queue';
import { HEADER_SIZE, parseBlock } from '../src/chain/block-parser.js';
import { fromDisplayHex, toDisplayHex } from '../src/chain/hash.js';
import type { BlockSource } from './block-source.js';
import { CodedError } from '../src/coded-error.js';
import type { BlockToApply } from '../src/store/index-model.js';

export class BlockHashMismatch extends CodedError<'BLOCK_HASH_MISMATCH'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BLOCK_HASH_MISMATCH', message, options);
  }
}

/**
 * Fetches and parses blocks `from..to` with up to `concurrency` requests in flight, and yields them
 * strictly in height order. At most 2 × concurrency blocks are held at once, so memory stays bounded
 * however far behind the index is. `ready()` tells whether the next block is already here, which lets
 * the writer decide to commit its batch instead of waiting with uncommitted work.
 */
export class BlockFetcher {
  private readonly queue: PQueue;
  private readonly window: number;
  private readonly pending = new Map<number, Promise<BlockToApply>>();
  private readonly settled = new Set<number>();
  private nextToSchedule: number;
  private nextToYield: number;

  constructor(
    private readonly source: BlockSource,
    from: number,
    private readonly to: number,
    concurrency: number,
  ) {
    this.queue = new PQueue({ concurrency });
    this.window = concurrency * 2;
    this.nextToSchedule = from;
    this.nextToYield = from;
  }

  /** True when the block that next() would return has already arrived. */
  ready(): boolean {
    return this.settled.has(this.nextToYield);
  }

  done(): boolean {
    return this.nextToYield > this.to;
  }

  async next(): Promise<BlockToApply> {
    this.fill();
    const height = this.nextToYield;
    const promise = this.pending.get(height);
    if (!promise) throw new RangeError(`no block ${height} scheduled`);
    const block = await promise;
    this.pending.delete(height);
    this.settled.delete(height);
    this.nextToYield++;
    this.fill();
    return block;
  }

  /** Stops scheduling; blocks already in flight finish and are dropped. */
  stop(): void {
    this.queue.clear();
    for (const p of this.pending.values()) p.catch(() => undefined);
    this.pending.clear();
  }

  private fill(): void {
    while (this.nextToSchedule <= this.to && this.nextToSchedule < this.nextToYield + this.window) {
      const height = this.nextToSchedule++;
      const task = this.queue.add(() => this.fetch(height));
      // Rejections are observed when next() awaits them; this keeps an early failure from being "unhandled".
      task.then(
        () => this.settled.add(height),
        () => this.settled.add(height),
      );
      this.pending.set(height, task);
    }
  }

  private async fetch(height: number): Promise<BlockToApply> {
    const hash = await this.source.getBlockHash(height);
    const raw = await this.source.getBlock(hash);
    const block = parseBlock(raw);
    if (toDisplayHex(block.header.hash) !== hash) {
      throw new BlockHashMismatch(`node returned block ${toDisplayHex(block.header.hash)} for ${hash} at height ${height}`);
    }
    const header = raw.subarray(0, HEADER_SIZE);
    return { height, hash: fromDisplayHex(hash), prevHash: block.header.prevHash, header, time: block.header.time, txs: block.txs };
  }
}
