import { toDisplayHex } from '../src/chain/hash.js';
import { BlockBatches } from './block-batches.js';
import type { BlockSource } from './block-source.js';
import type { IndexerMetrics } from './metrics.js';
import { describeProgress, Progress, progressLine } from './progress.js';
import { Wake } from './wake.js';
import { CodedError } from '../src/coded-error.js';
import type { LogSink } from '../src/logger.js';
import type { BlockToApply } from '../src/store/index-model.js';
import type { IndexWriter } from '../src/store/ports.js';

/** The part of the writer port the sync loop drives. */
export type SyncWriter = Pick<IndexWriter, 'tip' | 'applyBlocks' | 'rollbackTip' | 'setNodeHeight'>;

export interface SyncOptions {
  pollIntervalMs: number;
  prefetch: number;
  undoDepth: number;
  /** Commit a catch-up batch once it holds this many transactions (bounded memory, bounded loss on kill). */
  batchTxs?: number;
  /** Commit a smaller batch when it is this old and the next block is not here yet (default 1000). */
  commitIntervalMs?: number;
  progressEveryMs?: number;
  /** Clock for progress lines and tip timings (tests pass their own). Default performance.now. */
  now?: () => number;
}

/**
 * Once caught up, a pass with at most this many blocks logs one line per block; a longer one (the node
 * was away, or finished its own download) is a catch-up again, with progress lines and a new "caught up".
 */
const TIP_LINES_MAX_BLOCKS = 10;

export class ReorgTooDeep extends CodedError<'REORG_TOO_DEEP'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('REORG_TOO_DEEP', message, options);
  }
}

/**
 * Keeps the store equal to the node's active chain: roll back while our tip is not in it, then roll
 * forward. Every step is one store transaction, so a kill between steps leaves a consistent index
 * (bcoin's order: write, set tip in the same write, commit, then move on).
 */
export class Syncer {
  readonly wake = new Wake();
  /** Resolves the first time the index stands at the node's best header. */
  readonly caughtUp: Promise<void>;
  private reachedTip: () => void = () => undefined;
  private progress: Progress;
  private readonly batchTxs: number;
  private readonly commitIntervalMs: number;
  /** The height of the node's best known header chain, as last asked (≥ its validated height). */
  private chainHeight = 0;
  /** Reached the node's best header once: passes log each new tip instead of progress. */
  private following = false;
  /** This pass logs a line per block (set at the start of each pass). */
  private tipLines = false;
  /** When this pass began: a new tip's `ms` is from here (the node reported it) to its commit. */
  private passStarted = 0;
  private readonly now: () => number;

  constructor(
    private readonly store: SyncWriter,
    private readonly source: BlockSource,
    private readonly opts: SyncOptions,
    private readonly log: LogSink,
    private readonly metrics: IndexerMetrics,
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.caughtUp = new Promise((resolve) => (this.reachedTip = resolve));
    this.progress = new Progress(opts.progressEveryMs ?? 5000, this.now);
    this.batchTxs = opts.batchTxs ?? 20_000;
    this.commitIntervalMs = opts.commitIntervalMs ?? 1000;
  }

  /** Follows the node until `signal` aborts. Rejects only on a fatal error. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const behind = await this.syncOnce(signal);
      if (!behind) await this.wake.wait(this.opts.pollIntervalMs, signal);
    }
  }

  /** One pass: reconcile with the node and catch up. Returns true when another pass is due at once. */
  async syncOnce(signal: AbortSignal): Promise<boolean> {
    this.passStarted = this.now();
    const { blocks: nodeHeight, headers } = await this.source.getTipHeights();
    // A node still in its own initial download has headers far past its blocks. Publishing the header
    // height makes the API answer CHAIN_SYNCING then, instead of balances from a tip the network has left.
    this.chainHeight = Math.max(nodeHeight, headers);
    await this.store.setNodeHeight(this.chainHeight, new Date());
    await this.reconcile();
    const tip = await this.store.tip();
    this.metrics.setHeights(tip?.height ?? null, this.chainHeight);
    const from = tip ? tip.height + 1 : 0;
    if (this.following && nodeHeight - from + 1 > TIP_LINES_MAX_BLOCKS) {
      this.following = false;
      // Rates measured across the time spent following would be diluted: start a fresh window.
      this.progress = new Progress(this.opts.progressEveryMs ?? 5000, this.now);
    }
    this.tipLines = this.following;
    const behind = from <= nodeHeight && !signal.aborted ? await this.catchUp(from, nodeHeight, signal) : false;
    if (!behind && !signal.aborted) await this.noteCaughtUp();
    return behind;
  }

