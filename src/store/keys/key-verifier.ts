/**
 * What checking a presented x-api-key answers. The API's implementation is KeyCache (key-cache.ts):
 * keys held in memory, reloaded when keys.sqlite changes, so a revocation is seen by the next request.
 */
import type { Tier } from './tier.js';

export type KeyFailure = 'malformed' | 'unknown' | 'revoked';
export type KeyCheck = { ok: true; id: string; tier: Tier } | { ok: false; reason: KeyFailure };

export interface KeyVerifier {
  verify(presented: string): KeyCheck;
}
