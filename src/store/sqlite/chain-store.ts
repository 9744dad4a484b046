/**
 * The write path of a chain's index (the indexer's only door to SQLite).
 *
 * | table   | key                          | value                                  | invariant                                              |
 * |---------|------------------------------|----------------------------------------|--------------------------------------------------------|
 * | utxos   | outpoint = txid‖vout (33–36B) | script_key (16B), value, height        | exactly Core's UTXO set at the tip (no unspendables, no genesis coinbase) |
 * | scripts | script_key                   | balance, utxo_count                    | = SUM(value), COUNT(*) of that script's utxos; no row when count = 0 |
 * | blocks  | height                       | hash, prev_hash, coinbase_txid (internal byte order) | rows 0..tip, each prev_hash = hash of height−1          |
 * | undo    | height                       | undo record (undo.ts)                  | only heights in (tip − undoDepth, tip]                  |
 * | headers | height                       | 80-byte block header (header-rows.ts)  | one run ending at the tip, down to genesis once backfilled (../header-chain.ts) |
 * | snapshot_coinbase | height             | txid of its coinbase (bulk-load.ts)    | heights ≤ base_height with a coinbase coin in the snapshot; written by the load only |
 * | meta    | key                          | value                                  | tip_height/tip_hash = last blocks row; utxo_count, utxo_amount, script_count = totals of scripts; chain, network, schema_version; node_height, node_seen_at (ms), tip_time (s, header time of the tip); base_height |
 * | mempool_* | (mempool-store.ts)           | the node's mempool as per-script deltas | mined and conflicting transactions leave in the block's transaction; a rollback empties them |
 * | changes | seq                          | kind, tip, touched scripts (change-feed.ts) | one row per commit that moves the tip or the mempool; only the newest FEED_KEEP |
 * | history, history_* | (history-store.ts)  | each script's totals and entries; txids by number; numbers per block; before-images | while meta history = 1 for every block, in the blocks' own transaction; while 2, for blocks 0..history_built (history-build.ts) |
 * | history_build_utxos | outpoint           | as utxos                               | only while history is being built: the UTXO set at history_built |
 *
 * An index bootstrapped from a UTXO snapshot (bulk-load.ts) has meta base_height = the snapshot's base
 * block: its blocks rows run base_height..tip instead of 0..tip, and nothing at or below the base can be
 * rolled back (BELOW_BASE). The one state outside the invariants: a bootstrap in progress (or killed)
 * commits `utxos` rows in chunks with no tip and meta bootstrap_base set; nothing reads them as an index
 * (no tip: the API says CHAIN_SYNCING) and block sync refuses to start on them (BOOTSTRAP_PENDING).
 *
 * Every invariant holds at every commit: a batch's UTXO rows, aggregates, undo rows, pruning, blocks
 * rows and the new tip are written in ONE transaction, and the in-memory tip moves only after it
 * commits (bcoin's order). A kill -9 at any instant therefore leaves the previous commit, and the next
 * open resumes from its tip with no repair step. The API's lookup is one primary-key read in `scripts`,
 * whatever the number of UTXOs behind it. No index beyond the primary keys (store-size.test.ts) but the opt-in UTXO listing's.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileIdentity, sameFile, type FileIdentity } from '../../file-identity.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { ChainCode, NetworkName } from '../../chain/params.js';
import { BASE_HEIGHT_KEY, bulkLoad, pendingBase } from './bulk-load.js';
import { belowBase, bootstrapPending } from '../bootstrap-state.js';
import { ChangeFeed } from './change-feed.js';
import { Checkpointer, truncateWal } from './checkpointer.js';
import { openWriterDb, raiseGeneration, type Db } from './db.js';
import { createdAgain, restoredAgain, withScripts } from '../change-set.js';
import { checkExtends, coinbaseTxid, connectBlocks, planBatch } from '../connect-blocks.js';
import { disconnectBlock, outpointsToRestore } from '../disconnect-block.js';
import { StoreError } from '../errors.js';
import { HeaderRows } from './header-rows.js';
import { MempoolStore } from './mempool-store.js';
import { IndexHistory } from './index-history.js';
import { readAmount, readMeta } from './meta.js';
import { migrate } from './migrate.js';
import { commitChangeSet, takeCoins } from './change-commit.js';
import { prepareWriteStatements, type WriteStatements } from './statements.js';
import { decodeUndo, encodeUndo } from '../undo.js';
import { setUtxoList } from './utxo-list.js';
import { describeWriter, WriterLock } from './writer-lock.js';
import type { BaseBlock, BlockToApply, BulkLoadOptions, HistoryBuildProgress } from '../index-model.js';
import type { NodeSeen, Tip, Totals, UtxoListEvent } from '../index-model.js';

export { StoreError, type StoreErrorCode } from '../errors.js';

export interface ChainStoreOptions {
  chain: ChainCode;
  network: NetworkName;
  /** Blocks whose undo data is kept (the deepest reorg that can be followed). Default 288 (Core's MIN_BLOCKS_TO_KEEP). */
  undoDepth?: number;
  /** SQLite page cache, MiB (db.ts default). */
  cacheMiB?: number;
}

