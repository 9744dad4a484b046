/**
 * Rust's parsing of the numbers in a path or query (`str::parse`), which decides what electrs answers to
 * odd input: `+7` and `007` are 7, anything past the type's range is an error. Pure.
 */

/** An unsigned integer of `bits` bits as Rust parses it: an optional `+`, then decimal digits; null where Rust errs. */
export function rustUint(text: string, bits: 32 | 64): bigint | null {
  if (!/^\+?\d+$/.test(text)) return null;
  const n = BigInt(text.startsWith('+') ? text.slice(1) : text);
  return n < 1n << BigInt(bits) ? n : null;
}

/** An f64 as Rust parses it: a decimal with an optional sign and exponent, or inf, infinity, nan; null where Rust errs. */
export function rustF64(text: string): number | null {
  if (!/^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i.test(text)) return null;
  return Number(text.replace(/^([+-]?)inf(inity)?$/i, '$1Infinity'));
}
