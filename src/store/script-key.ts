/**
 * Script key: the first 16 bytes of SHA-256(scriptPubKey). It names a script in `utxos` and `scripts`
 * (not the address string: `3…` and `M…` forms of one Litecoin P2SH hash are one script, and P2PK or
 * bare multisig outputs have no address at all).
 *
 * Why 16 bytes is plenty: an accidental collision among n scripts has probability ≈ n²/2¹²⁹ — for 10⁹
 * scripts about 10⁻²¹. Aiming at someone else's script is a second preimage, 2¹²⁸ work. The only
 * feasible attack is a birthday search (~2⁶⁴ hashes) for two scripts the attacker controls both of,
 * which can only merge the attacker's own two balances. Against 32 bytes, it saves 16 bytes in every
 * UTXO row and every aggregate row — about a fifth of the disk per UTXO.
 */
import { sha256Into } from '../chain/hash.js';

export const SCRIPT_KEY_BYTES = 16;

export function scriptKey(script: Uint8Array): Buffer {
  const key = Buffer.allocUnsafe(SCRIPT_KEY_BYTES);
  sha256Into(script, key, 0, SCRIPT_KEY_BYTES);
  return key;
}

/** Writes the script key into `buf` at `at`; returns where it ends. */
export function writeScriptKey(buf: Buffer, at: number, script: Uint8Array): number {
  return sha256Into(script, buf, at, SCRIPT_KEY_BYTES);
}

/**
 * The script key of a script known only by its SHA-256 (e.g. an Electrum scripthash, once un-reversed):
 * the key is a prefix of that digest, so no mapping table is needed.
 */
export function scriptKeyOfDigest(sha256: Uint8Array): Buffer {
  if (sha256.length !== 32) throw new RangeError('a SHA-256 digest is 32 bytes');
  return Buffer.from(sha256.subarray(0, SCRIPT_KEY_BYTES));
}

/** Script keys written one after another (the change feed's rows), as views of `blob`. */
export function splitScriptKeys(blob: Buffer): Buffer[] {
  const keys: Buffer[] = [];
  for (let at = 0; at + SCRIPT_KEY_BYTES <= blob.length; at += SCRIPT_KEY_BYTES) keys.push(blob.subarray(at, at + SCRIPT_KEY_BYTES));
  return keys;
}
