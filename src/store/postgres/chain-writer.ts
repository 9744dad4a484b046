/**
 * The write path of a chain's index in PostgreSQL (the indexer's), in the schema chain-schema.ts names:
 *
 * | table   | key        | value                                   | invariant                                                  |
 * |---------|------------|-----------------------------------------|------------------------------------------------------------|
 * | utxos   | outpoint   | script_key (16B), value, height         | exactly Core's UTXO set at the tip (no unspendables, no genesis coinbase) |
 * | scripts | script_key | balance, utxo_count                     | = SUM(value), COUNT(*) of that script's utxos; no row when count = 0 |
 * | blocks  | height     | hash, prev_hash, coinbase_txid          | rows 0..tip, each prev_hash = hash of height − 1            |
 * | undo    | height     | undo record (../undo.ts)                | only heights in (tip − undoDepth, tip]                      |
 * | headers | height     | 80-byte block header (header-rows.ts)   | one run ending at the tip, down to genesis once backfilled (../header-chain.ts) |
 * | changes | seq        | kind, tip, touched scripts              | one row per commit that moves the tip; the newest FEED_KEEP |
 * | state   | one row    | chain, network, tip, tip_time, node seen, totals, mempool_seq | tip = last blocks row; totals = those of `scripts` |
 * | mempool_* | (mempool-writer.ts) | the node's mempool as per-script deltas | mined and conflicting txs leave in the block's transaction; a rollback empties them |
 * | history* | (history-rows.ts) | each script's transactions, txids by number | while state.history = 1 for every block, in the blocks' own transaction; while 2, for blocks 0..history_built (history-build.ts) |
 *
 * The same semantics as the SQLite engine (../sqlite/chain-store.ts): a batch's coins, aggregates, undo
 * rows and pruning, blocks rows, feed row, node seen and new tip are written in ONE transaction, and the
 * tip held in memory moves only after it commits; a refusal rolls back and writes nothing. One writer per
 * index: it holds a session advisory lock on its own connection, on which it also does every write.
 * The UTXO listing's index is the server's to keep (utxo-list.ts); history is in history-writer.ts; a
 * snapshot bootstrap is snapshot-load.ts's (base_height in `state`: blocks rows run from it up).
 */
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { checkExtends, connectBlocks, planBatch } from '../connect-blocks.js';
import { disconnectBlock, outpointsToRestore } from '../disconnect-block.js';
import { StoreError } from '../errors.js';
import type { BaseBlock, BlockToApply, BulkLoadOptions, HistoryBuildProgress } from '../index-model.js';
import type { NodeSeen, Tip, Totals, UtxoListEvent } from '../index-model.js';
import { belowBase, bootstrapPending } from '../bootstrap-state.js';
import type { IndexWriter } from '../ports.js';
import { decodeUndo, encodeUndo } from '../undo.js';
import { chainSchema, migratePgChain } from './chain-schema.js';
import { createdAgain, restoredAgain, withScripts } from '../change-set.js';
import { Touched, recordChange, resolveCoins, takeCoins, writeChangeSet } from './change-write.js';
import { addHeadersBelow, deleteBlockRows, insertBlockRows, readHeadersFrom } from './header-rows.js';
import { PgHistory } from './history-writer.js';
import { PgMempool } from './mempool-writer.js';
import { inTransaction, openPool, type Pool, type PoolClient } from './pg-pool.js';
import { setPgUtxoList } from './utxo-list.js';
import { loadPgSnapshot, readBaseHeight, readPendingLoad } from './snapshot-load.js';
import { takeWriterLock } from './writer-lock.js';

export const DEFAULT_UNDO_DEPTH = 288;

export interface PgWriterOptions {
  chain: ChainCode;
  network: NetworkName;
  /** Blocks whose undo data is kept (the deepest reorg that can be followed). Default 288. */
  undoDepth?: number;
  /**
   * How long to wait for the writer lock before refusing with LOCKED. A writer killed a moment ago
   * still holds it until the server notices its connection is gone. Default LOCK_WAIT_MS.
   */
  lockWaitMs?: number;
}

export const LOCK_WAIT_MS = 3000;
/** A statement of the writer may take this long: a catch-up batch writes many thousands of rows at once. */
export const WRITE_STATEMENT_TIMEOUT_MS = 120_000;

interface StateRow {
  tip_height: number | null;
  tip_hash: Buffer | null;
  utxo_count: string;
  utxo_amount: string;
  script_count: string;
}

