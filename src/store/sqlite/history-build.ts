/**
 * Building history for an index that holds blocks without it (history turned on later, or an index
 * bootstrapped from a UTXO snapshot, which has none): every block from genesis is connected again, by
 * the same code as block sync, against a coin table of the build's own. `history_build_utxos`, shaped as
 * `utxos`, holds the UTXO set at the build's height, which is what the next block's inputs spend.
 *
 * Each step is one transaction of the index: the build's coins, the history it adds and meta
 * history_built move together, so a kill resumes from the last step. Block sync goes on meanwhile; the
 * step that reaches its tip turns history on and drops the coin table in the same transaction.
 *
 * A rollback of the tip while the build stands at it undoes the build's step the way block sync undoes
 * its own: the tip's undo record lists the coins the block spent and the outpoints it created, and
 * history's before-images take back its entries (history-store.ts).
 *
 *   meta history = 2 while building; history_built = the last built height (−1: none yet),
 *   history_built_hash = that block's hash (absent at −1).
 */
import type { BlockToApply, Tip } from '../index-model.js';
import type { BuildState } from '../history-links.js';
import { connectBlocks, planBatch } from '../connect-blocks.js';
import { disconnectBlock, outpointsToRestore } from '../disconnect-block.js';
import type { BlockUndo } from '../undo.js';
import { createdAgain, restoredAgain } from '../change-set.js';
import { insertCoins, takeCoins } from './change-commit.js';
import type { Db } from './db.js';
import type { HistoryStore } from './history-store.js';
import { prepareCoinStatements, type CoinStatements } from './statements.js';

/** meta key: the last height whose history is built. */
export const BUILT_KEY = 'history_built';
const BUILT_HASH_KEY = 'history_built_hash';
const TABLE = 'history_build_utxos';

export class HistoryBuild {
  /** Prepared once the table exists: it lives only while a build is under way. */
  private coins: CoinStatements | null = null;
  private readonly metaGet;
  private readonly metaSet;
  private readonly metaDelete;

  constructor(
    private readonly db: Db,
    private readonly history: HistoryStore,
  ) {
    this.metaGet = db.prepare<[string], unknown>('SELECT value FROM meta WHERE key = ?').pluck();
    this.metaSet = db.prepare<[string, unknown]>(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    this.metaDelete = db.prepare<[string]>('DELETE FROM meta WHERE key = ?');
  }

  /** The build under way; null when there is none. */
  state(): BuildState | null {
    const height = this.metaGet.get(BUILT_KEY);
    if (typeof height !== 'number') return null;
    return { height, hash: (this.metaGet.get(BUILT_HASH_KEY) as Buffer | undefined) ?? null };
  }

  /** Starts a build from genesis, inside the caller's transaction. */
  begin(): void {
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (outpoint BLOB PRIMARY KEY NOT NULL, script_key BLOB NOT NULL, ` +
        'value INTEGER NOT NULL, height INTEGER NOT NULL) STRICT, WITHOUT ROWID',
    );
    this.db.exec(`DELETE FROM ${TABLE}`);
    this.metaSet.run(BUILT_KEY, -1);
    this.metaDelete.run(BUILT_HASH_KEY);
  }

  /** Ends a build (finished or abandoned), inside the caller's transaction. */
  end(): void {
    this.coins = null;
    this.db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
    this.metaDelete.run(BUILT_KEY);
    this.metaDelete.run(BUILT_HASH_KEY);
  }

  /**
   * Connects the next blocks of the build, inside the caller's transaction (which checked that they
   * extend it); blocks at or above `undoFrom` keep history's before-images.
   */
  connect(blocks: readonly BlockToApply[], undoFrom: number): void {
    const table = this.table();
    const plan = planBatch(blocks);
    const set = connectBlocks(plan, takeCoins(table, plan.needed), undoFrom, { nextTx: this.history.nextTx() });
    insertCoins(table, set.created, createdAgain);
    this.history.commit(set.history!, undoFrom);
    const last = blocks[blocks.length - 1]!;
    this.metaSet.run(BUILT_KEY, last.height);
    this.metaSet.run(BUILT_HASH_KEY, last.hash);
  }

  /** Undoes the build's last block, the index's tip being disconnected with `undo`, inside the caller's transaction. */
  disconnect(height: number, undo: BlockUndo, below: Tip | null): void {
    const table = this.table();
    const set = disconnectBlock(height, undo, takeCoins(table, outpointsToRestore(undo)), below);
    insertCoins(table, set.created, restoredAgain(height));
    this.history.rollback(
      height,
      undo.spent.map((c) => c.outpoint),
    );
    this.metaSet.run(BUILT_KEY, height - 1);
    if (below) this.metaSet.run(BUILT_HASH_KEY, below.hash);
    else this.metaDelete.run(BUILT_HASH_KEY);
  }

  private table(): CoinStatements {
    this.coins ??= prepareCoinStatements(this.db, TABLE);
    return this.coins;
  }
}
