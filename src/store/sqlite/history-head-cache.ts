/**
 * The history heads the last commits wrote, kept in memory so the next batch need not read them again
 * (a busy script is touched by nearly every batch). Only an optimisation: the `history` table stays the
 * one source of truth, and the cache holds nothing it has not been shown to hold.
 *
 * A commit's heads are only staged, since the transaction they were written in may still roll back. The
 * next commit publishes them after checking that they landed: meta history_next_tx then reads what the
 * staging commit wrote there. A transaction that rolled back left the number before it, which every
 * staged batch holding an entry moved (it numbers at least one transaction), so the stage is dropped with
 * everything cached. Whatever else rewrites heads (a rollback, history dropped or started) forgets it all.
 */

/** A head as the table holds it. */
export interface CachedHead {
  readonly bytes: Buffer;
  /** Its entries, and the newest one's transaction number (0: none). */
  readonly count: number;
  readonly last: number;
}

/** Heads kept at most: the least recently written leave first. */
export const HEAD_CACHE_SIZE = 100_000;

export class HistoryHeadCache {
  private readonly heads = new Map<string, CachedHead>();
  private staged: { readonly nextTx: number; readonly heads: ReadonlyMap<string, CachedHead> } | null = null;

  constructor(private readonly capacity = HEAD_CACHE_SIZE) {}

  /**
   * Before a commit reads heads: publishes the previous commit's heads when meta history_next_tx is
   * `nextTx`, the number that commit wrote, and forgets everything otherwise.
   */
  settle(nextTx: number): void {
    const staged = this.staged;
    this.staged = null;
    if (staged === null) return;
    if (staged.nextTx !== nextTx) return this.forget();
    for (const [id, head] of staged.heads) {
      // Delete first: a Map keeps insertion order, which makes the oldest write the first to leave.
      this.heads.delete(id);
      this.heads.set(id, head);
    }
    for (const id of this.heads.keys()) {
      if (this.heads.size <= this.capacity) break;
      this.heads.delete(id);
    }
  }

  get(id: string): CachedHead | undefined {
    return this.heads.get(id);
  }

  /** The heads a commit wrote, with the history_next_tx it wrote: published by the next settle() that sees it. */
  stage(nextTx: number, heads: ReadonlyMap<string, CachedHead>): void {
    this.staged = { nextTx, heads };
  }

  forget(): void {
    this.heads.clear();
    this.staged = null;
  }

  get size(): number {
    return this.heads.size;
  }
}
