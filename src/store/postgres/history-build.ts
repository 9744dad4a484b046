/**
 * Building history for an index that holds blocks without it (history turned on later), as the SQLite
 * engine's build (../sqlite/history-build.ts): every block from genesis is connected again, by the same
 * code as block sync, against a coin table of the build's own, history_build_utxos (shaped as utxos: the
 * UTXO set at the build's height, which the next block's inputs spend).
 *
 * Each step is one transaction of the index: the build's coins, the history it adds and state
 * history_built move together, so a kill resumes from the last step. A rollback of the tip while the
 * build stands at it undoes the build's step from the tip's undo record, as block sync undoes its own.
 */
import { createdAgain, restoredAgain } from '../change-set.js';
import { connectBlocks, planBatch } from '../connect-blocks.js';
import { disconnectBlock, outpointsToRestore } from '../disconnect-block.js';
import type { BuildState } from '../history-links.js';
import type { BlockToApply, Tip } from '../index-model.js';
import type { BlockUndo } from '../undo.js';
import { moveCoins, resolveCoins, takeCoins } from './change-write.js';
import type { HistoryRows } from './history-rows.js';
import type { Queryable } from './pg-pool.js';

const TABLE = 'history_build_utxos';
/** The build keeps no undo records of its own: a rollback reads the index's. */
const NO_UNDO = Number.MAX_SAFE_INTEGER;

export class HistoryBuild {
  constructor(
    private readonly client: Queryable,
    private readonly schema: string,
    private readonly rows: HistoryRows,
  ) {}

  /** The build under way; null when there is none. */
  async state(): Promise<BuildState | null> {
    const { rows } = await this.client.query<{ history_built: number | null; history_built_hash: Buffer | null }>(
      `SELECT history_built, history_built_hash FROM ${this.schema}.state`,
    );
    const row = rows[0];
    return row?.history_built == null ? null : { height: row.history_built, hash: row.history_built_hash };
  }

  /** Starts a build from genesis, inside the caller's transaction. */
  async begin(): Promise<void> {
    await this.emptyCoins();
    await this.setBuilt(-1, null);
  }

  /** Ends a build (finished or abandoned), inside the caller's transaction. */
  async end(): Promise<void> {
    await this.emptyCoins();
    await this.client.query(`UPDATE ${this.schema}.state SET history_built = NULL, history_built_hash = NULL`);
  }

  /** Connects the next blocks of the build, inside the caller's transaction (which checked that they extend it). */
  async connect(blocks: readonly BlockToApply[]): Promise<void> {
    const plan = planBatch(blocks);
    const coins = await takeCoins(this.client, this.schema, plan.needed, TABLE);
    const set = connectBlocks(plan, coins, NO_UNDO, { nextTx: await this.rows.nextTx() });
    await moveCoins(this.client, this.schema, TABLE, set, createdAgain, true);
    await this.rows.commit(set.history!);
    const last = blocks[blocks.length - 1]!;
    await this.setBuilt(last.height, last.hash);
  }

  /** Undoes the build's last block, the index's tip being disconnected with `undo`, inside the caller's transaction. */
  async disconnect(height: number, undo: BlockUndo, below: Tip | null): Promise<void> {
    const coins = await resolveCoins(this.client, this.schema, outpointsToRestore(undo), TABLE);
    await moveCoins(this.client, this.schema, TABLE, disconnectBlock(height, undo, coins, below), restoredAgain(height));
    await this.rows.rollback(
      height,
      undo.spent.map((c) => c.outpoint),
    );
    await this.setBuilt(height - 1, below?.hash ?? null);
  }

  /**
   * TRUNCATE, not DELETE: at the end of a build the table holds the whole UTXO set. Its exclusive lock
   * (replayed on a standby too) stops no reader: only the writer ever reads this table.
   */
  private async emptyCoins(): Promise<void> {
    await this.client.query(`TRUNCATE ${this.schema}.${TABLE}`);
  }

  private async setBuilt(height: number, hash: Buffer | null): Promise<void> {
    await this.client.query(`UPDATE ${this.schema}.state SET history_built = $1, history_built_hash = $2`, [height, hash]);
  }
}
