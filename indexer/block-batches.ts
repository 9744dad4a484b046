/**
 * Blocks from the node cut into commit-sized batches, for every loop that writes them in order (block
 * sync's catch-up, the history build). A batch ends when it holds `batchTxs` transactions, when the
 * range is fetched, or when it is `commitIntervalMs` old and the next block is not here yet: commits are
 * what a catch-up pays for, and a batch that waits for a slow block holds work a kill would lose.
 *
 * When the node's chain moves under the fetch (a height past its tip, or a block that does not link to
 * the one before), the batch fetched so far is handed over marked `moved`, and the batches end: the
 * caller commits what links and reconciles before fetching again.
 */
import { BlockFetcher } from './block-fetcher.js';
import { ChainChanged, type BlockSource } from './block-source.js';
import type { BlockToApply } from '../src/store/index-model.js';

export interface BatchOptions {
  readonly prefetch: number;
  readonly batchTxs: number;
  readonly commitIntervalMs: number;
}

export interface Batch {
  readonly blocks: BlockToApply[];
  readonly txs: number;
  /** The chain moved after these blocks: no batch follows. */
  readonly moved: boolean;
}

export class BlockBatches {
  /** The height of the next block to come: after a failed fetch, the one that failed. */
  nextHeight: number;

  constructor(
    private readonly source: BlockSource,
    private readonly from: number,
    private readonly to: number,
    private readonly opts: BatchOptions,
    /** The hash the first block must link to (the index's tip), when known. */
    private readonly anchor?: Buffer,
  ) {
    this.nextHeight = from;
  }

  /** The batches of `from..to`; after `signal` aborts, what was fetched comes as a last batch. */
  async *batches(signal: AbortSignal): AsyncGenerator<Batch> {
    const fetcher = new BlockFetcher(this.source, this.from, this.to, this.opts.prefetch);
    let blocks: BlockToApply[] = [];
    let txs = 0;
    let started = 0;
    let linked = this.anchor;
    try {
      while (!fetcher.done() && !signal.aborted) {
        let block: BlockToApply;
        try {
          block = await fetcher.next();
        } catch (err) {
          if (!(err instanceof ChainChanged)) throw err;
          yield { blocks, txs, moved: true };
          return;
        }
        if (linked && !block.prevHash.equals(linked)) {
          yield { blocks, txs, moved: true };
          return;
        }
        linked = block.hash;
        this.nextHeight = block.height + 1;
        if (blocks.length === 0) started = performance.now();
        blocks.push(block);
        txs += block.txs.length;
        // ready() is often false for a moment even with blocks in flight (their replies not yet read), so
        // "the next block is late" alone would commit nearly every block.
        const late = !fetcher.ready() && performance.now() - started >= this.opts.commitIntervalMs;
        if (txs >= this.opts.batchTxs || fetcher.done() || late) {
          yield { blocks, txs, moved: false };
          blocks = [];
          txs = 0;
        }
      }
      if (blocks.length > 0) yield { blocks, txs, moved: false };
    } finally {
      fetcher.stop();
    }
  }
}
