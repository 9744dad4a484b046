/**
 * One chain's indexer, as a function: follows the node into its index (`<dataDir>/<chain>.sqlite`, or
 * PostgreSQL when `chains.<C>.indexUrl` is set) until `signal`
 * aborts (then it finishes the block it is applying and commits). A node that is down is waited out
 * with retries; bad configuration and fatal index errors reject.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChainCode, NetworkName } from '../src/chain/params.js';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { openSqliteWriter } from '../src/store/sqlite/engine.js';
import { openPostgresWriter } from '../src/store/postgres/engine.js';
import { describeLocation, indexLocation, type IndexLocation } from '../src/store/paths.js';
import type { IndexWriter } from '../src/store/ports.js';
import { IndexerMetrics } from './metrics.js';
import { startMetricsServer } from './metrics-server.js';
import { NodeClient, withRetry } from '../src/node/node-client.js';
import { checkNode } from './node-check.js';
import { retryingHeaderSource, retryingSource } from './node-source.js';
import { backfillHeaders } from './header-backfill.js';
import { Syncer } from './sync.js';
import { checkNotPruned, HistoryBuilder } from './history-build.js';
import { followHashBlocks } from './zmq.js';
import { checkSnapshot, runBootstrap, type CheckedSnapshot } from './bootstrap-cli.js';
import { startMempoolFollow } from './mempool-start.js';
import { redactUrl } from '../src/redact.js';
import { CodedError } from '../src/coded-error.js';
import { explainListenError } from '../src/listen-error.js';
import { logUtxoListEvent } from './utxo-list-log.js';
import { serialWriter } from './serial-writer.js';

export class IndexerSetupError extends CodedError<'NO_RPC_URL'> {}

export interface IndexerOptions {
  readonly chain: ChainCode;
  /** A `dumptxoutset` file to load the index from before following the node (bootstrap.ts). */
  readonly bootstrapFile?: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export async function main(config: Config, { chain, logger, signal, bootstrapFile }: IndexerOptions): Promise<void> {
  const log = logger.child({ chain, component: 'indexer' });
  const chainConfig = config.chains[chain];
  if (chainConfig.rpcUrl === undefined) {
    throw new IndexerSetupError(
      'NO_RPC_URL',
      `ADDRSUM_${chain}_RPC_URL is not set: the ${chain} indexer needs its node's JSON-RPC URL (http://user:pass@host:port)`,
    );
  }
  const where = indexLocation(config.dataDir, chain, chainConfig.indexUrl);
  const metrics = new IndexerMetrics(chain, true);
  const client = new NodeClient({
    url: chainConfig.rpcUrl,
    ...(chainConfig.rpcCookieFile !== undefined && { cookieFile: chainConfig.rpcCookieFile }),
    log,
    onRequest: (request, seconds) => metrics.rpcSeconds.observe({ request }, seconds),
  });
  // A snapshot is checked (file header, base block on the node) before the database is touched.
  let snapshot: CheckedSnapshot | null = null;
  try {
    if (bootstrapFile !== undefined) snapshot = await checkSnapshot(bootstrapFile, chain, chainConfig.network, client, log, signal);
  } catch (err) {
    client.close();
    throw err;
  }
  // Opening takes the single-writer lock and applies migrations; a second indexer stops here. The only
  // file of indexer/ that knows the engine: everything else speaks the writer port.
  let opened: IndexWriter;
  try {
    opened = await openWriter(where, { chain, network: chainConfig.network, undoDepth: chainConfig.undoDepth });
  } catch (err) {
    client.close();
    throw err;
  }
  const store = serialWriter(opened);
  metrics.watch({
    dbFile: where.engine === 'sqlite' ? where.file : null,
    totals: () => store.totals(),
    mempoolSize: () => store.mempool.size(),
  });
  let metricsServer: Server | undefined;
  let stoppedAt: number | null = null;
  try {
    // Before anything else: a partial bootstrap is no index to follow the node on.
    if (!snapshot) await store.refusePendingBootstrap();
    const { host } = config.api;
    metricsServer = await startMetricsServer(metrics.registry, host, chainConfig.metricsPort).catch((err: unknown) => {
      const who = `the ${chain} indexer's metrics server`;
      throw explainListenError(err, { who, setting: `chains.${chain}.metricsPort`, host, port: chainConfig.metricsPort });
    });
    // The bound port, which differs from the setting when that is 0 (any free port).
    const metricsPort = (metricsServer.address() as AddressInfo).port;
    // Where it resumes: the tip found in the index (after a failover, the promoted database's).
    const tip = await store.tip();
    log.info(
      {
        db: describeLocation(where),
        indexedHeight: tip?.height ?? null,
        node: redactUrl(chainConfig.rpcUrl),
        network: chainConfig.network,
        metricsPort,
      },
      'indexer starting',
    );
    const source = retryingSource(client, log, metrics, signal);
    metrics.setHeights(tip?.height ?? null, null);
    // At startup too, every failure counts in node_retries_total (a wrong password must not look like silence).
    const info = await withRetry(() => client.getChainInfo(), {
      log,
      signal,
      what: 'getblockchaininfo',
      onRetry: (err) => metrics.retries.inc({ code: err.code }),
    });
    metrics.nodeSeen();
    await checkNode(chain, chainConfig.network, info, source);
    // History covers every block or none: on an index that holds blocks (or is about to load a snapshot)
    // without it, it is built from the node's blocks (history-build.ts), which a pruned node may lack.
    await store.setHistory(chainConfig.history);
    if (snapshot) await runBootstrap(snapshot, store, log);
    const build = await store.historyBuild();
    if (build) checkNotPruned(build, info.pruneHeight);
    // After a bootstrap, so that a loaded snapshot gets its listing built in bulk, not row by row.
    await store.setUtxoList(chainConfig.utxoList, (e) => logUtxoListEvent(log, e));
    const syncer = new Syncer(
      store,
      source,
      {
        pollIntervalMs: chainConfig.pollIntervalMs,
        prefetch: chainConfig.prefetch,
        commitIntervalMs: chainConfig.commitIntervalMs,
        undoDepth: chainConfig.undoDepth,
      },
      log,
      metrics,
    );
    if (chainConfig.zmq !== undefined) {
      void followHashBlocks(
        chainConfig.zmq,
        () => syncer.wake.notify(),
        log,
        signal,
        (up) => metrics.zmqConnected.set({ topics: 'hashblock' }, up ? 1 : 0),
      );
    }
    const mempool = chainConfig.mempool
      ? startMempoolFollow(store, client, chainConfig, () => syncer.wake.notify(), log, signal, metrics)
      : null;
    // The first catch-up, or a stop before it: what waits for the one must not outlive the other.
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    const caughtUp = Promise.race([syncer.caughtUp, stopped]).then(() => !signal.aborted);
    // After the first catch-up: balances first, and the two would share the node's block fetches.
    const history =
      build && caughtUp.then((go) => (go ? new HistoryBuilder(store, source, chainConfig, log, metrics).run(signal) : undefined));
    // Beside block sync, once it is on the node's chain (header-backfill.ts); headers never hold up balances.
    const headers = caughtUp.then((go) =>
      go ? backfillHeaders(store, retryingHeaderSource(client, log, metrics, signal), log, { signal }) : undefined,
    );
    await Promise.all([syncer.run(signal), mempool, history, headers]);
  } catch (err) {
    if (!signal.aborted) throw err;
  } finally {
    client.close();
    metricsServer?.close();
    // The tip of the last commit, read while the index is still open (an engine elsewhere cannot answer after close).
    stoppedAt = await store.tip().then(
      (t) => t?.height ?? null,
      () => null,
    );
    await store.close();
  }
  log.info({ height: stoppedAt }, 'indexer stopped cleanly');
}

function openWriter(where: IndexLocation, opts: { chain: ChainCode; network: NetworkName; undoDepth: number }): Promise<IndexWriter> {
  return where.engine === 'postgres' ? openPostgresWriter(where.url, opts) : Promise.resolve(openSqliteWriter(where.file, opts));
}
