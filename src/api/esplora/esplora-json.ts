/**
 * JSON as Blockstream's electrs writes it (serde_json): compact, and floating-point numbers in ryu's
 * spelling, which differs from JavaScript's: an integral value keeps `.0` (`1.0`), and exponent form is
 * used below 1e-5 and from 1e16 on, without a `+` (`1e16`, `4.6565423739069247e-10`). The digits are the
 * same shortest round-trip digits JavaScript finds. Pure.
 */

/** ryu's text for `x` (serde_json writes NaN and infinities as null). */
export function f64Text(x: number): string {
  if (!Number.isFinite(x)) return 'null';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest digits that read back as `x`.
  const [mantissa, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const n = digits.length;
  /** Where the decimal point goes, counted from the first digit. */
  const point = Number(exp) + 1;
  if (n <= point && point <= 16) return `${sign}${digits}${'0'.repeat(point - n)}.0`;
  if (0 < point && point <= 16) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (-5 < point && point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  return `${sign}${digits[0]}${n > 1 ? `.${digits.slice(1)}` : ''}e${point - 1}`;
}

/** A private-use character JSON.stringify leaves as it is: marks a number to be written in ryu's spelling. */
const MARK = '\uE000f64:';
const MARKED = new RegExp(`"${MARK}([^"]*)"`, 'g');

/** A float field (difficulty, fee rates): written by f64Text. */
export class F64 {
  constructor(readonly value: number) {}

  toJSON(): string {
    return MARK + f64Text(this.value);
  }
}

/** A u64 (a lifetime sum of satoshis may pass 2^53): written exactly. */
export class U64 {
  constructor(readonly value: bigint) {}

  toJSON(): string {
    return MARK + this.value.toString();
  }
}

export function stringifyEsplora(value: unknown): string {
  return JSON.stringify(value).replace(MARKED, (_m, text: string) => text);
}
