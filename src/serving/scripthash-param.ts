/**
 * The `{hash}` of the scripthash routes and the WebSocket's `scripthashes`, read one way so that all of
 * them refuse a bad one alike (INVALID_SCRIPTHASH) and key the same script.
 */
import { sha256Into, toDisplayHex } from '../chain/hash.js';
import { scriptKeyOfDigest } from '../store/script-key.js';
import { ServingError } from './errors.js';

const ELECTRUM_HASH = /^[0-9a-fA-F]{64}$/;

/** The script key an Electrum scripthash names; INVALID_SCRIPTHASH unless it is 64 hex digits. */
export function parseScripthash(text: string): { hash: string; key: Buffer } {
  if (!ELECTRUM_HASH.test(text)) {
    throw new ServingError(
      'INVALID_SCRIPTHASH',
      'a scripthash is the SHA-256 of the scriptPubKey as 64 hex digits, byte-reversed (Electrum)',
    );
  }
  const digest = Buffer.from(text, 'hex').reverse();
  return { hash: text.toLowerCase(), key: scriptKeyOfDigest(digest) };
}

/** Electrum's name for a script (parseScripthash reads it back): SHA-256, byte-reversed, hex. */
export function scripthashOf(script: Uint8Array): string {
  const digest = Buffer.allocUnsafe(32);
  sha256Into(script, digest, 0);
  return toDisplayHex(digest);
}
