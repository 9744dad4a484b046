import { describe, expect, it } from 'vitest';
import { describeProgress, formatHms, Progress, progressLine, type ProgressWindow } from '../../indexer/progress.js';

describe('Progress windows', () => {
  it('yields nothing for the first sample, then one window per interval with rates since the last', () => {
    let now = 0;
    const p = new Progress(5000, () => now);
    expect(p.record({ height: 100, nodeHeight: 1000, txs: 50 })).toBeNull();
    now = 4999;
    expect(p.record({ height: 150, nodeHeight: 1000, txs: 500 })).toBeNull();
    now = 10_000;
    expect(p.record({ height: 200, nodeHeight: 1000, txs: 500 })).toEqual({
      height: 200,
      nodeHeight: 1000,
      blocksPerSec: 10,
      txPerSec: 100,
    });
    now = 20_000;
    expect(p.record({ height: 210, nodeHeight: 1000, txs: 2000 })).toEqual({
      height: 210,
      nodeHeight: 1000,
      blocksPerSec: 1,
      txPerSec: 200,
    });
  });
});

describe('progressLine', () => {
  const window: ProgressWindow = { height: 500_000, nodeHeight: 1_000_000, blocksPerSec: 50, txPerSec: 2000 };

  it("weighs by transactions with the node's verificationprogress, not by height", () => {
    // Half the heights but a tenth of the transactions: the early chain is nearly empty.
    const line = progressLine(window, { indexedTxs: 100_000_000, nodeTxs: 1_000_000_000, nodeProgress: 0.999 });
    expect(line.basis).toBe('transactions');
    expect(line.percent).toBeCloseTo(9.99, 6);
    expect(line.nodePercent).toBeCloseTo(99.9, 6);
    // 900 million transactions left at 2000 tx/s.
    expect(line.etaSeconds).toBe(450_000);
  });

  it('falls back to heights when the node cannot tell', () => {
    const line = progressLine(window, null);
    expect(line).toMatchObject({ basis: 'blocks', percent: 50, nodePercent: null, etaSeconds: 10_000 });
    expect(progressLine(window, { indexedTxs: 1, nodeTxs: 0, nodeProgress: 1 }).basis).toBe('blocks');
  });

  it('has no ETA while nothing moves, and never passes 100%', () => {
    expect(progressLine({ ...window, txPerSec: 0 }, { indexedTxs: 5, nodeTxs: 10, nodeProgress: 1 }).etaSeconds).toBeNull();
    expect(progressLine({ ...window, blocksPerSec: 0 }, null).etaSeconds).toBeNull();
    expect(progressLine(window, { indexedTxs: 12, nodeTxs: 10, nodeProgress: 1.2 }).percent).toBe(100);
  });
});

describe('formatHms and the message', () => {
  it.each([
    [0, '0:00:00'],
    [59.6, '0:01:00'],
    [3599, '0:59:59'],
    [3600, '1:00:00'],
    [450_000, '125:00:00'],
  ])('%s s → %s', (seconds, text) => {
    expect(formatHms(seconds)).toBe(text);
  });

  it('reads as a sentence with the ETA in h:mm:ss', () => {
    const window: ProgressWindow = { height: 500_000, nodeHeight: 1_000_000, blocksPerSec: 50, txPerSec: 2000 };
    expect(describeProgress(progressLine(window, { indexedTxs: 1e8, nodeTxs: 1e9, nodeProgress: 0.5 }))).toBe(
      'catching up: 500000/1000000 (5.00% of transactions; node 50.00% verified), 50.0 blocks/s, 2000 tx/s, ETA 125:00:00',
    );
    expect(describeProgress(progressLine(window, { indexedTxs: 1e8, nodeTxs: 1e9, nodeProgress: 1 }))).toBe(
      'catching up: 500000/1000000 (10.00% of transactions), 50.0 blocks/s, 2000 tx/s, ETA 125:00:00',
    );
    expect(describeProgress(progressLine({ ...window, blocksPerSec: 0 }, null))).toBe(
      'catching up: 500000/1000000 (50.00% of blocks), 0.0 blocks/s, 2000 tx/s, ETA ?',
    );
  });
});
