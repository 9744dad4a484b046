/**
 * Catch-up progress: at most one line every `everyMs`, with rates measured since the previous line.
 *
 * Blocks differ a thousandfold in size (early blocks hold one transaction, recent ones thousands), so a
 * percentage of heights says little about the time left. The line weighs progress by transactions the
 * way Bitcoin Core's own `progress=` does: the node reports `verificationprogress` (its validated
 * transactions over its estimate of all transactions to date) and, through getchaintxstats, the chain's
 * transaction count at any block, so the indexed share of the chain is
 *   txcount(our tip) / txcount(node tip) × verificationprogress.
 * When the node cannot tell (an old node, a block no longer in its chain) the line falls back to heights.
 */

export interface ProgressSample {
  height: number;
  nodeHeight: number;
  /** Transactions in the blocks applied since the previous sample. */
  txs: number;
}

/** Rates since the previous line, and where the index and the node stand. */
export interface ProgressWindow {
  height: number;
  nodeHeight: number;
  blocksPerSec: number;
  txPerSec: number;
}

/** Where the index stands in the chain's transactions, as the node counts them. */
export interface ChainTxPosition {
  /** Transactions in the chain up to and including our tip (Core's nChainTx of that block). */
  indexedTxs: number;
  /** Transactions in the chain up to and including the node's tip. */
  nodeTxs: number;
  /** The node's getblockchaininfo `verificationprogress`, 0..1. */
  nodeProgress: number;
}

export interface ProgressLine extends ProgressWindow {
  /** Share of the chain indexed, 0..100: by transactions when the node told us, else by heights. */
  percent: number;
  basis: 'transactions' | 'blocks';
  /** The node's own verification progress, 0..100 (transactions basis only). */
  nodePercent: number | null;
  /** Seconds until the index reaches the node's tip at the current rate; null while nothing moves. */
  etaSeconds: number | null;
}

export class Progress {
  private last: { at: number; height: number; txs: number } | null = null;
  private txs = 0;

  constructor(
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records applied blocks; returns the window's rates when a line is due. */
  record(sample: ProgressSample): ProgressWindow | null {
    this.txs += sample.txs;
    const at = this.now();
    if (!this.last) {
      this.last = { at, height: sample.height, txs: this.txs };
      return null;
    }
    const elapsed = (at - this.last.at) / 1000;
    if (elapsed * 1000 < this.everyMs) return null;
    const window = {
      height: sample.height,
      nodeHeight: sample.nodeHeight,
      blocksPerSec: (sample.height - this.last.height) / elapsed,
      txPerSec: (this.txs - this.last.txs) / elapsed,
    };
    this.last = { at, height: sample.height, txs: this.txs };
    return window;
  }
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The line for a window: by transactions when `position` is known, by heights otherwise. */
export function progressLine(window: ProgressWindow, position: ChainTxPosition | null): ProgressLine {
  if (position !== null && position.nodeTxs > 0 && Number.isFinite(position.nodeProgress)) {
    const remainingTxs = Math.max(0, position.nodeTxs - position.indexedTxs);
    const nodeProgress = clamp01(position.nodeProgress);
    return {
      ...window,
      percent: 100 * clamp01(position.indexedTxs / position.nodeTxs) * nodeProgress,
      basis: 'transactions',
      nodePercent: 100 * nodeProgress,
      etaSeconds: window.txPerSec > 0 ? Math.round(remainingTxs / window.txPerSec) : null,
    };
  }
  const remainingBlocks = Math.max(0, window.nodeHeight - window.height);
  return {
    ...window,
    percent: window.nodeHeight > 0 ? Math.min(100, (100 * window.height) / window.nodeHeight) : 100,
    basis: 'blocks',
    nodePercent: null,
    etaSeconds: window.blocksPerSec > 0 ? Math.round(remainingBlocks / window.blocksPerSec) : null,
  };
}

/** Whole seconds as h:mm:ss (hours unbounded: 100:00:00 is four days and a bit). */
export function formatHms(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** The human part of a progress line (`what`: catching up, building history); the same figures go into the log record's fields. */
export function describeProgress(line: ProgressLine, what = 'catching up'): string {
  const share =
    line.basis === 'transactions'
      ? `${line.percent.toFixed(2)}% of transactions${line.nodePercent !== null && line.nodePercent < 99.99 ? `; node ${line.nodePercent.toFixed(2)}% verified` : ''}`
      : `${line.percent.toFixed(2)}% of blocks`;
  return (
    `${what}: ${line.height}/${line.nodeHeight} (${share}), ` +
    `${line.blocksPerSec.toFixed(1)} blocks/s, ${line.txPerSec.toFixed(0)} tx/s, ` +
    `ETA ${line.etaSeconds === null ? '?' : formatHms(line.etaSeconds)}`
  );
}
