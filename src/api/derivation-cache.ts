/**
 * Derived scripts of recent wallets, so a repeated xpub query derives nothing. Keyed by the wallet's
 * fingerprint (wallet/fingerprint.ts: a digest of its canonical descriptors, never the key) and range.
 *
 * Bounded by the scripts it holds, not by entries: least recently used wallets go first once more than
 * `maxScripts` scripts are held. A derived script costs about 200 bytes here (its ≤ 34-byte script, its
 * path text, the object), so the default bound of 100,000 scripts is about 20 MB: 50 wallets of 2×1000.
 * A wallet larger than the whole bound is derived for its request and not kept.
 */
import type { Descriptor } from '../wallet/descriptor.js';
import { deriveScripts, type DerivedScript, type RangeLimits } from '../wallet/derive.js';

export const DEFAULT_CACHED_SCRIPTS = 100_000;

export class DerivationCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<string, readonly DerivedScript[]>();
  private held = 0;
  /** Wallets derived so far (cache misses): what tests and metrics read. */
  derivations = 0;

  constructor(readonly maxScripts = DEFAULT_CACHED_SCRIPTS) {}

  scripts(fingerprint: string, desc: Descriptor, limits: RangeLimits): readonly DerivedScript[] {
    const id = `${fingerprint}/${limits.range}`;
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      this.entries.set(id, hit);
      return hit;
    }
    const derived = deriveScripts(desc, limits);
    this.derivations += 1;
    if (derived.length > this.maxScripts) return derived;
    this.entries.set(id, derived);
    this.held += derived.length;
    for (const [oldest, scripts] of this.entries) {
      if (this.held <= this.maxScripts) break;
      this.entries.delete(oldest);
      this.held -= scripts.length;
    }
    return derived;
  }

  /** Scripts held now (at most maxScripts). */
  get size(): number {
    return this.held;
  }
}