  /** The first time the index stands at the node's best header (not merely its validated tip): one line. */
  private async noteCaughtUp(): Promise<void> {
    const tip = await this.store.tip();
    if (this.following || tip === null || tip.height < this.chainHeight) return;
    this.following = true;
    this.reachedTip();
    this.metrics.catchUpPercent.set(100);
    this.metrics.catchUpEta.set(0);
    this.log.info({ height: tip.height, hash: toDisplayHex(tip.hash) }, `caught up at ${tip.height}; following new blocks`);
  }

  /** Rolls back while our tip is not in the node's active chain (a reorg, or blocks the node invalidated). */
  private async reconcile(): Promise<void> {
    let depth = 0;
    for (let tip = await this.store.tip(); tip; tip = await this.store.tip()) {
      if (await this.source.isInActiveChain(toDisplayHex(tip.hash))) break;
      if (depth >= this.opts.undoDepth) {
        throw new ReorgTooDeep(
          `reorg deeper than the undo window (${this.opts.undoDepth} blocks) below height ${tip.height}: ` +
            "stop the indexer, delete this chain's database file and start again to re-index " +
            '(raise undoDepth to survive deeper reorgs)',
        );
      }
      await this.store.rollbackTip();
      depth++;
      this.metrics.reorgBlocks.inc();
      this.log.warn({ height: tip.height, hash: toDisplayHex(tip.hash) }, "rolled back a block that left the node's chain");
    }
    if (depth > 0) this.metrics.reorgs.inc();
  }

  private async catchUp(from: number, to: number, signal: AbortSignal): Promise<boolean> {
    // Only this loop moves the tip, and only by committing a batch: the first block links to the tip.
    const anchor = (await this.store.tip())?.hash;
    const opts = { prefetch: this.opts.prefetch, batchTxs: this.batchTxs, commitIntervalMs: this.commitIntervalMs };
    for await (const batch of new BlockBatches(this.source, from, to, opts, anchor).batches(signal)) {
      // A move (the node switched branches while we fetched): commit what links, then reconcile again.
      await this.commit(batch.blocks, batch.txs, to);
      if (batch.moved) return true;
    }
    return false;
  }

  private async commit(batch: BlockToApply[], txs: number, nodeHeight: number): Promise<void> {
    if (batch.length === 0) return;
    const started = process.hrtime.bigint();
    // These blocks came from the node just now: recorded in the same transaction, so the API's freshness
    // check does not read a long catch-up as silence.
    await this.store.applyBlocks(batch, { height: Math.max(nodeHeight, this.chainHeight), at: new Date() });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    for (let i = 0; i < batch.length; i++) this.metrics.blockApplySeconds.observe(seconds / batch.length);
    this.metrics.blocksApplied.inc(batch.length);
    const last = batch[batch.length - 1]!;
    if (last.time !== undefined) this.metrics.tipTime.set(last.time);
    this.metrics.setHeights(last.height, Math.max(nodeHeight, this.chainHeight));
    if (this.tipLines) {
      this.metrics.catchUpPercent.set(100);
      this.metrics.catchUpEta.set(0);
      const ms = Math.round(this.now() - this.passStarted);
      for (const block of batch) {
        this.log.info(
          { height: block.height, hash: toDisplayHex(block.hash), txs: block.txs.length, ms },
          `new tip ${block.height} ${toDisplayHex(block.hash)}: ${block.txs.length} txs, ${ms} ms`,
        );
      }
      return;
    }
    const window = this.progress.record({ height: last.height, nodeHeight, txs });
    if (window === null || nodeHeight - last.height <= 0) return;
    const line = progressLine(window, await this.source.chainTxPosition(toDisplayHex(last.hash)));
    this.metrics.catchUpPercent.set(line.percent);
    this.metrics.catchUpEta.set(line.etaSeconds ?? -1);
    this.log.info(
      {
        height: line.height,
        nodeHeight: line.nodeHeight,
        percent: Number(line.percent.toFixed(2)),
        basis: line.basis,
        ...(line.nodePercent !== null && { nodePercent: Number(line.nodePercent.toFixed(2)) }),
        blocksPerSec: Number(line.blocksPerSec.toFixed(1)),
        txPerSec: Number(line.txPerSec.toFixed(0)),
        etaSeconds: line.etaSeconds,
      },
      describeProgress(line),
    );
  }
}
