/** Wires the mempool follower of one indexer process: node source, ZMQ topics (when configured), timer. */
import type { ChainConfig } from '../src/config.js';
import type { IndexWriter } from '../src/store/ports.js';
import { MempoolFollower } from './mempool-follow.js';
import { nodeMempoolSource } from './mempool-source.js';
import type { NodeClient } from '../src/node/node-client.js';
import { followMempoolEvents } from './zmq-mempool.js';
import type { LogSink } from '../src/logger.js';
import type { IndexerMetrics } from './metrics.js';

/** Resolves when `signal` aborts; follow failures are logged and retried, never fatal. */
export async function startMempoolFollow(
  writer: Pick<IndexWriter, 'mempool' | 'tip'>,
  client: NodeClient,
  config: ChainConfig,
  wakeSync: () => void,
  log: LogSink,
  signal: AbortSignal,
  metrics?: IndexerMetrics,
): Promise<void> {
  const follower = new MempoolFollower(
    writer.mempool,
    () => writer.tip(),
    nodeMempoolSource(client),
    {
      pollIntervalMs: config.mempoolPollMs,
      onRetry: (code) => metrics?.retries.inc({ code }),
      onReconcile: (seconds) => metrics?.mempoolReconcileSeconds.observe(seconds),
    },
    log,
    wakeSync,
  );
  const endpoint = config.zmqMempool ?? config.zmq;
  if (endpoint !== undefined) {
    void followMempoolEvents(endpoint, follower, log, signal, (up) => metrics?.zmqConnected.set({ topics: 'mempool' }, up ? 1 : 0));
  }
  await follower.run(signal);
}
