/**
 * The SQLite engine behind the ports (../ports.ts). better-sqlite3 answers synchronously in this process,
 * so each port call runs its statement (or its one transaction) at once and hands back a settled Promise:
 * the snapshot and commit guarantees are those of ChainReader and ChainStore, which these wrap.
 */
import type { ChainCode, NetworkName } from '../../chain/params.js';
import type { ParsedTx } from '../../chain/block-parser.js';
import type { Tier } from '../keys/tier.js';
import type {
  BaseBlock,
  BlockToApply,
  BulkLoadOptions,
  NodeSeen,
  UtxoListEvent,
  UtxoPageRequest,
  HistoryPageRequest,
  ViewOptions,
  WalletHistoryRequest,
} from '../index-model.js';
import type { FeedReader, IndexReader, IndexVerifier, IndexWriter, KeyStore, MempoolWriter } from '../ports.js';
import { StoreError } from '../errors.js';
import { watchWal } from './wal-watch.js';
import { ChainReader } from './chain-reader.js';
import { ChainStore, type ChainStoreOptions } from './chain-store.js';
import { openReaderDb, type ReaderDbOptions } from './db.js';
import { warmPageCache } from './page-cache.js';
import { KeyStore as KeysFile } from './key-store.js';
import type { MempoolStore } from './mempool-store.js';
import { verifyUtxoList } from './utxo-list.js';
import { verifyAggregates, verifyChain } from './verify.js';
import { verifyHistory } from './history-verify.js';

/** Runs `fn` now; its value or its throw becomes the Promise's outcome (never a synchronous throw). */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** Opens a chain's index read-only (the API). Throws StoreError as ChainReader.open does. */
export function openSqliteReader(path: string, opts: ReaderDbOptions = {}): SqliteIndexReader {
  return new SqliteIndexReader(ChainReader.open(path, opts));
}

export class SqliteIndexReader implements IndexReader {
  readonly chain: ChainCode;
  readonly network: NetworkName;
  readonly feed: FeedReader;

  constructor(readonly reader: ChainReader) {
    this.chain = reader.chain;
    this.network = reader.network;
    const feed = reader.feed;
    this.feed = {
      bounds: () => settle(() => feed.bounds()),
      since: (after, limit) => settle(() => feed.since(after, limit)),
      watch: (onWrite) => watchWal(reader.path, onWrite),
    };
  }

  historyPage(req: HistoryPageRequest) {
    return settle(() => this.reader.historyPage(req));
  }

  scriptTxs(key: Buffer, max: number, after?: number) {
    return settle(() => this.reader.scriptTxs(key, max, after));
  }

  walletHistoryPage(req: WalletHistoryRequest) {
    return settle(() => this.reader.walletHistoryPage(req));
  }

  summary(script: Uint8Array) {
    return settle(() => this.reader.summary(script));
  }

  views(scripts: readonly Uint8Array[], mempool: boolean) {
    return settle(() => this.reader.views(scripts, mempool));
  }

  keyViews(keys: readonly Uint8Array[], mempool: boolean, opts?: ViewOptions) {
    return settle(() => this.reader.keyViews(keys, mempool, opts));
  }

  status() {
    return settle(() => this.reader.status());
  }

  headers(from: number, count: number) {
    return settle(() => this.reader.headers(from, count));
  }

  txBlock(txid: Buffer) {
    return settle(() => this.reader.txBlock(txid));
  }

  outspends(txid: Buffer, outputs: number) {
    return settle(() => this.reader.outspends(txid, outputs));
  }

  mempoolTxs() {
    return settle(() => this.reader.mempoolTxs());
  }

  bootstrap() {
    return settle(() => this.reader.bootstrap());
  }

  utxoPage(req: UtxoPageRequest) {
    return settle(() => this.reader.utxoPage(req));
  }

  close() {
    return settle(() => this.reader.close());
  }
}

/** Opens (creating and migrating) a chain's index for writing (the indexer). Throws StoreError as ChainStore.open does. */
export function openSqliteWriter(path: string, opts: ChainStoreOptions): SqliteIndexWriter {
  return new SqliteIndexWriter(ChainStore.open(path, opts), opts.chain, opts.network);
}

