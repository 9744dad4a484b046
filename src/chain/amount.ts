/**
 * Amounts are integer satoshis end to end. A JavaScript `number` holds every amount exactly: the
 * largest supply of any chain (its module's maxMoneySats) must stay below Number.MAX_SAFE_INTEGER,
 * which is checked here at load. Coin units exist only as text, produced here, so no float carries money.
 */
import { CHAINS } from './registry.js';

export const SATS_PER_COIN = 100_000_000;

/** The largest amount any supported chain can hold (the largest MAX_MONEY of the registry). */
export const MAX_SATS = Math.max(...CHAINS.map((c) => c.maxMoneySats));
if (!Number.isSafeInteger(MAX_SATS)) throw new Error("a chain's money bound does not fit a number exactly");

export function isSats(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_SATS;
}

/** `123` → `"0.00000123"`, `0` → `"0.00000000"`: the decimal text of a satoshi amount in coins. */
export function formatCoins(sats: number): string {
  if (!isSats(sats)) throw new RangeError(`not a satoshi amount: ${String(sats)}`);
  const whole = Math.floor(sats / SATS_PER_COIN);
  const frac = sats - whole * SATS_PER_COIN;
  return `${whole}.${String(frac).padStart(8, '0')}`;
}

/** Inverse of formatCoins for text with at most 8 decimals; used by tests and the demo, never for money math. */
export function parseCoins(text: string): number {
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) throw new RangeError(`not a coin amount: ${text}`);
  const sats = Number(m[1]) * SATS_PER_COIN + Number((m[2] ?? '').padEnd(8, '0'));
  if (!isSats(sats)) throw new RangeError(`amount out of range: ${text}`);
  return sats;
}

// A sentinel no JSON string escape can produce: JSON.stringify writes U+0000 as "\u0000".
const MARK = '\u0000coins:';
const MARKED = /"\\u0000coins:(-?\d+)"/g;

/** Marks a satoshi amount that must be written into JSON as a coin number with exactly 8 decimals. */
export class Coins {
  constructor(readonly sats: number) {
    if (!isSats(sats)) throw new RangeError(`not a satoshi amount: ${String(sats)}`);
  }

  /** The sentinel stringifyWithCoins turns into the number (toJSON, not a replacer: JSON.stringify stays on its fast path for every other value). */
  toJSON(): string {
    return MARK + this.sats;
  }
}

/** A signed satoshi amount (a mempool delta), written like Coins with a leading `-` when negative. */
export class CoinDelta {
  constructor(readonly sats: number) {
    if (!isSats(Math.abs(sats))) throw new RangeError(`not a satoshi delta: ${String(sats)}`);
  }

  toJSON(): string {
    return MARK + this.sats;
  }
}

/** `-123` → `"-0.00000123"`; non-negative amounts as formatCoins. */
export function formatCoinDelta(sats: number): string {
  return sats < 0 ? `-${formatCoins(-sats)}` : formatCoins(sats);
}

/**
 * JSON.stringify, except that every `Coins` value is written as a number literal with exactly
 * 8 decimals (`0.00000123`, never `1.23e-7`). Node 20 lacks JSON.rawJSON, hence the sentinel.
 */
export function stringifyWithCoins(value: unknown): string {
  const text = JSON.stringify(value);
  return text.replace(MARKED, (_m, sats: string) => formatCoinDelta(Number(sats)));
}
