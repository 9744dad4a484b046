/**
 * `npm run indexer -- --chain X --bootstrap FILE`: fills an empty index from the node's `dumptxoutset`
 * file, then the ordinary sync loop follows the node from the snapshot's base block.
 *
 * Order, so that a bad file or a node that cannot vouch for it writes nothing:
 * 1. header (before the database is even opened): format, version, network — SnapshotFile.open;
 * 2. the node must know the base block and have it in its active chain (getblockheader);
 * 3. the index must be empty, or already bootstrapped from this very base (a restart with the same
 *    flag just continues syncing);
 * 4. the bulk load (src/store/sqlite/bulk-load.ts: committed in chunks, resumed after a kill, the tip written
 *    last), progress lines every few seconds while the file is read and while the aggregates are
 *    written; a malformed, truncated or miscounted file aborts it and leaves the empty index. The file
 *    is decoded on a worker thread (snapshot-stream.ts) while this one inserts;
 * 5. the writer settles the new index (SQLite: folds the WAL, reads the file into the page cache when it fits).
 */
import type { ChainCode, NetworkName } from '../src/chain/params.js';
import { fromDisplayHex, toDisplayHex } from '../src/chain/hash.js';
import { SnapshotError } from '../src/chain/snapshot-format.js';
import type { Logger } from '../src/logger.js';
import { NodeError, withRetry, type NodeClient } from '../src/node/node-client.js';
import { SnapshotFile } from './snapshot-reader.js';
import type { CoinRow, ScriptSumRow } from './snapshot-stream.js';
import type { LoadPhase, WarmResult } from '../src/store/index-model.js';
import type { IndexWriter } from '../src/store/ports.js';
import { StoreError } from '../src/store/errors.js';

export interface CheckedSnapshot {
  file: SnapshotFile;
  height: number;
  hash: Buffer;
  prevHash: Buffer;
}

type BootstrapLog = { info(obj: object, msg: string): void };

/** Steps 1–2: the file's header, then the node's word on its base block. Throws SnapshotError. */
export async function checkSnapshot(
  path: string,
  chain: ChainCode,
  network: NetworkName,
  client: Pick<NodeClient, 'getBlockHeader'>,
  log: Pick<Logger, 'info' | 'warn'>,
  signal?: AbortSignal,
): Promise<CheckedSnapshot> {
  const file = SnapshotFile.open(path, chain, network);
  const hashHex = toDisplayHex(file.header.baseHash);
  let header;
  try {
    header = await withRetry(() => client.getBlockHeader(hashHex), { log, signal, what: 'getblockheader' });
  } catch (err) {
    if (err instanceof NodeError && err.code === 'NOT_FOUND') {
      throw new SnapshotError(
        'UNKNOWN_BASE_BLOCK',
        `the snapshot's base block ${hashHex} is unknown to the node: take the snapshot from this node, or let the node sync past it`,
      );
    }
    throw err;
  }
  if (header.confirmations < 1) {
    throw new SnapshotError(
      'NODE_BEHIND',
      `the snapshot's base block ${hashHex} (height ${header.height}) is not in the node's active chain`,
    );
  }
  log.info(
    {
      file: path,
      format: file.header.kind,
      baseHeight: header.height,
      baseHash: hashHex,
      coins: file.header.coinCount,
      bytes: file.stats.fileBytes,
    },
    `snapshot ${path}: ${file.header.coinCount} coins at block ${header.height} (${hashHex})`,
  );
  return {
    file,
    height: header.height,
    hash: Buffer.from(file.header.baseHash),
    prevHash: header.previousblockhash === null ? Buffer.alloc(32) : fromDisplayHex(header.previousblockhash),
  };
}

export interface BootstrapOptions {
  progressEveryMs?: number;
  /** Pushes log lines out during the load (it holds the event loop for its whole length). */
  flush?: () => void;
  sortThreads?: number;
  now?: () => number;
}

/** The part of the writer port a bootstrap drives. */
export type BootstrapWriter = Pick<IndexWriter, 'tip' | 'base' | 'hashAt' | 'loadSnapshot' | 'settle'>;

