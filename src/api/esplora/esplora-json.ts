/**
 * JSON as Blockstream's electrs writes it (serde_json): compact, and floating-point numbers in ryu's
 * spelling, which differs from JavaScript's: an integral value keeps `.0` (`1.0`), and exponent form is
 * used below 1e-5 and from 1e16 on, without a `+` (`1e16`, `4.6565423739069247e-10`). The digits are the
 * same shortest round-trip digits JavaScript finds. Pure.
 */

/** ryu's text for `x` (serde_json writes NaN and infinities as null). */
export function f64Text(x: number): string {
  // toExponential() without an argument gives the shortest digits that read back as `x`.
  return ryuText(x, (v) => v.toExponential(), F64_LAYOUT);
}

/**
 * ryu's text for the f32 nearest `x` (electrs's fee histogram rates): its shortest digits that read back
 * as that f32, not as the f64, and ryu's f32 layout, which keeps the plain form to 13 digits and from
 * 1e-6.
 */
export function f32Text(x: number): string {
  const f = Math.fround(x);
  return ryuText(
    f,
    (v) => {
      for (let p = 1; p < 9; p++) {
        const text = v.toExponential(p - 1);
        if (Math.fround(Number(text)) === v) return text;
      }
      return v.toExponential(8);
    },
    F32_LAYOUT,
  );
}

/** The decimal point positions (counted from the first digit) written without an exponent. */
interface Layout {
  readonly maxPoint: number;
  readonly minPoint: number;
}
const F64_LAYOUT: Layout = { maxPoint: 16, minPoint: -4 };
const F32_LAYOUT: Layout = { maxPoint: 13, minPoint: -5 };

function ryuText(x: number, shortest: (abs: number) => string, { maxPoint, minPoint }: Layout): string {
  if (!Number.isFinite(x)) return 'null';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exp] = shortest(Math.abs(x)).split('e') as [string, string];
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  const n = digits.length;
  const point = Number(exp) + 1;
  if (n <= point && point <= maxPoint) return `${sign}${digits}${'0'.repeat(point - n)}.0`;
  if (0 < point && point <= maxPoint) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (minPoint <= point && point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
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

/** An f32 field (electrs's fee histogram rates): written by f32Text. */
export class F32 {
  constructor(readonly value: number) {}

  toJSON(): string {
    return MARK + f32Text(this.value);
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