export const DEFAULT_UNDO_DEPTH = 288;

export class ChainStore {
  /** The mempool view (mempool-store.ts): blocks remove what they mine or conflict in their own transaction. */
  readonly mempool: MempoolStore;
  /** What each commit touched, for the API's live pushes (change-feed.ts). */
  private readonly feed: ChangeFeed;
  private readonly stmts: WriteStatements;
  /** Address history (index-history.ts): off, being built, or kept by block sync. */
  private readonly history: IndexHistory;
  private readonly headers: HeaderRows;
  private currentTip: Tip | null;
  private currentTotals: Totals;
  private baseHeight: number | null;

  private constructor(
    readonly db: Db,
    private readonly lock: WriterLock | null,
    /** Null for an in-memory store (no WAL). */
    private readonly checkpointer: Checkpointer | null,
    readonly undoDepth: number,
    meta: Map<string, unknown>,
    /** The path and the file it named when opened; null for an in-memory store. */
    private readonly file: { path: string; opened: FileIdentity | null } | null = null,
  ) {
    this.stmts = prepareWriteStatements(db);
    this.feed = new ChangeFeed(db);
    this.mempool = new MempoolStore(db, this.feed, () => this.history.state === 'on');
    this.history = new IndexHistory(db);
    this.headers = new HeaderRows(db);
    const height = meta.get('tip_height');
    this.currentTip = typeof height === 'number' ? { height, hash: meta.get('tip_hash') as Buffer } : null;
    const base = meta.get(BASE_HEIGHT_KEY);
    this.baseHeight = typeof base === 'number' ? base : null;
    this.currentTotals = {
      utxos: (meta.get('utxo_count') as number | undefined) ?? 0,
      amount: readAmount(db),
      scripts: (meta.get('script_count') as number | undefined) ?? 0,
    };
  }

