/**
 * Derived scripts of recent wallets, so a repeated xpub query derives nothing. Keyed by the wallet's
 * fingerprint (wallet/fingerprint.ts: a digest of its canonical descriptors, never the key) and range.
 *
 * Bounded by the scripts it holds, not by entries: least recently used wallets go first once more than
 * `maxScripts` scripts are held. A derived script costs about 250 bytes here (its ≤ 34-byte script, its
 * 16-byte key, its path text, the objects), so the default bound of 100,000 scripts is about 25 MB: 50
 * wallets of 2×1000. Keys are kept, not hashed per query: 2,000 SHA-256 are ≈ 2 ms of a repeated query.
 * A wallet larger than the whole bound is derived for its request and not kept.
 */
import { scriptKey } from '../store/script-key.js';
import type { Descriptor } from '../wallet/descriptor.js';
import { deriveScripts, type DerivedScript, type RangeLimits } from '../wallet/derive.js';

/** A wallet's derived scripts and, in the same order, their script keys: what its index reads are by. */
export interface DerivedWallet {
  readonly scripts: readonly DerivedScript[];
  readonly keys: readonly Buffer[];
}

export const DEFAULT_CACHED_SCRIPTS = 100_000;

export class DerivationCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<string, DerivedWallet>();
  private held = 0;
  /** Wallets derived so far (cache misses): what tests and metrics read. */
  derivations = 0;

  constructor(readonly maxScripts = DEFAULT_CACHED_SCRIPTS) {}

  wallet(fingerprint: string, desc: Descriptor, limits: RangeLimits): DerivedWallet {
    const id = `${fingerprint}/${limits.range}`;
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      this.entries.set(id, hit);
      return hit;
    }
    const scripts = deriveScripts(desc, limits);
    const derived = { scripts, keys: scripts.map((s) => scriptKey(s.script)) };
    this.derivations += 1;
    if (scripts.length > this.maxScripts) return derived;
    this.entries.set(id, derived);
    this.held += scripts.length;
    for (const [oldest, wallet] of this.entries) {
      if (this.held <= this.maxScripts) break;
      this.entries.delete(oldest);
      this.held -= wallet.scripts.length;
    }
    return derived;
  }

  /** Scripts held now (at most maxScripts). */
  get size(): number {
    return this.held;
  }
}