export class PgIndexWriter implements IndexWriter {
  /** The mempool view (mempool-writer.ts): its calls run in this writer's queue, on its connection. */
  readonly mempool: PgMempool;
  /** Address history (history-writer.ts): off, being built, or kept by block sync. */
  private readonly history: PgHistory;
  private closed = false;
  /** The snapshot base height (state.base_height); null for an index synced from genesis. */
  private baseHeight: number | null = null;
  /** The last call on the connection: each waits for the one before (one connection, one transaction at a time). */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly pool: Pool,
    /** The connection holding the writer lock; every statement of the writer runs on it. */
    private readonly client: PoolClient,
    private readonly lost: { readonly err: Error | null },
    private readonly schema: string,
    readonly chain: ChainCode,
    readonly network: NetworkName,
    readonly undoDepth: number,
    private currentTip: Tip | null,
    private currentTotals: Totals,
  ) {
    this.history = new PgHistory(client, schema);
    this.mempool = new PgMempool(
      client,
      schema,
      (fn) =>
        this.serial(() => {
          this.checkOpen();
          return fn();
        }),
      () => this.history.kept,
    );
  }

  /**
   * Opens (creating and migrating the schema if needed) a chain's index for writing. Throws StoreError
   * LOCKED when another writer holds it, CHAIN_MISMATCH for another network's schema, SCHEMA_TOO_NEW.
   */
  static async open(url: string, opts: PgWriterOptions): Promise<PgIndexWriter> {
    const undoDepth = opts.undoDepth ?? DEFAULT_UNDO_DEPTH;
    if (!Number.isSafeInteger(undoDepth) || undoDepth < 0)
      throw new RangeError(`undoDepth must be a non-negative integer, got ${undoDepth}`);
    const schema = chainSchema(opts.chain);
    const pool = openPool(url, {
      max: 1,
      name: `addrsum-indexer-${opts.chain.toLowerCase()}`,
      statementTimeoutMs: WRITE_STATEMENT_TIMEOUT_MS,
    });
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      // A connection lost between calls (server restarted, network cut): said by the next call, never an
      // unhandled 'error' event. The writer lock went with the session: this writer must be opened again.
      const lost: { err: Error | null } = { err: null };
      client.on('error', (err) => (lost.err = err));
      if (!(await takeWriterLock(client, `${schema}.writer`, opts.lockWaitMs ?? LOCK_WAIT_MS)))
        throw new StoreError(
          'LOCKED',
          `another indexer is writing the ${opts.chain} index (schema ${schema}) in this database: stop it first`,
        );
      await migratePgChain(client, schema, opts);
      const state = (
        await client.query<StateRow>(
          `SELECT tip_height, tip_hash, utxo_count::text, utxo_amount::text, script_count::text FROM ${schema}.state`,
        )
      ).rows[0]!;
      const tip = state.tip_height === null || state.tip_hash === null ? null : { height: state.tip_height, hash: state.tip_hash };
      const totals = { utxos: Number(state.utxo_count), amount: BigInt(state.utxo_amount), scripts: Number(state.script_count) };
      const writer = new PgIndexWriter(pool, client, lost, schema, opts.chain, opts.network, undoDepth, tip, totals);
      writer.baseHeight = await readBaseHeight(client, schema);
      await writer.mempool.load();
      await writer.history.load();
      return writer;
    } catch (err) {
      // Destroyed, not returned: the session (and any lock it took) ends with it.
      client?.release(true);
      await pool.end();
      throw err;
    }
  }

  tip(): Promise<Tip | null> {
    return Promise.resolve(this.currentTip && { height: this.currentTip.height, hash: Buffer.from(this.currentTip.hash) });
  }

  hashAt(height: number): Promise<Buffer | null> {
    return this.serial(() => {
      this.checkOpen();
      return this.readHash(height);
    });
  }

  private async readHash(height: number): Promise<Buffer | null> {
    const { rows } = await this.client.query<{ hash: Buffer }>(`SELECT hash FROM ${this.schema}.blocks WHERE height = $1`, [height]);
    return rows[0]?.hash ?? null;
  }

  totals(): Promise<Totals> {
    return Promise.resolve({ ...this.currentTotals });
  }

  base(): Promise<number | null> {
    return Promise.resolve(this.baseHeight);
  }

  /**
   * Connects a run of consecutive blocks in ONE transaction; the coins they need come from ONE query.
   * Throws StoreError NOT_CONNECTED, MISSING_UTXO or INCONSISTENT with nothing written.
   */
  applyBlocks(blocks: readonly BlockToApply[], node?: NodeSeen): Promise<void> {
    return this.serial(() => this.connect(blocks, node));
  }

  private async connect(blocks: readonly BlockToApply[], node?: NodeSeen): Promise<void> {
    if (blocks.length === 0) return;
    this.checkOpen();
    if (!this.currentTip) await this.refuseIfPending();
    checkExtends(this.currentTip, blocks);
    const last = blocks[blocks.length - 1]!;
    // Undo is kept for heights (tip − undoDepth, tip] after this batch.
    const undoFrom = last.height - this.undoDepth + 1;
    const plan = planBatch(blocks);
    const { client, schema } = this;
    const totals = await this.mempool.guard(() =>
      inTransaction(client, async () => {
        const set = connectBlocks(plan, await takeCoins(client, schema, plan.needed), undoFrom, await this.history.connecting());
        const after = await writeChangeSet(client, schema, set, this.currentTotals, createdAgain, true);
        if (set.history) await this.history.commit(set.history);
        await insertBlockRows(client, schema, blocks);
        if (set.undo.length > 0)
          await client.query(`INSERT INTO ${schema}.undo (height, data) SELECT * FROM unnest($1::integer[], $2::bytea[])`, [
            set.undo.map((u) => u.height),
            set.undo.map((u) => encodeUndo(u.undo)),
          ]);
        await client.query(`DELETE FROM ${schema}.undo WHERE height < $1`, [undoFrom]);
        await this.writeTip(set.tip, after, last.time ?? null);
        if (node) await this.writeNodeSeen(node);
        // A block removes what it mines or conflicts with (mempool-writer.ts): those scripts change too.
        const touched = new Touched();
        for (const block of blocks) await this.mempool.blockConnected(block.txs, touched);
        await recordChange(client, schema, 'block', last.height, touched.list(set.touched));
        return after;
      }),
    );
    this.currentTip = { height: last.height, hash: Buffer.from(last.hash) };
    this.currentTotals = totals;
  }

  /** Disconnects the tip block in ONE transaction from its undo record; returns the new tip. */
  rollbackTip(): Promise<Tip | null> {
    return this.serial(() => this.disconnect());
  }

  private async disconnect(): Promise<Tip | null> {
    this.checkOpen();
    const tip = this.currentTip;
    if (!tip) throw new StoreError('EMPTY', 'cannot roll back: the index is empty');
    if (this.baseHeight !== null && tip.height <= this.baseHeight) throw belowBase(tip);
    const { client, schema } = this;
    const { newTip, totals } = await this.mempool.guard(() =>
      inTransaction(client, async () => {
        const { rows } = await client.query<{ data: Buffer }>(`SELECT data FROM ${schema}.undo WHERE height = $1`, [tip.height]);
        if (!rows[0])
          throw new StoreError(
            'NO_UNDO',
            `no undo data for block ${tip.height} (${toDisplayHex(tip.hash)}): only the last ${this.undoDepth} blocks can be rolled back`,
          );
        const undo = decodeUndo(rows[0].data);
        const prevHash = tip.height > 0 ? await this.readHash(tip.height - 1) : null;
        if (tip.height > 0 && !prevHash) throw new StoreError('INCONSISTENT', `no block row at height ${tip.height - 1} below the tip`);
        const below: Tip | null = prevHash ? { height: tip.height - 1, hash: prevHash } : null;
        const set = disconnectBlock(tip.height, undo, await resolveCoins(client, schema, outpointsToRestore(undo)), below);
        const after = await writeChangeSet(client, schema, set, this.currentTotals, restoredAgain(tip.height));
        const changed = withScripts(set.touched, await this.history.disconnect(tip.height, undo, below));
        await client.query(`DELETE FROM ${schema}.undo WHERE height = $1`, [tip.height]);
        await deleteBlockRows(client, schema, tip.height);
        // The blocks table keeps no header times: unknown until the next block is applied.
        await this.writeTip(below, after, null);
        // Core returns the block's transactions to its mempool; the follower re-reads it from the node.
        const touched = new Touched();
        await this.mempool.emptied(touched);
        await recordChange(client, schema, 'disconnect', below?.height ?? null, touched.list(changed));
        return { newTip: below, totals: after };
      }),
    );
    this.currentTip = newTip;
    this.currentTotals = totals;
    return this.tip();
  }

  /** What the node reported and when (the API's lag and freshness checks). */
  setNodeHeight(height: number, at: Date): Promise<void> {
    return this.serial(async () => {
      this.checkOpen();
      await this.writeNodeSeen({ height, at });
    });
  }

  /** The lowest height from which every header up to the tip is stored (header-rows.ts); null while nothing is indexed. */
  headersFrom(): Promise<number | null> {
    return this.serial(() => (this.checkOpen(), readHeadersFrom(this.client, this.schema, this.currentTip)));
  }

  /** Stores a backfilled run of headers just below the stored ones, in one transaction; returns the new headersFrom. */
  addHeaders(from: number, headers: readonly Buffer[]): Promise<number> {
    return this.serial(
      () => (this.checkOpen(), inTransaction(this.client, () => addHeadersBelow(this.client, this.schema, from, headers, this.currentTip))),
    );
  }

  /** Fills an empty index from a UTXO snapshot (snapshot-load.ts: resuming an interrupted load of it) and makes `base` the tip. */
  loadSnapshot(rows: () => Iterable<unknown[]>, base: BaseBlock, opts?: BulkLoadOptions): Promise<Totals> {
    return this.serial(async () => {
      this.checkOpen();
      if (this.currentTip)
        throw new StoreError(
          'NOT_EMPTY',
          `the index already has a tip (height ${this.currentTip.height}): a snapshot can only be loaded into an empty index`,
        );
      const totals = await loadPgSnapshot(this.client, this.schema, rows, base, opts);
      this.currentTip = { height: base.height, hash: Buffer.from(base.hash) };
      this.currentTotals = totals;
      this.baseHeight = base.height;
      return { ...totals };
    });
  }

  /** Throws BOOTSTRAP_PENDING when the index holds the committed chunks of an interrupted snapshot load. */
  refusePendingBootstrap(): Promise<void> {
    return this.serial(async () => {
      this.checkOpen();
      if (!this.currentTip) await this.refuseIfPending();
    });
  }

  private async refuseIfPending(): Promise<void> {
    const pending = await readPendingLoad(this.client, this.schema);
    if (pending) throw bootstrapPending(pending.base);
  }

  /** Builds or drops the UTXO listing's index and secret (utxo-list.ts); a no-op when it already is. */
  setUtxoList(on: boolean, onEvent?: (e: UtxoListEvent) => void): Promise<void> {
    return this.serial(() => {
      this.checkOpen();
      return setPgUtxoList(this.client, this.schema, on, onEvent);
    });
  }

  /** History kept from the first block on an empty index, else built first (buildHistory); off forgets it. */
  setHistory(on: boolean): Promise<void> {
    return this.serial(() => {
      this.checkOpen();
      return this.history.guard(() => inTransaction(this.client, () => this.history.set(on, this.currentTip !== null)));
    });
  }

  /** Where building history stands; null when no build is under way. */
  historyBuild(): Promise<HistoryBuildProgress | null> {
    return this.serial(() => {
      this.checkOpen();
      return this.history.progress(this.currentTip?.height ?? -1);
    });
  }

  /** The next blocks' history in one transaction (history-writer.ts); the step that reaches the tip turns it on. */
  buildHistory(blocks: readonly BlockToApply[]): Promise<HistoryBuildProgress | null> {
    return this.serial(async () => {
      this.checkOpen();
      const { client, schema } = this;
      await this.history.guard(() =>
        this.mempool.guard(() =>
          inTransaction(client, async () => {
            const on = await this.history.buildNext(blocks, this.currentTip);
            if (on === null) return;
            // Every summary gains history (push all); the mempool's was not kept: the follower reads it again.
            const touched = new Touched();
            touched.touchEverything();
            await this.mempool.emptied(touched);
            await recordChange(client, schema, 'block', on, null);
          }),
        ),
      );
      return this.history.progress(this.currentTip?.height ?? -1);
    });
  }

  /** Nothing to fold or warm: the server keeps its own log and cache. */
  settle(): Promise<{ folded: boolean; warm: null }> {
    return Promise.resolve({ folded: false, warm: null });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    // Destroying the connection ends its session, which releases the writer lock.
    this.client.release(true);
    await this.pool.end();
  }

  /** Runs `fn` once every earlier call has settled: a read never lands inside another call's transaction. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`the ${this.chain} index writer is closed`);
    if (this.lost.err)
      throw new Error(`the ${this.chain} index writer lost its PostgreSQL connection (and its lock): open it again`, {
        cause: this.lost.err,
      });
  }

  private async writeTip(tip: Tip | null, totals: Totals, time: number | null): Promise<void> {
    await this.client.query(
      `UPDATE ${this.schema}.state SET tip_height = $1, tip_hash = $2, tip_time = $3, utxo_count = $4, utxo_amount = $5, script_count = $6`,
      [tip?.height ?? null, tip?.hash ?? null, time, totals.utxos, totals.amount.toString(), totals.scripts],
    );
  }

  private async writeNodeSeen(node: NodeSeen): Promise<void> {
    await this.client.query(`UPDATE ${this.schema}.state SET node_height = $1, node_seen_at = $2`, [node.height, node.at.getTime()]);
  }
}