export class SqliteIndexWriter implements IndexWriter {
  readonly mempool: MempoolWriter;

  constructor(
    readonly store: ChainStore,
    readonly chain: ChainCode,
    readonly network: NetworkName,
  ) {
    this.mempool = mempoolWriter(store.mempool);
  }

  tip() {
    return settle(() => this.store.tip());
  }

  hashAt(height: number) {
    return settle(() => this.store.hashAt(height));
  }

  totals() {
    return settle(() => this.store.totals());
  }

  base() {
    return settle(() => this.store.base());
  }

  applyBlocks(blocks: readonly BlockToApply[], node?: NodeSeen) {
    return settle(() => this.store.applyBlocks(blocks, node));
  }

  rollbackTip() {
    return settle(() => this.store.rollbackTip());
  }

  setNodeHeight(height: number, at: Date) {
    return settle(() => this.store.setNodeHeight(height, at));
  }

  headersFrom() {
    return settle(() => this.store.headersFrom());
  }

  addHeaders(from: number, headers: readonly Buffer[]) {
    return settle(() => this.store.addHeaders(from, headers));
  }

  loadSnapshot(rows: () => Iterable<unknown[]>, base: BaseBlock, opts?: BulkLoadOptions) {
    return settle(() => {
      try {
        return this.store.loadSnapshot(rows, base, opts);
      } catch (err) {
        // The driver's word for it stays in the engine: the port says DUPLICATE_COIN whatever the engine.
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
          throw new StoreError('DUPLICATE_COIN', 'snapshot malformed: an outpoint appears twice', { cause: err });
        throw err;
      }
    });
  }

  refusePendingBootstrap() {
    return settle(() => this.store.refusePendingBootstrap());
  }

  setUtxoList(on: boolean, onEvent?: (e: UtxoListEvent) => void) {
    return settle(() => this.store.setUtxoList(on, onEvent));
  }

  setHistory(on: boolean) {
    return settle(() => this.store.setHistory(on));
  }

  historyBuild() {
    return settle(() => this.store.historyBuild());
  }

  buildHistory(blocks: readonly BlockToApply[]) {
    return settle(() => this.store.buildHistory(blocks));
  }

  settle() {
    // The page cache warms only a file (an in-memory store has none).
    return settle(() => ({ folded: this.store.truncateWal(), warm: this.store.db.memory ? null : warmPageCache(this.store.db.name) }));
  }

  close() {
    return settle(() => this.store.close());
  }
}

function mempoolWriter(m: MempoolStore): MempoolWriter {
  return {
    size: () => settle(() => m.size),
    clears: () => m.clears,
    has: (txid: Buffer) => settle(() => m.has(txid)),
    txids: () => settle(() => [...m.txids()]),
    add: (txs: readonly ParsedTx[]) => settle(() => m.add(txs)),
    remove: (txids: readonly Buffer[]) => settle(() => m.remove(txids)),
    clear: () => settle(() => m.clear()),
  };
}

/** Opens a chain's index read-only for the offline checks (`addrsum-verify`). */
export function openSqliteVerifier(path: string): IndexVerifier {
  const db = openReaderDb(path);
  return {
    aggregates: (opts) => settle(() => verifyAggregates(db, opts)),
    chain: () => settle(() => [...verifyChain(db), ...verifyUtxoList(db), ...verifyHistory(db)]),
    close: () =>
      settle(() => {
        db.close();
      }),
  };
}

/** Opens (creating) the keys file for the keys CLI. */
export function openSqliteKeyStore(file: string): KeyStore {
  const keys = KeysFile.open(file);
  return {
    create: (tier: Tier, label: string, now?: Date) => settle(() => keys.create(tier, label, now)),
    list: () => settle(() => keys.list()),
    revoke: (id: string, now?: Date) => settle(() => keys.revoke(id, now)),
    findByDigest: (digest: Buffer) => settle(() => keys.findByDigest(digest)),
    close: () => settle(() => keys.close()),
  };
}
