/**
 * Where bench/node.ts's indexing time goes, measured in-process on the same node: the real sync loop
 * (indexer/sync.ts Syncer, as indexer/addrsum-indexer.ts drives it) with its commits counted and timed, and the
 * fetcher alone (RPC + REST + parse, no SQLite). None includes process start. A diagnostic only: the goal figure is the real indexer process.
 */
import { BlockFetcher } from '../indexer/block-fetcher.js';
import { IndexerMetrics } from '../indexer/metrics.js';
import { NodeClient } from '../src/node/node-client.js';
import { retryingSource } from '../indexer/node-source.js';
import { Syncer } from '../indexer/sync.js';
import { ChainStore } from '../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../src/store/sqlite/engine.js';
import { chainDbPath } from '../src/store/paths.js';
import { makeDataDir } from '../harness/indexer-process.js';
import type { Litecoind } from '../harness/litecoind.js';
import { removeIndexDir } from './bench-index.js';
import { trackDir } from './emergency.js';

export interface IndexingProfile {
  seconds: number;
  commits: number;
  /** Time inside ChainStore.applyBlocks (SQLite work and the commit). */
  applySeconds: number;
}

const PREFETCH = 16;
const quiet = { info: () => undefined, warn: () => undefined };

/** Opens a store in a fresh temp dir whose applyBlocks is counted and timed. */
async function countedStore(): Promise<{ store: ChainStore; stats: { commits: number; applyMs: number }; dataDir: string }> {
  const dataDir = await makeDataDir('addrsum-bench-diag-');
  trackDir(dataDir);
  const store = ChainStore.open(chainDbPath(dataDir, 'LTC'), { chain: 'LTC', network: 'regtest' });
  const stats = { commits: 0, applyMs: 0 };
  const apply = store.applyBlocks.bind(store);
  store.applyBlocks = (blocks) => {
    const t = performance.now();
    apply(blocks);
    stats.applyMs += performance.now() - t;
    stats.commits++;
  };
  return { store, stats, dataDir };
}

async function profile(
  node: Litecoind,
  drive: (store: ChainStore, client: NodeClient, signal: AbortSignal) => Promise<void>,
): Promise<IndexingProfile> {
  const { store, stats, dataDir } = await countedStore();
  const client = new NodeClient({ url: node.rpcUrl });
  const controller = new AbortController();
  try {
    const started = performance.now();
    await drive(store, client, controller.signal);
    return { seconds: (performance.now() - started) / 1000, commits: stats.commits, applySeconds: stats.applyMs / 1000 };
  } finally {
    controller.abort();
    client.close();
    store.close();
    await removeIndexDir(dataDir);
  }
}

/** The real sync loop until the store reaches `height`. */
export function profileSyncLoop(node: Litecoind, height: number): Promise<IndexingProfile> {
  return profile(node, async (store, client, signal) => {
    const metrics = new IndexerMetrics('LTC', false);
    const syncer = new Syncer(
      new SqliteIndexWriter(store, 'LTC', 'regtest'),
      retryingSource(client, quiet, metrics, signal),
      { pollIntervalMs: 1000, prefetch: PREFETCH, undoDepth: 288 },
      quiet,
      metrics,
    );
    while ((store.tip()?.height ?? -1) < height) await syncer.syncOnce(signal);
  });
}

/** The fetcher alone: every block fetched and parsed in height order, nothing written. */
export async function profileFetchOnly(node: Litecoind, height: number): Promise<number> {
  const client = new NodeClient({ url: node.rpcUrl });
  const controller = new AbortController();
  const fetcher = new BlockFetcher(retryingSource(client, quiet, new IndexerMetrics('LTC', false), controller.signal), 0, height, PREFETCH);
  try {
    const started = performance.now();
    while (!fetcher.done()) await fetcher.next();
    return (performance.now() - started) / 1000;
  } finally {
    fetcher.stop();
    controller.abort();
    client.close();
  }
}
