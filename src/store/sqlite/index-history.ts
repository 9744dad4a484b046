/**
 * The index's address history as one state, for the write path: off, being built for an index that had
 * none (history-build.ts), or kept by block sync from the next block on (history-store.ts). Every call
 * runs inside the caller's transaction; the state is read from meta each time, so a transaction that
 * rolls back leaves nothing to forget.
 */
import type { HistoryChange } from '../history-change.js';
import { StoreError } from '../errors.js';
import type { BlockToApply, HistoryBuildProgress, Tip } from '../index-model.js';
import type { BlockUndo } from '../undo.js';
import type { Db } from './db.js';
import { checkLinks, type IndexChain } from '../history-links.js';
import { HistoryBuild } from './history-build.js';
import { HistoryStore, type HistoryState } from './history-store.js';

export class IndexHistory {
  private readonly kept: HistoryStore;
  private readonly build: HistoryBuild;

  constructor(db: Db) {
    this.kept = new HistoryStore(db);
    this.build = new HistoryBuild(db, this.kept);
  }

  get state(): HistoryState {
    return this.kept.state;
  }

  /** Turns history on or off; on over blocks (or a snapshot load) it is built first. */
  set(on: boolean, holdsBlocks: boolean): void {
    if (on === (this.state !== 'off')) return;
    if (!on) {
      this.build.end();
      this.kept.drop();
    } else if (holdsBlocks) {
      this.kept.start('building');
      this.build.begin();
    } else this.kept.start('on');
  }

  /** A snapshot is about to fill the empty index: it holds no history, so history kept from it must be built. */
  snapshotLoading(): void {
    if (this.state !== 'on') return;
    this.kept.start('building');
    this.build.begin();
  }

  progress(tipHeight: number): HistoryBuildProgress | null {
    const state = this.state === 'building' ? this.build.state() : null;
    return state && { height: state.height, tipHeight };
  }

  /** What connectBlocks needs to collect history, while block sync keeps it. */
  connecting(): { nextTx: number } | undefined {
    return this.state === 'on' ? { nextTx: this.kept.nextTx() } : undefined;
  }

  commit(change: HistoryChange, undoFrom: number): void {
    this.kept.commit(change, undoFrom);
  }

  /**
   * Builds the next blocks' history; returns the tip's height when that reached it and history is kept
   * from now on, else null. Throws NOT_CONNECTED when they are not the next blocks of the build on the
   * index's chain, or no build is under way.
   */
  buildNext(blocks: readonly BlockToApply[], chain: IndexChain, undoDepth: number): number | null {
    const state = this.state === 'building' ? this.build.state() : null;
    const tip = chain.tip;
    if (!state || !tip) throw new StoreError('NOT_CONNECTED', 'no history build is under way');
    checkLinks(blocks, state, tip, chain);
    this.build.connect(blocks, tip.height - undoDepth + 1);
    if (blocks[blocks.length - 1]!.height < tip.height) return null;
    this.build.end();
    this.kept.built();
    return tip.height;
  }

  /** The tip block `height` is being disconnected with `undo`: undoes its history; returns the scripts it touched. */
  disconnect(height: number, undo: BlockUndo, below: Tip | null): Buffer[] {
    const state = this.state;
    if (state === 'on')
      return this.kept.rollback(
        height,
        undo.spent.map((c) => c.outpoint),
      );
    if (state === 'building' && this.build.state()!.height === height) this.build.disconnect(height, undo, below);
    // Summaries show no history while it is built: nothing to push.
    return [];
  }
}
