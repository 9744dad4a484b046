import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CoinDelta,
  Coins,
  formatCoinDelta,
  formatCoins,
  MAX_SATS,
  parseCoins,
  Sats,
  SatsSum,
  stringifyWithCoins,
} from '../../src/chain/amount.js';

describe('amounts', () => {
  it.each([
    [0n, '0.00000000'],
    [1n, '0.00000001'],
    [123n, '0.00000123'],
    [100_000_000n, '1.00000000'],
    [2_100_000_000_000_000n, '21000000.00000000'],
    [MAX_SATS, '84000000.00000000'],
  ])('formats %d sat as %s', (sats, text) => {
    expect(formatCoins(sats)).toBe(text);
  });

  // Issue 32: formatting no longer refuses sums past the supply (lifetime sums pass it); they format
  // exactly (exact-amounts.test.ts). Numbers are refused: amounts are bigints.
  it('rejects non-integers and negatives', () => {
    for (const bad of [-1n, -1, 0.5, 1, Number.NaN, Infinity]) {
      expect(() => formatCoins(bad as bigint)).toThrow(RangeError);
    }
  });

  it('writes Coins as an 8-decimal number literal inside JSON', () => {
    const text = stringifyWithCoins({ a: 'x\u0000coins:5', balance: new Coins(123n), n: [new Coins(0n)] });
    expect(text).toBe('{"a":"x\\u0000coins:5","balance":0.00000123,"n":[0.00000000]}');
    expect(JSON.parse(text).balance).toBe(0.00000123);
  });

  it('round-trips every amount in [0, 2.1e15]', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), (sats) => {
        const text = formatCoins(sats);
        expect(text).toMatch(/^\d+\.\d{8}$/);
        expect(parseCoins(text)).toBe(sats);
        const json = stringifyWithCoins({ balance: new Coins(sats) });
        expect(json).toBe(`{"balance":${text}}`);
        // The literal is also the closest double to the decimal value, as a JSON reader will see it.
        expect(JSON.parse(json).balance).toBe(Number(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    [MAX_SATS + 1n, '84000000.00000001'],
    [2n ** 53n + 12345n, '90071992.54753337'],
    [2n ** 64n, '184467440737.09551616'],
    [10n ** 30n + 7n, '10000000000000000000000.00000007'],
  ])('formats a sum past the supply and past 2^53, %d sat, as %s', (sats, text) => {
    expect(formatCoins(sats)).toBe(text);
    expect(stringifyWithCoins({ balance: new Coins(sats) })).toBe(`{"balance":${text}}`);
  });

  it.each([
    [-1n, '-0.00000001'],
    [-100_000_000n, '-1.00000000'],
    [-(2n ** 53n + 3n), '-90071992.54740995'],
    [0n, '0.00000000'],
  ])('formats the signed delta %d sat as %s, in JSON too', (sats, text) => {
    expect(formatCoinDelta(sats)).toBe(text);
    expect(stringifyWithCoins([new CoinDelta(sats)])).toBe(`[${text}]`);
  });

  it('writes Sats as the integer with every digit, signed, and leaves lookalike strings alone', () => {
    const value = { a: new Sats(9_007_199_254_753_337n), b: new Sats(-(2n ** 63n)), c: new Sats(0n), d: 'x\u0000sats:5' };
    expect(stringifyWithCoins(value)).toBe('{"a":9007199254753337,"b":-9223372036854775808,"c":0,"d":"x\\u0000sats:5"}');
    expect(() => new Sats(5 as unknown as bigint)).toThrow(RangeError);
    expect(() => new Coins(-1n)).toThrow(RangeError);
  });

  it('SatsSum adds numbers, bigints and decimal text exactly across 2^53', () => {
    const sum = new SatsSum();
    sum.add(Number.MAX_SAFE_INTEGER);
    sum.add(Number.MAX_SAFE_INTEGER);
    sum.add(3);
    sum.add('9007199254753337');
    sum.add(-5n);
    expect(sum.total).toBe(2n * BigInt(Number.MAX_SAFE_INTEGER) + 3n + 9_007_199_254_753_337n - 5n);
    expect(() => sum.add(2 ** 60)).toThrow(RangeError);
  });
});
