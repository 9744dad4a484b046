import { statSync } from 'node:fs';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { buildInfoGauge } from '../src/build-info.js';
import { NODE_ERROR_CODES } from '../src/node/rpc-errors.js';

/** The indexer's Prometheus metrics; one registry per indexer so tests can run several in one process. */
export class IndexerMetrics {
  readonly registry = new Registry();
  readonly indexedHeight: Gauge;
  readonly nodeHeight: Gauge;
  readonly lag: Gauge;
  readonly blockApplySeconds: Histogram;
  readonly blocksApplied: Counter;
  readonly reorgs: Counter;
  readonly reorgBlocks: Counter;
  readonly retries: Counter;
  readonly nodeLastSeen: Gauge;
  readonly tipTime: Gauge;
  readonly rpcSeconds: Histogram<'request'>;
  readonly catchUpPercent: Gauge;
  readonly catchUpEta: Gauge;
  readonly historyBuildHeight: Gauge;
  readonly mempoolReconcileSeconds: Histogram;
  readonly zmqConnected: Gauge<'topics'>;

  constructor(chain: string, withDefaults = false) {
    this.registry.setDefaultLabels({ chain });
    const registers = [this.registry];
    this.indexedHeight = new Gauge({ name: 'addrsum_indexer_indexed_height', help: 'Height of the indexed tip', registers });
    this.nodeHeight = new Gauge({ name: 'addrsum_indexer_node_height', help: "Height of the node's best chain", registers });
    this.lag = new Gauge({ name: 'addrsum_indexer_lag_blocks', help: 'Node height minus indexed height', registers });
    this.blockApplySeconds = new Histogram({
      name: 'addrsum_indexer_block_apply_seconds',
      help: 'Time to apply one block to the index (a batch during catch-up is shared out over its blocks)',
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.blocksApplied = new Counter({ name: 'addrsum_indexer_blocks_applied_total', help: 'Blocks applied', registers });
    this.reorgs = new Counter({ name: 'addrsum_indexer_reorgs_total', help: 'Reorganisations handled', registers });
    this.reorgBlocks = new Counter({ name: 'addrsum_indexer_reorg_blocks_total', help: 'Blocks rolled back', registers });
    this.retries = new Counter({
      name: 'addrsum_indexer_node_retries_total',
      help: 'Node requests retried after a transient failure',
      labelNames: ['code'],
      registers,
    });
    // Every code from the start, at 0: increase() and alerts need the series before the first failure.
    for (const code of NODE_ERROR_CODES) this.retries.inc({ code }, 0);
    this.nodeLastSeen = new Gauge({
      name: 'addrsum_indexer_node_last_seen_timestamp_seconds',
      help: 'When the node last answered the indexer (Unix seconds; 0 = never since start)',
      registers,
    });
    this.tipTime = new Gauge({
      name: 'addrsum_indexer_tip_block_timestamp_seconds',
      help: 'Header time of the indexed tip block (Unix seconds; 0 = none applied since start)',
      registers,
    });
    this.rpcSeconds = new Histogram({
      name: 'addrsum_indexer_node_request_seconds',
      help: 'Time of one request to the node (RPC method or REST), answered or failed',
      labelNames: ['request'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60],
      registers,
    });
    this.catchUpPercent = new Gauge({
      name: 'addrsum_indexer_catch_up_percent',
      help: 'How far the catch-up is, as its progress line says (by transactions when the node tells them); 100 once following',
      registers,
    });
    this.catchUpEta = new Gauge({
      name: 'addrsum_indexer_catch_up_eta_seconds',
      help: 'Estimated seconds until the catch-up ends, from the recent rate (-1 = unknown; 0 once following)',
      registers,
    });
    this.historyBuildHeight = new Gauge({
      name: 'addrsum_indexer_history_built_height',
      help: 'While history is built for an index that had none: the last height built (-1 = none yet)',
      registers,
    });
    this.mempoolReconcileSeconds = new Histogram({
      name: 'addrsum_indexer_mempool_reconcile_seconds',
      help: "Time of one incremental reconcile of the mempool view with the node's getrawmempool",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers,
    });
    this.zmqConnected = new Gauge({
      name: 'addrsum_indexer_zmq_connected',
      help: "1 while the ZMQ subscription is connected to the node's publisher, by topics (hashblock, mempool)",
      labelNames: ['topics'],
      registers,
    });
    // prom-client awaits an async collect(): a scrape asks the index through the writer port, which answers with a Promise.
    const sampled = (name: string, help: string, read: () => number | null | Promise<number | null>) =>
      new Gauge({
        name,
        help,
        registers,
        async collect(this: Gauge) {
          const value = await read();
          if (value !== null) this.set(value);
        },
      });
    sampled('addrsum_indexer_db_bytes', 'Size of the chain database file', () => this.fileBytes(''));
    sampled('addrsum_indexer_wal_bytes', "Size of the chain database's write-ahead log", () => this.fileBytes('-wal'));
    sampled('addrsum_indexer_utxos', 'Unspent outputs in the index', async () => (await this.totals?.())?.utxos ?? null);
    sampled(
      'addrsum_indexer_scripts',
      'Distinct scripts holding unspent outputs in the index',
      async () => (await this.totals?.())?.scripts ?? null,
    );
    sampled('addrsum_indexer_mempool_transactions', 'Transactions in the mempool view', () => this.mempoolSize?.() ?? null);
    buildInfoGauge(registers);
    // Prefixed like the API's (addrsum_api_process_*), so one scrape config and dashboard tell them apart.
    if (withDefaults) collectDefaultMetrics({ register: this.registry, prefix: 'addrsum_indexer_' });
  }

  private dbFile: string | null = null;
  private totals: (() => Promise<{ utxos: number; scripts: number }>) | null = null;
  private mempoolSize: (() => Promise<number>) | null = null;

  /**
   * What the gauges read at each scrape: the database file (and its -wal; null: the index is in
   * PostgreSQL, whose sizes the server reports), the index's totals, the mempool view.
   */
  watch(sources: {
    dbFile: string | null;
    totals: () => Promise<{ utxos: number; scripts: number }>;
    mempoolSize: () => Promise<number>;
  }): void {
    this.dbFile = sources.dbFile;
    this.totals = sources.totals;
    this.mempoolSize = sources.mempoolSize;
  }

  private fileBytes(suffix: string): number | null {
    if (this.dbFile === null) return null;
    try {
      return statSync(this.dbFile + suffix).size;
    } catch {
      return 0; // no WAL between checkpoints that truncate it, or the file not created yet
    }
  }

  /** The node answered a request. */
  nodeSeen(at = Date.now()): void {
    this.nodeLastSeen.set(Math.floor(at / 1000));
  }

  setHeights(indexed: number | null, node: number | null): void {
    if (indexed !== null) this.indexedHeight.set(indexed);
    if (node !== null) this.nodeHeight.set(node);
    if (indexed !== null && node !== null) this.lag.set(Math.max(0, node - indexed));
  }
}
