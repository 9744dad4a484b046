/**
 * Checks a presented x-api-key. Lookup is by SHA-256 digest (an index probe on a value the caller
 * cannot steer without a preimage), then the stored and computed digests are compared with
 * crypto.timingSafeEqual, so no step's timing depends on how much of a real key was guessed.
 * Every call queries the store (no cache): a revocation is seen by the next request.
 */
import { timingSafeEqual } from 'node:crypto';
import { isWellFormedKey, keyDigest } from './key-format.js';
import type { StoredKey } from './key-store.js';
import type { Tier } from './tier.js';

export type KeyFailure = 'malformed' | 'unknown' | 'revoked';
export type KeyCheck = { ok: true; id: string; tier: Tier } | { ok: false; reason: KeyFailure };

export interface KeyVerifier {
  verify(presented: string): KeyCheck;
}

/** The part of KeyStore the verifier needs. */
export interface KeyLookup {
  findByDigest(digest: Buffer): StoredKey | null;
}

export class StoreKeyVerifier implements KeyVerifier {
  /** `lookup` returns null while keys.sqlite does not exist yet: every key is then unknown. */
  constructor(private readonly lookup: () => KeyLookup | null) {}

  verify(presented: string): KeyCheck {
    if (!isWellFormedKey(presented)) return { ok: false, reason: 'malformed' };
    const store = this.lookup();
    if (!store) return { ok: false, reason: 'unknown' };
    const digest = keyDigest(presented);
    const found = store.findByDigest(digest);
    if (!found || found.digest.length !== digest.length || !timingSafeEqual(found.digest, digest)) {
      return { ok: false, reason: 'unknown' };
    }
    if (found.revokedAt !== null) return { ok: false, reason: 'revoked' };
    return { ok: true, id: found.id, tier: found.tier };
  }
}
