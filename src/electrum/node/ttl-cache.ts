/**
 * One answer per key shared for a few seconds: many wallets asking for the fee histogram or the relay fee
 * at once make one node call, not one each. Concurrent askers share the call in flight; a failed call is
 * not kept (the next ask tries again). The keys are bounded by lru-cache; the time an answer stays is
 * ours to judge, on the clock the caller gives (tests step it by hand).
 */
import { LRUCache } from 'lru-cache';

export class TtlCache<K extends NonNullable<unknown>, V> {
  private readonly held: LRUCache<K, { value: Promise<V>; until: number }>;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    maxKeys = 64,
  ) {
    this.held = new LRUCache({ max: maxKeys });
  }

  get(key: K, load: () => Promise<V>): Promise<V> {
    const t = this.now();
    const hit = this.held.get(key);
    if (hit && hit.until > t) return hit.value;
    const value = load();
    this.held.set(key, { value, until: t + this.ttlMs });
    value.catch(() => {
      if (this.held.peek(key)?.value === value) this.held.delete(key);
    });
    return value;
  }
}
