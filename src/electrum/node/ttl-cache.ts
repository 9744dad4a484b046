/**
 * One answer per key shared for a few seconds: many wallets asking for the fee histogram or the relay fee
 * at once make one node call, not one each. Concurrent askers share the call in flight; a failed call is
 * not kept (the next ask tries again).
 */
export class TtlCache<K, V> {
  private readonly held = new Map<K, { value: Promise<V>; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 64,
  ) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    const t = this.now();
    const hit = this.held.get(key);
    if (hit && hit.until > t) return hit.value;
    if (this.held.size >= this.maxKeys) this.held.clear();
    const value = load();
    this.held.set(key, { value, until: t + this.ttlMs });
    value.catch(() => {
      if (this.held.get(key)?.value === value) this.held.delete(key);
    });
    return value;
  }
}
