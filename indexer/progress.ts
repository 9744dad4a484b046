/** Catch-up progress line: at most one every `everyMs`, with rates measured since the previous line. */
export interface ProgressSample {
  height: number;
  nodeHeight: number;
  txs: number;
}

export interface ProgressLine {
  height: number;
  nodeHeight: number;
  percent: number;
  blocksPerSec: number;
  txPerSec: number;
  etaSeconds: number | null;
}

export class Progress {
  private last: { at: number; height: number; txs: number } | null = null;
  private txs = 0;

  constructor(
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records applied blocks; returns a line when one is due. */
  record(sample: ProgressSample): ProgressLine | null {
    this.txs += sample.txs;
    const at = this.now();
    if (!this.last) {
      this.last = { at, height: sample.height, txs: this.txs };
      return null;
    }
    const elapsed = (at - this.last.at) / 1000;
    if (elapsed * 1000 < this.everyMs) return null;
    const blocksPerSec = (sample.height - this.last.height) / elapsed;
    const txPerSec = (this.txs - this.last.txs) / elapsed;
    const remaining = Math.max(0, sample.nodeHeight - sample.height);
    this.last = { at, height: sample.height, txs: this.txs };
    return {
      height: sample.height,
      nodeHeight: sample.nodeHeight,
      percent: sample.nodeHeight > 0 ? Math.min(100, (100 * sample.height) / sample.nodeHeight) : 100,
      blocksPerSec,
      txPerSec,
      etaSeconds: blocksPerSec > 0 ? Math.round(remaining / blocksPerSec) : null,
    };
  }
}
