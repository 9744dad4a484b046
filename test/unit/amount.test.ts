import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Coins, formatCoins, MAX_SATS, parseCoins, stringifyWithCoins } from '../../src/chain/amount.js';

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
});
