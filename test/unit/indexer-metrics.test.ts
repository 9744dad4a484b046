/**
 * The indexer's operational gauges and histograms: catch-up progress, database and WAL bytes, UTXO and
 * script counts, the mempool view's size, node request latency by kind, and ZMQ connection state.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Publisher } from 'zeromq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { BlockSource } from '../../indexer/block-source.js';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { NodeClient } from '../../src/node/node-client.js';
import { Syncer } from '../../indexer/sync.js';
import { followHashBlocks } from '../../indexer/zmq.js';
import { waitFor } from '../../harness/indexer-process.js';
import { freePort } from '../../harness/ports.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { BtcChain } from '../support/btc-chain.js';
import { startFakeNode } from '../support/fake-node.js';

const silent = { info: () => undefined, warn: () => undefined };
const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-indexer-metrics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function value(metrics: IndexerMetrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const entries = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, unknown>; metricName?: string }>;
  return entries.find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l))?.value;
}

describe('indexer metrics', () => {
  it('catch-up percent and ETA, file sizes, UTXO and script counts, mempool size', async () => {
    const chain = new BtcChain('indexer-metrics');
    chain.mine(120);
    const source: BlockSource = {
      getTipHeights: () => Promise.resolve({ blocks: chain.tipHeight, headers: chain.tipHeight }),
      getBlockHash: (h) => Promise.resolve(chain.blocks[h]!.hash),
      isInActiveChain: (hash) => Promise.resolve(chain.lookup(hash)?.active === true),
      getBlock: (hash) => Promise.resolve(chain.lookup(hash)!.block.raw),
      chainTxPosition: () => Promise.resolve(null),
    };
    const file = path.join(dir, 'btc.sqlite');
    const store = ChainStore.open(file, { chain: 'BTC', network: 'regtest', undoDepth: 10 });
    const metrics = new IndexerMetrics('BTC');
    const writer = new SqliteIndexWriter(store, 'BTC', 'regtest');
    metrics.watch({ dbFile: file, totals: () => writer.totals(), mempoolSize: () => writer.mempool.size() });
    const percents = vi.spyOn(metrics.catchUpPercent, 'set');
    const syncer = new Syncer(
      writer,
      source,
      { pollIntervalMs: 10, prefetch: 4, undoDepth: 10, batchTxs: 1, progressEveryMs: 0 },
      silent,
      metrics,
    );
    const signal = new AbortController().signal;
    try {
      while (await syncer.syncOnce(signal));
      // Each progress line (one per commit here) set it on the way.
      const seen = percents.mock.calls.map(([p]) => p as number);
      expect(seen.filter((p) => p > 0 && p < 100).length).toBeGreaterThan(10);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(await value(metrics, 'addrsum_indexer_catch_up_percent')).toBe(100);
      expect(await value(metrics, 'addrsum_indexer_catch_up_eta_seconds')).toBe(0);
      const totals = store.totals();
      expect(totals.utxos).toBeGreaterThan(0);
      expect(await value(metrics, 'addrsum_indexer_utxos')).toBe(totals.utxos);
      expect(await value(metrics, 'addrsum_indexer_scripts')).toBe(totals.scripts);
      // The checkpoint thread may move bytes from the WAL into the file between a scrape and a stat, so
      // wait for one reading in which the gauges and the files agree.
      let db = 0;
      let wal = 0;
      await waitFor(
        'the size gauges to equal the files',
        async () => {
          db = (await value(metrics, 'addrsum_indexer_db_bytes'))!;
          wal = (await value(metrics, 'addrsum_indexer_wal_bytes'))!;
          return db === statSync(file).size && wal === statSync(`${file}-wal`).size;
        },
        10_000,
      );
      // 120 blocks are in one or the other (the WAL until a checkpoint copies them).
      expect(db + wal).toBeGreaterThan(64 * 1024);
      expect(await value(metrics, 'addrsum_indexer_mempool_transactions')).toBe(store.mempool.size);
    } finally {
      store.close();
    }
  });

  it('times node requests by kind (RPC method, REST), never by hash', async () => {
    const chain = new BtcChain('indexer-metrics-rpc');
    chain.mine(3);
    const node = await startFakeNode(chain);
    const metrics = new IndexerMetrics('BTC');
    const client = new NodeClient({ url: node.url, onRequest: (request, s) => metrics.rpcSeconds.observe({ request }, s) });
    try {
      expect(await client.getBlockCount()).toBe(3);
      await client.getBlock(chain.blocks[2]!.hash);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(/addrsum_indexer_node_request_seconds_count\{chain="BTC",request="getblockcount"\} 1/);
      expect(text).toMatch(/addrsum_indexer_node_request_seconds_count\{chain="BTC",request="REST block"\} 1/);
      expect(text).not.toContain(chain.blocks[2]!.hash);
    } finally {
      client.close();
      await node.close();
    }
  });

  it('says whether the ZMQ subscription is connected', async () => {
    const metrics = new IndexerMetrics('BTC');
    const port = await freePort();
    const endpoint = `tcp://127.0.0.1:${port}`;
    const controller = new AbortController();
    const set = (up: boolean) => metrics.zmqConnected.set({ topics: 'hashblock' }, up ? 1 : 0);
    const following = followHashBlocks(endpoint, () => undefined, silent, controller.signal, set);
    expect(await value(metrics, 'addrsum_indexer_zmq_connected', { topics: 'hashblock' })).toBe(0);
    const publisher = new Publisher();
    await publisher.bind(endpoint);
    await expect.poll(() => value(metrics, 'addrsum_indexer_zmq_connected', { topics: 'hashblock' }), { timeout: 10_000 }).toBe(1);
    publisher.close();
    await expect.poll(() => value(metrics, 'addrsum_indexer_zmq_connected', { topics: 'hashblock' }), { timeout: 10_000 }).toBe(0);
    controller.abort();
    await following;
  });
});
