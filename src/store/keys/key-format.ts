/**
 * API key format: `asum_` followed by 43 base62 characters encoding 32 random bytes (256 bits; the
 * spec asks for at least 128). Base62 keeps the key one "word" for double-click copy and free of
 * characters that need quoting in shells, headers or URLs.
 *
 *   asum_4fT0b9Qk2LzX1cVw8mN3pR7sY6uH5jD0aKeG2iBq9oW
 *   ^^^^^ fixed prefix (addrsum), lets secret scanners and people recognise the key
 *
 * Only SHA-256(key text) is stored. A fast hash is right here (unlike passwords): the input has 256 bits
 * of entropy, so there is nothing to brute-force, and a slow hash would cost every request.
 */
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'asum_';
export const KEY_RANDOM_BYTES = 32;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** ceil(256 / log2(62)) = 43 characters always suffice; shorter encodings are left-padded with '0'. */
export const KEY_BODY_LENGTH = Math.ceil((KEY_RANDOM_BYTES * 8) / Math.log2(62));
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);

export function base62(bytes: Uint8Array, length: number): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  if (out.length > length) throw new RangeError('value does not fit the requested length');
  return out.padStart(length, '0');
}

/** A new random key; the caller shows it once and stores only keyDigest(key). */
export function generateKey(): string {
  return KEY_PREFIX + base62(randomBytes(KEY_RANDOM_BYTES), KEY_BODY_LENGTH);
}

/** Cheap shape check before any lookup; also bounds what reaches the hash and the database. */
export function isWellFormedKey(value: string): boolean {
  return value.length === KEY_PREFIX.length + KEY_BODY_LENGTH && KEY_PATTERN.test(value);
}

export function keyDigest(key: string): Buffer {
  return hash('sha256', key, 'buffer') as unknown as Buffer;
}

/** Public key id shown by `keys list` and written to logs: random, unrelated to the secret. */
export function generateKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}
