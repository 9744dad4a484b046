import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { historyStatus, mempoolOrder } from '../../src/electrum/status.js';

const tx = (n: number): string => n.toString(16).padStart(64, '0');

describe('Electrum status', () => {
  it('is null for an empty history', () => {
    expect(historyStatus([])).toBeNull();
  });

  it('hashes "tx_hash:height:" of every entry in order', () => {
    const history = [
      { txHash: tx(1), height: 100 },
      { txHash: tx(2), height: 0 },
    ];
    const expected = createHash('sha256')
      .update(`${tx(1)}:100:${tx(2)}:0:`)
      .digest('hex');
    expect(historyStatus(history)).toBe(expected);
    // Another order is another status: the order is part of what Electrum checks.
    expect(historyStatus([...history].reverse())).not.toBe(expected);
  });

  it('orders the mempool part by (−height, tx_hash)', () => {
    const pool = [
      { txHash: tx(3), height: -1 },
      { txHash: tx(5), height: 0 },
      { txHash: tx(4), height: 0 },
    ];
    expect(pool.sort(mempoolOrder)).toEqual([
      { txHash: tx(4), height: 0 },
      { txHash: tx(5), height: 0 },
      { txHash: tx(3), height: -1 },
    ]);
  });
});