  /**
   * Opens (creating it and its directory, and migrating, if needed) a chain database for writing. Throws StoreError LOCKED when
   * another writer holds it, CHAIN_MISMATCH when it was made for another chain or network.
   */
  static open(path: string, opts: ChainStoreOptions): ChainStore {
    const undoDepth = opts.undoDepth ?? DEFAULT_UNDO_DEPTH;
    if (!Number.isSafeInteger(undoDepth) || undoDepth < 0)
      throw new RangeError(`undoDepth must be a non-negative integer, got ${undoDepth}`);
    const inMemory = path === ':memory:' || path === '';
    // The writer owns the data directory: a first start on a fresh machine creates it.
    // 0700: the directory also holds keys.sqlite; only the service's user needs to enter it.
    if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const lock = inMemory ? null : WriterLock.acquire(path, () => describeWriter(path));
    let db: Db | undefined;
    try {
      db = openWriterDb(path, { cacheMiB: opts.cacheMiB });
      migrate(db);
      // The file the name points at now that it exists (the writer lock keeps other indexers away).
      const opened = inMemory ? null : fileIdentity(path);
      const meta = readMeta(db);
      const chain = meta.get('chain');
      const network = meta.get('network');
      if (chain === undefined) {
        const set = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
        db.transaction(() => {
          set.run('chain', opts.chain);
          set.run('network', opts.network);
          for (const key of ['utxo_count', 'utxo_amount', 'script_count']) set.run(key, 0);
        })();
      } else if (chain !== opts.chain || network !== opts.network) {
        throw new StoreError(
          'CHAIN_MISMATCH',
          `database ${path} holds ${String(chain)} ${String(network)}, not ${opts.chain} ${opts.network}; point this indexer at its own file`,
        );
      }
      if (lock) {
        // Only for the LOCKED message another process may print; the lock itself is the side file's.
        const set = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
        db.transaction(() => {
          set.run('writer_pid', process.pid);
          set.run('writer_started_at', Date.now());
        })();
      }
      return new ChainStore(
        db,
        lock,
        inMemory ? null : new Checkpointer(db, path),
        undoDepth,
        readMeta(db),
        inMemory ? null : { path, opened },
      );
    } catch (err) {
      db?.close();
      lock?.release();
      throw err;
    }
  }

  tip(): Tip | null {
    return this.currentTip && { height: this.currentTip.height, hash: Buffer.from(this.currentTip.hash) };
  }

  hashAt(height: number): Buffer | null {
    return this.stmts.blockHash.get(height) ?? null;
  }

  totals(): Totals {
    return { ...this.currentTotals };
  }

  /**
   * Connects a run of consecutive blocks in ONE transaction: UTXOs, aggregates, undo rows (and pruning
   * of those that left the window), blocks rows and the tip. The first block must extend the tip, or be
   * height 0 on an empty store. Throws StoreError (NOT_CONNECTED, MISSING_UTXO, INCONSISTENT) with
   * nothing written.
   */
  applyBlocks(blocks: readonly BlockToApply[], node?: NodeSeen): void {
    if (blocks.length === 0) return;
    this.checkFile();
    if (!this.currentTip) this.refusePendingBootstrap();
    checkExtends(this.currentTip, blocks);
    const last = blocks[blocks.length - 1]!;
    // Undo is kept for heights (tip − undoDepth, tip] after this batch; older blocks need none at all.
    const undoFrom = last.height - this.undoDepth + 1;
    const totals = this.mempool.guard(() =>
      this.db
        .transaction(() => {
          // Resolve, compute, write (change-commit.ts): the resolver takes the spent coins out as it reads them.
          const plan = planBatch(blocks);
          const set = connectBlocks(plan, takeCoins(this.stmts.coins, plan.needed), undoFrom, this.history.connecting());
          const after = commitChangeSet(this.stmts, set, this.currentTotals, createdAgain);
          if (set.history) this.history.commit(set.history, undoFrom);
          for (const block of blocks) {
            this.stmts.blockInsert.run(block.height, block.hash, block.prevHash, coinbaseTxid(block.txs));
            this.headers.add(block.height, block.header);
            this.mempool.blockConnected(block.txs);
          }
          for (const { height, undo } of set.undo) this.stmts.undoInsert.run(height, encodeUndo(undo));
          this.stmts.undoPrune.run(undoFrom - 1);
          this.writeTip(set.tip, after);
          if (last.time === undefined) this.stmts.metaDelete.run('tip_time');
          else this.stmts.metaSet.run('tip_time', last.time);
          if (node) this.writeNodeSeen(node.height, node.at);
          this.feed.record('block', last.height, set.touched);
          return after;
        })
        .immediate(),
    );
    this.currentTip = { height: last.height, hash: Buffer.from(last.hash) };
    this.currentTotals = totals;
  }

