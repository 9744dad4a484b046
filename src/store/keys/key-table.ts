/**
 * The keys an API holds in memory, and the one way a presented key is checked against them, whichever
 * store they were loaded from (keys.sqlite: ../sqlite/key-cache.ts; PostgreSQL: ../postgres/key-mirror.ts).
 *
 * Lookup is by SHA-256 digest (a value the caller cannot steer without a preimage), then the stored and
 * computed digests are compared with crypto.timingSafeEqual, so no step's timing depends on how much
 * of a real key was guessed.
 */
import { timingSafeEqual } from 'node:crypto';
import { keyDigest } from './key-format.js';
import type { KeyCheck } from './key-verifier.js';
import { isTier, type Tier } from './tier.js';

/** A stored key as both stores read it. */
export interface KeyRow {
  id: string;
  digest: Buffer;
  tier: string;
  revoked_at: string | null;
}

interface HeldKey {
  readonly id: string;
  readonly tier: Tier;
  readonly digest: Buffer;
  readonly revoked: boolean;
}

export class KeyTable {
  static readonly EMPTY = new KeyTable([], 'no store');

  private readonly keys = new Map<string, HeldKey>();

  /** `source` names the store in the error about a row it cannot hold. */
  constructor(rows: readonly KeyRow[], source: string) {
    for (const row of rows) {
      if (!isTier(row.tier)) throw new Error(`${source}: key ${row.id} has an unknown tier`);
      this.keys.set(row.digest.toString('base64'), { id: row.id, tier: row.tier, digest: row.digest, revoked: row.revoked_at !== null });
    }
  }

  /** Number of keys held (revoked ones included). */
  get size(): number {
    return this.keys.size;
  }

  /** A well-formed key's check; `presented` must have passed isWellFormedKey. */
  check(presented: string): KeyCheck {
    const digest = keyDigest(presented);
    const found = this.keys.get(digest.toString('base64'));
    if (!found || !timingSafeEqual(found.digest, digest)) return { ok: false, reason: 'unknown' };
    if (found.revoked) return { ok: false, reason: 'revoked' };
    return { ok: true, id: found.id, tier: found.tier };
  }
}
