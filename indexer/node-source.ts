import { ChainChanged, type BlockSource } from './block-source.js';
import type { IndexerMetrics } from './metrics.js';
import { NodeError, withRetry, type NodeClient } from '../src/node/node-client.js';
import type { LogSink } from '../src/logger.js';
import type { HeaderSource } from './header-backfill.js';
import { fetchHeaders } from './node-headers.js';

/**
 * The sync loop's view of a node: every call retried with backoff while the node is down, warming up
 * or refusing our password (the process never exits on those), until shutdown aborts the wait.
 */
export function retryingSource(client: NodeClient, log: LogSink, metrics: IndexerMetrics, signal: AbortSignal): BlockSource {
  const retry = retrying(log, metrics, signal);
  return {
    getTipHeights: async () => {
      const { blocks, headers } = await retry('getblockchaininfo', () => client.getChainInfo());
      return { blocks, headers };
    },
    getBlockHash: async (height) => {
      try {
        return await retry('getblockhash', () => client.getBlockHash(height));
      } catch (err) {
        // Past the node's tip: its chain got shorter (invalidateblock, reorg) since we asked its height.
        if (err instanceof NodeError && err.code === 'NOT_FOUND') throw new ChainChanged(err.message, { cause: err });
        throw err;
      }
    },
    isInActiveChain: (hash) => retry('getblockheader', () => client.isInActiveChain(hash)),
    getBlock: (hash) => retry('getblock', () => client.getBlock(hash)),
    chainTxPosition: async (hash) => {
      try {
        const [indexedTxs, info] = await Promise.all([client.getChainTxCount(hash), client.getChainInfo()]);
        const nodeTxs = await client.getChainTxCount(info.bestblockhash);
        return { indexedTxs, nodeTxs, nodeProgress: info.verificationprogress };
      } catch (err) {
        if (err instanceof NodeError) return null;
        throw err;
      }
    },
  };
}

/** Every call retried as retryingSource's; what was said last counts as the node seen. */
function retrying(log: LogSink, metrics: IndexerMetrics, signal: AbortSignal) {
  return async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const value = await withRetry(fn, { log, signal, what, onRetry: (err) => metrics.retries.inc({ code: err.code }) });
    metrics.nodeSeen();
    return value;
  };
}

/** The header backfill's view of the node (header-backfill.ts), retried as retryingSource's. */
export function retryingHeaderSource(client: NodeClient, log: LogSink, metrics: IndexerMetrics, signal: AbortSignal): HeaderSource {
  const retry = retrying(log, metrics, signal);
  return {
    getBlockHash: (height) => retry('getblockhash', () => client.getBlockHash(height)),
    getHeaders: (height, hash, count) => retry('REST headers', () => fetchHeaders(client, height, hash, count)),
  };
}
