/**
 * Builds history for an index that holds blocks without it (the writer's buildHistory): the blocks from
 * the build's height to the index's tip, fetched in order and committed in batches, while block sync
 * keeps moving the tip. The store checks every commit against the index's own chain, so a reorg under
 * way costs no more than fetching those blocks again. Progress lines with an ETA, as catch-up has.
 *
 * History needs every block from genesis: a pruned node that lacks one stops the build with the first
 * missing height (HistoryBlocksPruned), before it starts when getblockchaininfo tells.
 */
import { toDisplayHex } from '../src/chain/hash.js';
import { CodedError } from '../src/coded-error.js';
import type { LogSink } from '../src/logger.js';
import { StoreError } from '../src/store/errors.js';
import type { BlockToApply, HistoryBuildProgress } from '../src/store/index-model.js';
import type { IndexWriter } from '../src/store/ports.js';
import { BlockBatches } from './block-batches.js';
import type { BlockSource } from './block-source.js';
import type { IndexerMetrics } from './metrics.js';
import { describeProgress, Progress, progressLine } from './progress.js';
import { Wake } from './wake.js';

export class HistoryBlocksPruned extends CodedError<'HISTORY_BLOCKS_PRUNED'> {
  constructor(readonly height: number) {
    super(
      'HISTORY_BLOCKS_PRUNED',
      `building history needs every block from genesis, and the node has pruned block ${height} (the first missing height): ` +
        'point the indexer at a node that keeps every block (not started with -prune), or turn history off (ADDRSUM_HISTORY=false)',
    );
  }
}

/** Refuses before the build starts when the node says it has pruned a block the build still needs. */
export function checkNotPruned(build: HistoryBuildProgress, pruneHeight: number | null): void {
  const next = build.height + 1;
  if (pruneHeight !== null && pruneHeight > next) throw new HistoryBlocksPruned(next);
}

export type HistoryBuildWriter = Pick<IndexWriter, 'historyBuild' | 'buildHistory'>;

export interface HistoryBuildOptions {
  prefetch: number;
  /** Commit once a batch holds this many transactions (default 20,000, as catch-up). */
  batchTxs?: number;
  /** Commit a smaller batch when it is this old and the next block is not here yet. */
  commitIntervalMs: number;
  /** Wait this long after the chain moved under a batch, for block sync to reconcile. */
  pollIntervalMs: number;
  progressEveryMs?: number;
}

export class HistoryBuilder {
  private readonly progress: Progress;
  private readonly batchTxs: number;

  constructor(
    private readonly store: HistoryBuildWriter,
    private readonly source: BlockSource,
    private readonly opts: HistoryBuildOptions,
    private readonly log: LogSink,
    private readonly metrics: IndexerMetrics,
  ) {
    this.progress = new Progress(opts.progressEveryMs ?? 5000);
    this.batchTxs = opts.batchTxs ?? 20_000;
  }

  /** Builds until history is on or `signal` aborts. Rejects on a fatal error (HistoryBlocksPruned among them). */
  async run(signal: AbortSignal): Promise<void> {
    let state = await this.store.historyBuild();
    if (state === null) return;
    this.log.info(
      { height: state.height, tipHeight: state.tipHeight },
      `building history from block ${state.height + 1} to the tip ${state.tipHeight}: balances are served meanwhile, ` +
        'history routes answer 503 HISTORY_BUILDING until it is done',
    );
    while (state !== null && !signal.aborted) {
      this.metrics.historyBuildHeight.set(state.height);
      const next = state.height + 1;
      if (next > state.tipHeight || !(await this.pass(next, state.tipHeight, signal)))
        await new Wake().wait(this.opts.pollIntervalMs, signal);
      state = await this.store.historyBuild();
    }
    if (state === null) this.log.info({}, 'history built: history routes answer from now on');
  }

  /** Builds `from..to`; false when the chain moved under it (fetch again after block sync reconciled). */
  private async pass(from: number, to: number, signal: AbortSignal): Promise<boolean> {
    const opts = { prefetch: this.opts.prefetch, batchTxs: this.batchTxs, commitIntervalMs: this.opts.commitIntervalMs };
    // The store checks every block against the index's chain: no anchor is needed here.
    const fetched = new BlockBatches(this.source, from, to, opts);
    try {
      for await (const batch of fetched.batches(signal)) {
        if (batch.blocks.length > 0 && !(await this.commit(batch.blocks, batch.txs, to))) return false;
        if (batch.moved) return false;
      }
    } catch (err) {
      if (/prun/i.test((err as Error).message)) throw new HistoryBlocksPruned(fetched.nextHeight);
      throw err;
    }
    return true;
  }

  private async commit(batch: readonly BlockToApply[], txs: number, to: number): Promise<boolean> {
    try {
      await this.store.buildHistory(batch);
    } catch (err) {
      if (err instanceof StoreError && err.code === 'NOT_CONNECTED') {
        this.log.info({ err: err.message }, 'history build: the chain moved under the batch; fetching again');
        return false;
      }
      throw err;
    }
    const last = batch[batch.length - 1]!;
    this.metrics.historyBuildHeight.set(last.height);
    const window = this.progress.record({ height: last.height, nodeHeight: to, txs });
    if (window === null || last.height >= to) return true;
    const line = progressLine(window, await this.source.chainTxPosition(toDisplayHex(last.hash)));
    this.log.info(
      {
        height: line.height,
        tipHeight: to,
        percent: Number(line.percent.toFixed(2)),
        basis: line.basis,
        blocksPerSec: Number(line.blocksPerSec.toFixed(1)),
        txPerSec: Number(line.txPerSec.toFixed(0)),
        etaSeconds: line.etaSeconds,
      },
      describeProgress(line, 'building history'),
    );
    return true;
  }
}