  /**
   * Fills an empty index from a UTXO snapshot (bulk-load.ts: resuming an interrupted load of the same
   * snapshot) and makes `base` the tip; block sync continues from there. `rows` yields [outpoint, script_key, value, height].
   */
  loadSnapshot(rows: () => Iterable<unknown[]>, base: BaseBlock, opts: BulkLoadOptions = {}): Totals {
    if (this.currentTip)
      throw new StoreError(
        'NOT_EMPTY',
        `the index already has a tip (height ${this.currentTip.height}): a snapshot can only be loaded into an empty index`,
      );
    // A snapshot holds no history: it is built from the node's blocks once the load is done.
    this.db.transaction(() => this.history.snapshotLoading()).immediate();
    // Kept up row by row, the listing's index would slow the load: it is built in bulk afterwards.
    setUtxoList(this.db, false);
    const totals = bulkLoad(this.db, rows, base, opts);
    this.currentTip = { height: base.height, hash: Buffer.from(base.hash) };
    this.currentTotals = totals;
    this.baseHeight = base.height;
    return { ...totals };
  }

  /** Builds or drops the UTXO listing's index as the setting says (utxo-list.ts); a no-op when it already is. */
  setUtxoList(on: boolean, onEvent?: (e: UtxoListEvent) => void): void {
    this.checkFile();
    setUtxoList(this.db, on, onEvent);
  }

  /** History kept from the first block on an empty index, else built first (buildHistory); off forgets it. */
  setHistory(on: boolean): void {
    this.checkFile();
    this.db.transaction(() => this.history.set(on, this.currentTip !== null || pendingBase(this.db) !== null)).immediate();
  }

  /** Where building history stands; null when no build is under way. */
  historyBuild(): HistoryBuildProgress | null {
    return this.history.progress(this.currentTip?.height ?? -1);
  }

  /** The next blocks' history in one transaction (index-history.ts); the step that reaches the tip turns it on. */
  buildHistory(blocks: readonly BlockToApply[]): HistoryBuildProgress | null {
    this.checkFile();
    const chain = { tip: this.currentTip, hashAt: (h: number) => this.stmts.blockHash.get(h), baseHeight: this.baseHeight };
    this.mempool.guard(() =>
      this.db
        .transaction(() => {
          const on = this.history.buildNext(blocks, chain, this.undoDepth);
          if (on === null) return;
          // Every summary gains history (push all); the mempool's was not kept: the follower reads it again.
          this.mempool.clear();
          this.feed.touchEverything();
          this.feed.record('block', on);
        })
        .immediate(),
    );
    return this.historyBuild();
  }

  /** Throws BOOTSTRAP_PENDING when the index holds the committed chunks of an interrupted snapshot load: block sync must not start on them. */
  refusePendingBootstrap(): void {
    if (this.currentTip) return;
    const pending = pendingBase(this.db);
    if (pending) throw bootstrapPending(pending);
  }

  /** The snapshot base height of a bootstrapped index; null for one synced from genesis. */
  base(): number | null {
    return this.baseHeight;
  }

  /**
   * Throws REPLACED when the path no longer names the file we write: an index restored or deleted under a
   * running indexer would otherwise take every write into an unlinked file, and nothing would say so.
   */
  private checkFile(): void {
    if (this.file === null) return;
    const now = fileIdentity(this.file.path);
    if (!sameFile(now, this.file.opened))
      throw new StoreError(
        'REPLACED',
        `${this.file.path} was ${now === null ? 'deleted' : 'replaced'} while this indexer had it open: stopping. Stop the API too, delete ${this.file.path}-wal and ${this.file.path}-shm (they belong to the old file), then start both again`,
      );
  }

