/**
 * Derived scripts of recent wallets, so a repeated xpub query derives nothing; the rest are derived by
 * the derivation pool (derivation-pool.ts), off the event loop. Keyed by the wallet's fingerprint
 * (wallet/fingerprint.ts: a digest of its canonical descriptors, never the key) and range; a wallet
 * asked for again while it is being derived waits for that derivation instead of starting another.
 *
 * Bounded by the scripts it holds, not by entries: least recently used wallets go first once more than
 * `maxScripts` scripts are held. A derived script costs about 250 bytes here (its ≤ 34-byte script, its
 * 16-byte key, its path text, the objects), so the default bound of 100,000 scripts is about 25 MB: 50
 * wallets of 2×1000. Keys are kept, not hashed per query. A wallet larger than the whole bound is
 * derived for its request and not kept.
 */
import { LRUCache } from 'lru-cache';
import type { ServingError } from '../serving/errors.js';
import type { DerivedWallet } from './derivation-job.js';
import { defaultPool, type DerivationPool, type WalletJob } from './derivation-pool.js';

export const DEFAULT_CACHED_SCRIPTS = 100_000;

export class DerivationCache {
  private readonly entries: LRUCache<string, DerivedWallet>;
  private readonly inFlight = new Map<string, Promise<DerivedWallet>>();
  /** Wallets derived so far (cache misses): what tests and metrics read. */
  derivations = 0;

  constructor(
    readonly pool: DerivationPool = defaultPool(),
    readonly maxScripts = DEFAULT_CACHED_SCRIPTS,
  ) {
    // A wallet of no scripts still takes a slot: lru-cache sizes must be positive.
    this.entries = new LRUCache({ maxSize: maxScripts, sizeCalculation: (w) => Math.max(1, w.scripts.length) });
  }

  /** Null when the wallet can be answered now (held, being derived, or queued in time); else the pool's refusal. */
  admit(caller: string, fingerprint: string, job: WalletJob): ServingError | null {
    const id = `${fingerprint}/${job.range}`;
    if (this.entries.has(id) || this.inFlight.has(id)) return null;
    return this.pool.admit(caller, job.work);
  }

  async wallet(caller: string, fingerprint: string, job: WalletJob): Promise<DerivedWallet> {
    const id = `${fingerprint}/${job.range}`;
    const hit = this.entries.get(id);
    if (hit) return hit;
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.pool.derive(caller, job).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
      this.derivations += 1;
      this.keep(id, pending);
    }
    return pending;
  }

  /** Scripts held now (at most maxScripts). */
  get size(): number {
    return this.entries.calculatedSize;
  }

  private keep(id: string, pending: Promise<DerivedWallet>): void {
    pending.then(
      // A wallet larger than the whole bound is not kept (lru-cache refuses it).
      (derived) => {
        if (!this.entries.has(id)) this.entries.set(id, derived);
      },
      // The request that waits for it answers the failure.
      () => undefined,
    );
  }
}
