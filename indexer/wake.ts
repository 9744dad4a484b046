/**
 * Wakes the sync loop. ZMQ notifications and timers only say "look again": the loop always compares
 * its tip with the node's chain, so a lost or duplicated notification costs nothing (docs/architecture.md, rule 3).
 */
export class Wake {
  private pending = false;
  private resolve: (() => void) | null = null;

  notify(): void {
    this.pending = true;
    this.resolve?.();
  }

  /** Resolves on notify(), after `ms`, or when `signal` aborts — whichever comes first. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.pending || signal.aborted) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.resolve = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.resolve = done;
    });
    this.pending = false;
  }
}
