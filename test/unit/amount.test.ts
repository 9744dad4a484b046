import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Coins, formatCoins, MAX_SATS, parseCoins, stringifyWithCoins } from '../../src/chain/amount.js';

describe('amounts', () => {
  it.each([
    [0, '0.00000000'],
    [1, '0.00000001'],
    [123, '0.00000123'],
    [100_000_000, '1.00000000'],
    [2_100_000_000_000_000, '21000000.00000000'],
    [MAX_SATS, '84000000.00000000'],
  ])('formats %d sat as %s', (sats, text) => {
    expect(formatCoins(sats)).toBe(text);
  });

  it('rejects non-integers, negatives and values past the supply', () => {
    for (const bad of [-1, 0.5, MAX_SATS + 1, Number.NaN, Infinity]) {
      expect(() => formatCoins(bad)).toThrow(RangeError);
    }
  });

  it('writes Coins as an 8-decimal number literal inside JSON', () => {
    const text = stringifyWithCoins({ a: 'x\u0000coins:5', balance: new Coins(123), n: [new Coins(0)] });
    expect(text).toBe('{"a":"x\\u0000coins:5","balance":0.00000123,"n":[0.00000000]}');
    expect(JSON.parse(text).balance).toBe(0.00000123);
  });

  it('round-trips every amount in [0, 2.1e15]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_100_000_000_000_000 }), (sats) => {
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
