import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeChunk, decodeHead, encodeChunk, encodeHead, headTotals, type HistoryEntry } from '../../src/store/history-chunk.js';

const amount = fc.oneof(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), fc.bigInt({ min: 0n, max: (1n << 70n) - 1n }));
const entries = fc
  .array(fc.record({ gap: fc.integer({ min: 0, max: 2 ** 40 }), received: amount, sent: amount }), { maxLength: 80 })
  .map((rows) => {
    let txNum = 0;
    return rows.map(({ gap, received, sent }, i): HistoryEntry => ({ txNum: (txNum += gap + (i > 0 ? 1 : 0)), received, sent }));
  });

describe('history rows', () => {
  it('a head and a chunk read back exactly what was written, amounts past 2^53 included', () => {
    fc.assert(
      fc.property(entries, amount, amount, fc.nat(), fc.nat(), fc.nat(), (list, received, sent, txCount, funded, spent) => {
        const head = { totals: { txCount, received, sent, funded, spent }, entries: list };
        expect(decodeHead(encodeHead(head))).toEqual(head);
        expect(headTotals(encodeHead(head))).toEqual(head.totals);
        expect(decodeChunk(encodeChunk(list))).toEqual(list);
      }),
    );
  });

  it('writes small values in few bytes: a typical entry costs 6 bytes, not a txid', () => {
    const chunk = encodeChunk([
      { txNum: 1_000_000, received: 150_000n, sent: 0n },
      { txNum: 1_000_007, received: 0n, sent: 150_000n },
    ]);
    // format byte, then (3 + 3 + 1) and (1 + 1 + 3)
    expect(chunk.length).toBe(1 + 7 + 5);
  });

  it('refuses entries out of order, negative amounts, unknown formats and truncated rows', () => {
    expect(() =>
      encodeChunk([
        { txNum: 5, received: 0n, sent: 0n },
        { txNum: 4, received: 0n, sent: 0n },
      ]),
    ).toThrow(/out of order/);
    expect(() => encodeChunk([{ txNum: 1, received: -1n, sent: 0n }])).toThrow(/never negative/);
    expect(() => decodeChunk(Buffer.from([2, 0, 0, 0]))).toThrow(/unknown format/);
    expect(() => decodeChunk(Buffer.from([1, 0x85]))).toThrow(/truncated/);
  });
});