  /** Disconnects the tip block atomically; returns the new tip (null when the store becomes empty). */
  rollbackTip(): Tip | null {
    this.checkFile();
    const tip = this.currentTip;
    if (!tip) throw new StoreError('EMPTY', 'cannot roll back: the index is empty');
    if (this.baseHeight !== null && tip.height <= this.baseHeight) throw belowBase(tip);
    const data = this.stmts.undoGet.get(tip.height);
    if (!data) {
      throw new StoreError(
        'NO_UNDO',
        `no undo data for block ${tip.height} (${toDisplayHex(tip.hash)}): only the last ${this.undoDepth} blocks can be rolled back`,
      );
    }
    const undo = decodeUndo(data);
    const { newTip, totals } = this.mempool.guard(() =>
      this.db
        .transaction(() => {
          const prevHash = tip.height > 0 ? this.stmts.blockHash.get(tip.height - 1) : undefined;
          const below: Tip | null = prevHash ? { height: tip.height - 1, hash: prevHash } : null;
          const set = disconnectBlock(tip.height, undo, takeCoins(this.stmts.coins, outpointsToRestore(undo)), below);
          const after = commitChangeSet(this.stmts, set, this.currentTotals, restoredAgain(tip.height));
          const touched = withScripts(set.touched, this.history.disconnect(tip.height, undo, below));
          // Core returns the block's transactions to its mempool; the follower re-reads it from the node.
          this.mempool.clear();
          this.stmts.undoDelete.run(tip.height);
          this.stmts.blockDelete.run(tip.height);
          this.headers.removeFrom(tip.height);
          if (tip.height > 0 && !below) throw new StoreError('INCONSISTENT', `no block row at height ${tip.height - 1} below the tip`);
          this.writeTip(below, after);
          // The blocks table keeps no header times: unknown until the next block is applied.
          this.stmts.metaDelete.run('tip_time');
          this.feed.record('disconnect', below?.height ?? null, touched);
          return { newTip: below, totals: after };
        })
        .immediate(),
    );
    this.currentTip = newTip;
    this.currentTotals = totals;
    return this.tip();
  }

  /** The lowest height from which every header up to the tip is stored (header-rows.ts); null while nothing is indexed. */
  headersFrom(): number | null {
    return this.headers.headersFrom(this.currentTip);
  }

  /** Stores a backfilled run of headers just below the stored ones, in one transaction; returns the new headersFrom. */
  addHeaders(from: number, headers: readonly Buffer[]): number {
    this.checkFile();
    return this.headers.addBelow(from, headers, this.currentTip);
  }

  /**
   * What the node reported and when, so the API can tell lag and freshness without talking to the node.
   * The indexer calls it whenever the node answered (each pass and each catch-up commit).
   */
  setNodeHeight(height: number, at: Date): void {
    this.checkFile();
    this.db.transaction(() => this.writeNodeSeen(height, at)).immediate();
  }

  private writeNodeSeen(height: number, at: Date): void {
    this.stmts.metaSet.run('node_height', height);
    this.stmts.metaSet.run('node_seen_at', at.getTime());
  }

  /** Checkpoints the checkpoint thread has run on new WAL frames (checkpointer.ts); 0 for an in-memory store. */
  get checkpoints(): number {
    return this.checkpointer?.runs ?? 0;
  }

  /** Folds the WAL into the database and truncates it (checkpointer.ts); false when it stayed busy. */
  truncateWal(): boolean {
    return truncateWal(this.db);
  }

  close(): void {
    this.checkpointer?.stop();
    if (this.db.open) this.db.close();
    this.lock?.release();
  }

  private writeTip(tip: Tip | null, totals: Totals): void {
    const { metaSet, metaDelete } = this.stmts;
    if (tip) {
      metaSet.run('tip_height', tip.height);
      metaSet.run('tip_hash', tip.hash);
    } else {
      metaDelete.run('tip_height');
      metaDelete.run('tip_hash');
    }
    metaSet.run('utxo_count', totals.utxos);
    metaSet.run('utxo_amount', totals.amount);
    metaSet.run('script_count', totals.scripts);
    raiseGeneration(this.db);
  }
}
