/**
 * The derivation pool's queue: one FIFO per caller, served round-robin a slice at a time, so every
 * caller with work waiting gets the same share of the threads however much another caller queued.
 * Slices are cut to about the same work, which makes the turns fair in time as well as in count.
 */

interface Entry<T> {
  readonly item: T;
  readonly work: number;
}

interface Line<T> {
  readonly entries: Entry<T>[];
  work: number;
}

export class FairQueue<T> {
  // A Map iterates in insertion order: a served caller is re-inserted at the back of the ring.
  private readonly lines = new Map<string, Line<T>>();

  push(caller: string, item: T, work: number): void {
    let line = this.lines.get(caller);
    if (!line) this.lines.set(caller, (line = { entries: [], work: 0 }));
    line.entries.push({ item, work });
    line.work += work;
  }

  /** The next caller's oldest item, or null when nothing waits. */
  next(): T | null {
    for (const [caller, line] of this.lines) {
      const entry = line.entries.shift()!;
      line.work -= entry.work;
      this.lines.delete(caller);
      if (line.entries.length > 0) this.lines.set(caller, line);
      return entry.item;
    }
    return null;
  }

  /** Drops `caller`'s items that `which` picks (a cancelled job's slices). */
  remove(caller: string, which: (item: T) => boolean): void {
    const line = this.lines.get(caller);
    if (!line) return;
    const kept = line.entries.filter((e) => !which(e.item));
    line.entries.splice(0, line.entries.length, ...kept);
    line.work = kept.reduce((n, e) => n + e.work, 0);
    if (kept.length === 0) this.lines.delete(caller);
  }

  /** Work queued by every caller. */
  get totalWork(): number {
    let total = 0;
    for (const line of this.lines.values()) total += line.work;
    return total;
  }

  queuedWork(caller: string): number {
    return this.lines.get(caller)?.work ?? 0;
  }

  /**
   * Work the threads do before the last of `work` more from `caller` is taken, served round-robin:
   * the caller's own queue first, and from every other caller as much as the caller's turns take,
   * which is at most what that caller has queued.
   */
  workBefore(caller: string, work: number): number {
    const own = this.queuedWork(caller) + work;
    let total = own;
    for (const [other, line] of this.lines) if (other !== caller) total += Math.min(line.work, own);
    return total;
  }
}
