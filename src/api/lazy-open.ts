/**
 * A database the API needs but must not create: the chain indexes (made by the indexers) and
 * keys.sqlite (made by the keys CLI). The API starts without them and opens each on first use once it
 * exists, trying again at most once per `retryMs` while it does not, so a missing file costs one failed
 * open per second, not one per request.
 */
import type { Clock } from './deps.js';

export class LazyOpen<T extends { close(): void }> {
  private value: T | null = null;
  private nextTry = 0;
  private lastError: string | null = null;

  constructor(
    private readonly open: () => T,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly retryMs = 1000,
  ) {}

  get(): T | null {
    if (this.value) return this.value;
    const now = this.clock.now();
    if (now < this.nextTry) return null;
    this.nextTry = now + this.retryMs;
    try {
      this.value = this.open();
      this.lastError = null;
    } catch (err) {
      // Report each distinct failure once, not once a second.
      const text = err instanceof Error ? err.message : String(err);
      if (text !== this.lastError) this.onError(err);
      this.lastError = text;
    }
    return this.value;
  }

  close(): void {
    this.value?.close();
    this.value = null;
  }
}