/** Steps 3–5. Resolves false when the index was already bootstrapped from this base (nothing done). */
export async function loadSnapshot(
  snap: CheckedSnapshot,
  store: BootstrapWriter,
  log: BootstrapLog,
  opts: BootstrapOptions = {},
): Promise<boolean> {
  const tip = await store.tip();
  if (tip) {
    if ((await store.base()) === snap.height && (await store.hashAt(snap.height))?.equals(snap.hash)) {
      log.info({ baseHeight: snap.height, height: tip.height }, 'index already bootstrapped from this snapshot; continuing to sync');
      return false;
    }
    throw new SnapshotError(
      'INDEX_NOT_EMPTY',
      `the index already holds blocks up to ${tip.height}: bootstrap needs an empty index (delete this chain's database file first)`,
    );
  }
  const now = opts.now ?? (() => performance.now());
  const flush = opts.flush ?? (() => undefined);
  const every = opts.progressEveryMs ?? 5000;
  const total = snap.file.header.coinCount;
  const stats = snap.file.stats;
  const started = now();
  let nextLine = started + every;
  let sorting = false;
  const source = snap.file.loadSource();
  // Yields `items`, calling `report` every `every` ms; the clock is read every 4096 items, off the per-item cost.
  const reporting = function* <T>(items: Iterable<T>, report: (n: number, item: T) => void): Generator<T> {
    let n = 0;
    for (const item of items) {
      yield item;
      if ((++n & 4095) === 0 && now() >= nextLine) {
        nextLine = now() + every;
        report(n, item);
        flush();
      }
    }
  };
  const rows = (): Generator<CoinRow> =>
    reporting(source.rows(), () => {
      const seconds = (now() - started) / 1000;
      log.info(progressLine(stats.coins, total, seconds), progressText(stats.coins, total, seconds, sorting));
    });
  let aggregatesStarted = started;
  // The sums come in ascending key order, and keys are uniform (SHA-256): the first two bytes of the
  // last one written say how far along they are.
  const sums = (items: Iterable<ScriptSumRow>): Generator<ScriptSumRow> =>
    reporting(items, (n, row) => {
      const done = (row[0].readUInt16BE(0) + 1) / 65536;
      const seconds = (now() - aggregatesStarted) / 1000;
      const eta = (seconds * (1 - done)) / done;
      log.info(
        { scripts: n, percent: round1(100 * done), etaSeconds: Math.round(eta) },
        `bootstrap: aggregates ${(100 * done).toFixed(1)}% written (${n} scripts), ETA ${hms(eta)}`,
      );
    });
  const onPhase = (phase: LoadPhase): void => {
    const seconds = (now() - started) / 1000;
    if (phase === 'building aggregates') aggregatesStarted = now();
    if (phase === 'reading and sorting coins') {
      sorting = true;
      log.info(
        { coins: stats.coins, seconds: round1(seconds) },
        // SQLite reads the file a second time to sort; PostgreSQL sorts while it builds the key: either way, longer.
        `bootstrap: the file's coins are not in txid order (found within its first ${stats.coins} coins); the load sorts them, which takes longer`,
      );
    }
    log.info({ phase, coins: stats.coins, seconds: round1(seconds) }, `bootstrap: ${phase}`);
    flush();
  };
  const onResume = (after: Buffer): void => {
    log.info(
      { afterTxid: toDisplayHex(after) },
      'bootstrap: resuming the interrupted load of this snapshot: its coins up to the last committed txid are kept, the file is read past them',
    );
    flush();
  };
  const onDiscard = (hash: Buffer): void => {
    log.info(
      { baseHash: toDisplayHex(hash) },
      `bootstrap: deleting the part loaded by an interrupted bootstrap from another snapshot (block ${toDisplayHex(hash)})`,
    );
    flush();
  };
  let totals;
  try {
    totals = await store.loadSnapshot(rows, snap, {
      onPhase,
      onResume,
      onDiscard,
      sums: () => {
        const rows = source.sums();
        return rows && sums(rows);
      },
      coinbases: () => source.coinbases(),
      totalCoins: total,
      ...(opts.sortThreads !== undefined && { sortThreads: opts.sortThreads }),
    });
  } catch (err) {
    if (err instanceof StoreError && err.code === 'DUPLICATE_COIN') throw new SnapshotError('DUPLICATE_COIN', err.message);
    throw err;
  } finally {
    source.close();
  }
  const seconds = (now() - started) / 1000;
  log.info(
    {
      coins: stats.coins,
      skippedUnspendable: stats.skipped,
      utxos: totals.utxos,
      scripts: totals.scripts,
      amount: totals.amount,
      seconds: round1(seconds),
      coinsPerSec: Math.round(stats.coins / Math.max(seconds, 1e-3)),
      height: snap.height,
      path: sorting ? 'sort' : 'append',
    },
    `bootstrap done: ${stats.coins} coins (${stats.skipped} unspendable skipped) in ${hms(seconds)}; the index is at block ${snap.height}`,
  );
  flush();
  // The load went through the WAL; fold it into the database now rather than at the next block.
  const settled = await store.settle();
  const folded = settled.folded ? 'WAL checkpointed' : 'WAL checkpoint continues in the background';
  log.info({ seconds: round1((now() - started) / 1000) }, `bootstrap: ${folded}`);
  warm(settled.warm, log);
  log.info({ seconds: round1((now() - started) / 1000) }, 'bootstrap: following the node from the base block');
  return true;
}

/** Says whether the new index was read into the page cache (page-cache.ts says why it may not be). */
function warm(r: WarmResult | null, log: BootstrapLog): void {
  if (r === null) return;
  const gb = (n: number): string => (n / 1e9).toFixed(1);
  if (r.warmed)
    log.info(
      { bytes: r.bytes, seconds: round1(r.seconds) },
      `bootstrap: read the index (${gb(r.bytes)} GB) into the page cache in ${r.seconds.toFixed(1)} s`,
    );
  else
    log.info(
      { bytes: r.bytes, availableBytes: r.availableBytes },
      `bootstrap: the index (${gb(r.bytes)} GB) is not read into the page cache: only ${gb(r.availableBytes)} GB of memory is available; the first blocks read it from the disk`,
    );
}

function progressLine(coins: number, total: number, seconds: number): object {
  const rate = coins / Math.max(seconds, 1e-3);
  return { coins, total, coinsPerSec: Math.round(rate), etaSeconds: rate > 0 ? Math.round((total - coins) / rate) : null };
}

function progressText(coins: number, total: number, seconds: number, sorting: boolean): string {
  const rate = coins / Math.max(seconds, 1e-3);
  const eta = rate > 0 ? hms((total - coins) / rate) : '?';
  return `bootstrap: ${coins}/${total} coins read (${((100 * coins) / Math.max(total, 1)).toFixed(1)}%), ${Math.round(rate)} coins/s, ETA ${eta} (then ${sorting ? 'sorting' : 'aggregates'})`;
}

/** Seconds as h:mm:ss. */
export function hms(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
