/**
 * The index's address history as one state, for the PostgreSQL write path, as the SQLite engine's
 * (../sqlite/index-history.ts): off, being built for an index that had none (history-build.ts), or kept
 * by block sync from the next block on (history-rows.ts). Every call runs inside the caller's
 * transaction and reads the state from the `state` row, so a transaction that rolls back leaves nothing
 * to forget; only whether history is kept is held in memory too, for the mempool view, and read again
 * (load) after every call that may change it.
 *
 *   state.history: 0 off, 1 kept, 2 being built; history_secret: the page cursors' key, made when it starts.
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import type { HistoryChange } from '../history-change.js';
import { checkLinks } from '../history-links.js';
import type { BlockToApply, HistoryBuildProgress, Tip } from '../index-model.js';
import type { BlockUndo } from '../undo.js';
import { HistoryBuild } from './history-build.js';
import { HistoryRows } from './history-rows.js';
import type { Queryable } from './pg-pool.js';

export type HistoryState = 'off' | 'building' | 'on';
/** state.history's codes. */
export const HISTORY_CODES = { off: 0, on: 1, building: 2 } as const;

export class PgHistory {
  private readonly rows: HistoryRows;
  private readonly build: HistoryBuild;
  private on = false;

  constructor(
    private readonly client: Queryable,
    private readonly schema: string,
  ) {
    this.rows = new HistoryRows(client, schema);
    this.build = new HistoryBuild(client, schema, this.rows);
  }

  /** Reads whether history is kept: at open, and after each call that may have changed it. */
  async load(): Promise<void> {
    this.on = (await this.state()) === 'on';
  }

  /** Runs a call that may change whether history is kept, then reads it again (committed or rolled back). */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      // A lost connection fails this read too: the writer says so on its next call.
      await this.load().catch(() => undefined);
    }
  }

  /** Whether history is kept (as of the last load): the mempool view keeps its history rows then. */
  get kept(): boolean {
    return this.on;
  }

  async state(): Promise<HistoryState> {
    const { rows } = await this.client.query<{ history: number }>(`SELECT history FROM ${this.schema}.state`);
    const code = rows[0]?.history;
    return code === HISTORY_CODES.on ? 'on' : code === HISTORY_CODES.building ? 'building' : 'off';
  }

  /** Turns history on or off; on over blocks it is built first. Off forgets it, the mempool's part too. */
  async set(on: boolean, holdsBlocks: boolean): Promise<void> {
    if (on === ((await this.state()) !== 'off')) return;
    if (!on) {
      await this.build.end();
      await this.rows.clear();
      await this.client.query(`UPDATE ${this.schema}.state SET history = $1, history_secret = NULL, history_spends_from = NULL`, [
        HISTORY_CODES.off,
      ]);
      return;
    }
    const state = holdsBlocks ? 'building' : 'on';
    await this.client.query(`UPDATE ${this.schema}.state SET history = $1, history_secret = $2, history_spends_from = 0`, [
      HISTORY_CODES[state],
      randomBytes(32),
    ]);
    if (holdsBlocks) await this.build.begin();
  }

  /** Where the build stands; null when none is under way. */
  async progress(tipHeight: number): Promise<HistoryBuildProgress | null> {
    const state = await this.build.state();
    return state && { height: state.height, tipHeight };
  }

  /** What connectBlocks needs to collect history, while block sync keeps it. */
  async connecting(): Promise<{ nextTx: number } | undefined> {
    return this.on ? { nextTx: await this.rows.nextTx() } : undefined;
  }

  commit(change: HistoryChange): Promise<void> {
    return this.rows.commit(change);
  }

  /**
   * Builds the next blocks' history; returns the tip's height when that reached it and history is kept
   * from now on, else null. Throws NOT_CONNECTED when they are not the next blocks of the build on the
   * index's chain (to its `tip`), or no build is under way.
   */
  async buildNext(blocks: readonly BlockToApply[], tip: Tip | null): Promise<number | null> {
    const state = await this.build.state();
    if (!state || !tip) throw new StoreError('NOT_CONNECTED', 'no history build is under way');
    // The index's own hashes at the blocks' heights, in one query (no snapshot base on this engine).
    const { rows } = await this.client.query<{ height: number; hash: Buffer }>(
      `SELECT height, hash FROM ${this.schema}.blocks WHERE height = ANY($1::integer[])`,
      [blocks.map((b) => b.height)],
    );
    const hashes = new Map(rows.map((r) => [r.height, r.hash]));
    checkLinks(blocks, state, tip, { tip, hashAt: (h) => hashes.get(h), baseHeight: null });
    const last = blocks[blocks.length - 1];
    if (!last) return null;
    await this.build.connect(blocks);
    if (last.height < tip.height) return null;
    await this.build.end();
    await this.client.query(`UPDATE ${this.schema}.state SET history = $1`, [HISTORY_CODES.on]);
    return tip.height;
  }

  /** The tip block `height` is being disconnected with `undo`: undoes its history; returns the scripts it touched. */
  async disconnect(height: number, undo: BlockUndo, below: Tip | null): Promise<Buffer[]> {
    const state = await this.state();
    if (state === 'on')
      return this.rows.rollback(
        height,
        undo.spent.map((c) => c.outpoint),
      );
    if (state === 'building' && (await this.build.state())?.height === height) await this.build.disconnect(height, undo, below);
    // Summaries show no history while it is built: nothing to push.
    return [];
  }
}
