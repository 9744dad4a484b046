import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  NO_HISTORY,
  decodeChunk,
  decodeHead,
  encodeChunk,
  encodeEntries,
  encodeHead,
  headFromFormat1,
  headTotals,
  RowWriter,
  scanHead,
  type HistoryEntry,
} from '../../src/store/history-chunk.js';

const amount = fc.oneof(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), fc.bigInt({ min: 0n, max: (1n << 70n) - 1n }));
// Each of the three shapes an entry is written in: one output received, one coin spent, anything else.
const entry = fc.oneof(
  fc.record({ received: amount, sent: fc.constant(0n), funded: fc.constant(1), spent: fc.constant(0) }),
  fc.record({ received: fc.constant(0n), sent: amount, funded: fc.constant(0), spent: fc.constant(1) }),
  fc.record({ received: amount, sent: amount, funded: fc.nat(3000), spent: fc.nat(3000) }),
);
const entries = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 2 ** 40 }), entry }), { maxLength: 80 }).map((rows) => {
  let txNum = 0;
  return rows.map(({ gap, entry }, i): HistoryEntry => ({ txNum: (txNum += gap + (i > 0 ? 1 : 0)), ...entry }));
});

describe('history rows', () => {
  it('a head and a chunk read back exactly what was written, amounts past 2^53 included', () => {
    fc.assert(
      fc.property(entries, amount, amount, fc.nat(), fc.nat(), fc.nat(), (list, received, sent, txCount, funded, spent) => {
        const sealed = txCount === 0 ? NO_HISTORY : { txCount, received, sent, funded, spent };
        const head = { sealed, entries: list };
        expect(decodeHead(encodeHead(head))).toEqual(head);
        const sum = (pick: (e: HistoryEntry) => bigint): bigint => list.reduce((s, e) => s + pick(e), 0n);
        expect(headTotals(encodeHead(head))).toEqual({
          txCount: sealed.txCount + list.length,
          received: sealed.received + sum((e) => e.received),
          sent: sealed.sent + sum((e) => e.sent),
          funded: sealed.funded + list.reduce((s, e) => s + e.funded, 0),
          spent: sealed.spent + list.reduce((s, e) => s + e.spent, 0),
        });
        expect(decodeChunk(encodeChunk(list))).toEqual(list);
        // Appending to the bytes of a head is encoding the head with the entries in it.
        const cut = Math.floor(list.length / 2);
        const start = encodeHead({ sealed, entries: list.slice(0, cut) });
        const appended = Buffer.concat([start, encodeEntries(list.slice(cut), scanHead(start).last)]);
        expect(appended).toEqual(encodeHead(head));
        expect(scanHead(appended)).toEqual({ count: list.length, last: list.at(-1)?.txNum ?? 0 });
      }),
    );
  });

  it('writes the common entries in few bytes: one output received or one coin spent costs a number and an amount', () => {
    const chunk = encodeChunk([
      { txNum: 1_000_000, received: 150_000n, sent: 0n, funded: 1, spent: 0 },
      { txNum: 1_000_007, received: 0n, sent: 150_000n, funded: 0, spent: 1 },
      { txNum: 1_000_008, received: 5n, sent: 7n, funded: 2, spent: 1 },
    ]);
    // 4,000,000 + tag: 4 bytes, 150,000: 3 bytes; 28 + tag: 1 byte, 3 bytes; 4 + tag, 2, 1, 5, 7: 5 bytes
    expect(chunk.length).toBe(7 + 4 + 5);
    // A script without sealed chunks stores nothing before its entries; one with them, the byte 3 first.
    expect(encodeHead({ sealed: NO_HISTORY, entries: [] }).length).toBe(0);
    const sealed = { txCount: 64, received: 5n, sent: 0n, funded: 64, spent: 0 };
    expect([...encodeHead({ sealed, entries: [] })]).toEqual([3, 64, 5, 0, 64, 0]);
  });

  it('reads a head of format 1 (a leading sealed count, 0 when none) as the same head', () => {
    fc.assert(
      fc.property(entries, fc.boolean(), (list, withSealed) => {
        const sealed = withSealed ? { txCount: 70, received: 9n, sent: 4n, funded: 70, spent: 3 } : NO_HISTORY;
        const head = encodeHead({ sealed, entries: list });
        const format1 = withSealed
          ? Buffer.from([70, 9, 4, 70, 3, ...encodeChunk(list)])
          : Buffer.concat([Buffer.from([0]), encodeChunk(list)]);
        expect(headFromFormat1(format1)).toEqual(head);
      }),
    );
  });

  it('a view of a row being written keeps its bytes while the row grows', () => {
    const e = (txNum: number): HistoryEntry => ({ txNum, received: 1000n, sent: 0n, funded: 1, spent: 0 });
    const row = new RowWriter(encodeChunk([e(1)]));
    const before = row.bytes();
    const copy = Buffer.from(before);
    for (let n = 2; n < 200; n++) row.entry(e(n), n - 1);
    expect(before).toEqual(copy);
    expect(decodeChunk(row.bytes())).toEqual(Array.from({ length: 199 }, (_, i) => e(i + 1)));
  });

  it('refuses entries out of order, negative amounts, unknown tags and truncated rows', () => {
    const e = { received: 1n, sent: 0n, funded: 1, spent: 0 };
    expect(() =>
      encodeChunk([
        { txNum: 5, ...e },
        { txNum: 4, ...e },
      ]),
    ).toThrow(/out of order/);
    expect(() => encodeChunk([{ txNum: 1, ...e, received: -1n, funded: 2 }])).toThrow(/never negative/);
    expect(() => decodeChunk(Buffer.from([3, 0]))).toThrow(/unknown tag/);
    expect(() => decodeChunk(Buffer.from([0, 0x85]))).toThrow(/truncated/);
  });
});
