import { describe, expect, it } from 'vitest';
import { feeHistogram } from '../../src/electrum/node/fee-histogram.js';
import { mempoolFees } from '../../src/serving/mempool-fees.js';
import { TtlCache } from '../../src/electrum/node/ttl-cache.js';

describe('feeHistogram (ElectrumX binning)', () => {
  it('an empty mempool is an empty histogram', () => {
    expect(feeHistogram([])).toEqual([]);
  });

  it('rates descend, floored to 0.1 sat/vB; a bin closes once it passes its size, each next 10% larger', () => {
    const txs = [
      { feeSats: 2_019, vsize: 100 }, // 20.19 → 20.1
      ...Array.from({ length: 60 }, () => ({ feeSats: 10_000, vsize: 1_000 })), // 10 sat/vB, 60,000 vB
      ...Array.from({ length: 50 }, () => ({ feeSats: 5_000, vsize: 1_000 })), // 5 sat/vB, 50,000 vB
      ...Array.from({ length: 120 }, () => ({ feeSats: 1_000, vsize: 1_000 })), // 1 sat/vB, 120,000 vB
    ];
    // 20.1 + 10: 60,100 vB, not yet 100,000; + 5: 110,100 > 100,000 → [5, 110,100], overshoot 10,100.
    // 1: 120,000 + 10,100 > 110,000 → [1, 120,000].
    expect(feeHistogram(txs)).toEqual([
      [5, 110_100],
      [1, 120_000],
    ]);
  });

  it('a lump at one rate larger than two bins closes the bin before it', () => {
    const txs = [
      { feeSats: 30_000, vsize: 1_000 },
      { feeSats: 250_000, vsize: 250_000 },
    ];
    expect(feeHistogram(txs)).toEqual([
      [30, 1_000],
      [1, 250_000],
    ]);
  });

  it('rates strictly descend and no transaction is counted twice', () => {
    const txs = Array.from({ length: 500 }, (_, i) => ({ feeSats: 1_000 + i * 37, vsize: 200 + (i % 7) * 50 }));
    const total = txs.reduce((s, t) => s + t.vsize, 0);
    const hist = feeHistogram(txs, 10_000);
    const rates = hist.map(([r]) => r);
    expect(rates).toEqual([...new Set(rates)].sort((a, b) => b - a));
    // What is left in an unfinished last bin is not reported (as ElectrumX).
    expect(hist.reduce((s, [, v]) => s + v, 0)).toBeLessThanOrEqual(total);
    expect(hist.length).toBeGreaterThan(5);
  });
});

describe('mempoolFees (getrawmempool true)', () => {
  it('reads fees.base (Core ≥ 0.19) or fee, in coins, vsize, weight and time; skips what it cannot read', () => {
    expect(
      mempoolFees({
        a: { vsize: 141, weight: 561, time: 1700000000, ancestorcount: 2, fees: { base: 0.0000282 } },
        b: { vsize: 200, fee: 0.00001 },
        c: { vsize: 'x', fee: 1 },
      }),
    ).toEqual([
      { txid: 'a', feeSats: 2820, vsize: 141, weight: 561, time: 1700000000, ancestors: 2 },
      { txid: 'b', feeSats: 1000, vsize: 200, weight: null, time: null, ancestors: null },
    ]);
    expect(mempoolFees(null)).toEqual([]);
  });
});

describe('TtlCache', () => {
  it('shares one load within its time, loads again after; a failed load is not kept', async () => {
    let t = 0;
    let loads = 0;
    const cache = new TtlCache<string, number>(1_000, () => t);
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual([1, 1]);
    t = 999;
    expect(await cache.get('k', load)).toBe(1);
    t = 1_000;
    expect(await cache.get('k', load)).toBe(2);
    await expect(cache.get('f', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await Promise.resolve();
    expect(await cache.get('f', load)).toBe(3);
  });
});
