/**
 * Amounts are integer satoshis end to end, as `bigint`. A balance never passes a chain's supply
 * (MAX_MONEY < 2^53), but lifetime sums (what an address received over years) do, and a `number` would
 * round them silently. Coin units exist only as text, produced here from the integer's digits, so no
 * float carries money anywhere.
 */
import { CHAINS } from './registry.js';

export const SATS_PER_COIN = 100_000_000n;

/** The largest amount any supported chain can hold (the largest MAX_MONEY of the registry). */
export const MAX_SATS: bigint = BigInt(Math.max(...CHAINS.map((c) => c.maxMoneySats)));
if (MAX_SATS > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("a chain's money bound does not fit a number exactly");

/** A satoshi amount a chain can hold in one output or one balance: 0 ≤ value ≤ MAX_SATS (parsing's bound). */
export function isSats(value: unknown): value is bigint {
  return typeof value === 'bigint' && value >= 0n && value <= MAX_SATS;
}

/**
 * `123n` → `"0.00000123"`, `0n` → `"0.00000000"`: the decimal text of a satoshi amount in coins, for
 * any non-negative integer (a lifetime sum may pass the supply). Built from the decimal digits, never
 * through a float.
 */
export function formatCoins(sats: bigint): string {
  if (typeof sats !== 'bigint' || sats < 0n) throw new RangeError(`not a satoshi amount: ${String(sats)}`);
  return digitsToCoins(sats.toString());
}

/** `-123n` → `"-0.00000123"`; non-negative amounts as formatCoins. */
export function formatCoinDelta(sats: bigint): string {
  if (typeof sats !== 'bigint') throw new RangeError(`not a satoshi delta: ${String(sats)}`);
  return sats < 0n ? `-${digitsToCoins((-sats).toString())}` : digitsToCoins(sats.toString());
}

/** Decimal digits of a non-negative satoshi integer → coins with exactly 8 decimals. */
function digitsToCoins(digits: string): string {
  const padded = digits.length > 8 ? digits : digits.padStart(9, '0');
  const cut = padded.length - 8;
  return `${padded.slice(0, cut)}.${padded.slice(cut)}`;
}

/** Inverse of formatCoins for text with at most 8 decimals; used by tests and the harness, never for money math. */
export function parseCoins(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) throw new RangeError(`not a coin amount: ${text}`);
  const sats = BigInt(m[1]!) * SATS_PER_COIN + BigInt((m[2] ?? '').padEnd(8, '0'));
  if (!isSats(sats)) throw new RangeError(`amount out of range: ${text}`);
  return sats;
}

// A sentinel no JSON string escape can produce: JSON.stringify writes U+0000 as "\u0000".
const COINS = '\u0000coins:';
const SATS = '\u0000sats:';
const MARKED = /"\\u0000(coins|sats):(-?\d+)"/g;

/**
 * Marks a satoshi amount that must be written into JSON as a coin number with exactly 8 decimals. Any
 * non-negative integer: a sum over many scripts or over time may pass one chain's supply.
 */
export class Coins {
  constructor(readonly sats: bigint) {
    if (typeof sats !== 'bigint' || sats < 0n) throw new RangeError(`not a satoshi amount: ${String(sats)}`);
  }

  /** The sentinel stringifyWithCoins turns into the number (toJSON, not a replacer: JSON.stringify stays on its fast path for every other value). */
  toJSON(): string {
    return COINS + this.sats.toString();
  }
}

/** A signed satoshi amount (a mempool delta), written like Coins with a leading `-` when negative. */
export class CoinDelta {
  constructor(readonly sats: bigint) {
    if (typeof sats !== 'bigint') throw new RangeError(`not a satoshi delta: ${String(sats)}`);
  }

  toJSON(): string {
    return COINS + this.sats.toString();
  }
}

/**
 * Marks a (signed) satoshi integer written into JSON as an integer literal with all its digits:
 * JSON.stringify refuses a bigint, and a number would round past 2^53.
 */
export class Sats {
  constructor(readonly sats: bigint) {
    if (typeof sats !== 'bigint') throw new RangeError(`not a satoshi integer: ${String(sats)}`);
  }

  toJSON(): string {
    return SATS + this.sats.toString();
  }
}

/**
 * JSON.stringify, except that every `Coins`/`CoinDelta` value is written as a number literal with
 * exactly 8 decimals (`0.00000123`, never `1.23e-7`) and every `Sats` value as its integer literal.
 * Node 20 lacks JSON.rawJSON, hence the sentinels. The digits are carried as text throughout: no
 * float and no bigint arithmetic on the way out.
 */
export function stringifyWithCoins(value: unknown): string {
  const text = JSON.stringify(value);
  return text.replace(MARKED, (_m, kind: string, digits: string) => {
    if (kind === 'sats') return digits;
    return digits.startsWith('-') ? `-${digitsToCoins(digits.slice(1))}` : digitsToCoins(digits);
  });
}

/**
 * An exact running sum of satoshi amounts for bulk paths (one per row): adds numbers as numbers while the
 * sum stays a safe integer, and only spills into a bigint when it would not, so the common row costs no
 * BigInt. Values given as bigint or as decimal text (SQLite's spelling of a value past 2^53) are exact too.
 */
export class SatsSum {
  private small = 0;
  private big = 0n;

  add(value: number | bigint | string): void {
    if (typeof value === 'number') {
      const t = this.small + value;
      // A true sum past 2^53 rounds to a value that is not a safe integer: nothing inexact is kept.
      if (Number.isSafeInteger(t)) {
        this.small = t;
        return;
      }
      if (!Number.isSafeInteger(value)) throw new RangeError(`not an exact satoshi amount: ${value}`);
      this.big += BigInt(this.small) + BigInt(value);
      this.small = 0;
    } else {
      this.big += BigInt(value);
    }
  }

  get total(): bigint {
    return this.big + BigInt(this.small);
  }
}
