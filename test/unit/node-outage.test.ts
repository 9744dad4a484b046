/**
 * A node outage as the indexer lives through it: the sync loop (Syncer over a retrying source, as
 * node-source.ts builds it) and the mempool follower both fail against a node that is away for 40 s of
 * a fake clock, then answer again. Together they write a handful of lines, one saying the node is back,
 * and every failed attempt counts in node_retries_total.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BlockSource } from '../../indexer/block-source.js';
import { MempoolFollower } from '../../indexer/mempool-follow.js';
import type { MempoolSource } from '../../indexer/mempool-source.js';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { NodeError, withRetry } from '../../src/node/node-client.js';
import { Syncer } from '../../indexer/sync.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { serialWriter } from '../../indexer/serial-writer.js';
import { BtcChain } from '../support/btc-chain.js';

const OUTAGE_MS = 40_000;

afterEach(() => vi.useRealTimers());

/** The node over `chain`, unreachable while `state.down` (what a stopped bitcoind looks like to us). */
function node(chain: BtcChain) {
  const state = { down: false };
  const up = <T>(value: () => T): Promise<T> =>
    state.down ? Promise.reject(new NodeError('UNREACHABLE', 'connect ECONNREFUSED 127.0.0.1:1', true)) : Promise.resolve(value());
  const blocks: BlockSource = {
    getTipHeights: () => up(() => ({ blocks: chain.tipHeight, headers: chain.tipHeight })),
    getBlockHash: (height) => up(() => chain.blocks[height]!.hash),
    isInActiveChain: (hash) => up(() => chain.lookup(hash)?.active === true),
    getBlock: (hash) => up(() => chain.lookup(hash)!.block.raw),
    chainTxPosition: () => Promise.resolve(null),
  };
  const mempool: MempoolSource = {
    bestBlockHash: () => up(() => chain.tip.hash),
    mempoolTxids: () => up(() => []),
    rawTransactions: (txids) => up(() => txids.map(() => null)),
  };
  return { state, blocks, mempool };
}

describe('a node outage', () => {
  it('writes at most 15 indexer lines over 40 s, one saying the node is back; every retry is counted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const chain = new BtcChain('outage');
    chain.mine(3);
    const { state, blocks, mempool } = node(chain);
    const lines: string[] = [];
    const log = { info: (_: object, msg: string) => lines.push(msg), warn: (_: object, msg: string) => lines.push(msg) };
    const metrics = new IndexerMetrics('BTC', false);
    const controller = new AbortController();
    const { signal } = controller;
    const onRetry = (err: NodeError) => metrics.retries.inc({ code: err.code });
    // As retryingSource wraps a NodeClient: every call retried with back-off and logged by withRetry.
    const retried: BlockSource = {
      getTipHeights: () => withRetry(() => blocks.getTipHeights(), { log, signal, onRetry, what: 'getblockchaininfo' }),
      getBlockHash: (h) => withRetry(() => blocks.getBlockHash(h), { log, signal, onRetry, what: 'getblockhash' }),
      isInActiveChain: (h) => withRetry(() => blocks.isInActiveChain(h), { log, signal, onRetry, what: 'getblockheader' }),
      getBlock: (h) => withRetry(() => blocks.getBlock(h), { log, signal, onRetry, what: 'getblock' }),
      chainTxPosition: () => Promise.resolve(null),
    };
    const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest', undoDepth: 10 });
    // Shared as main.ts shares it: one writer call at a time.
    const writer = serialWriter(new SqliteIndexWriter(store, 'BTC', 'regtest'));
    const syncer = new Syncer(writer, retried, { pollIntervalMs: 1000, prefetch: 2, undoDepth: 10 }, log, metrics);
    const follower = new MempoolFollower(
      writer.mempool,
      () => writer.tip(),
      mempool,
      {
        pollIntervalMs: 1000,
        onRetry: (code) => metrics.retries.inc({ code }),
        onReconcile: (sec) => metrics.mempoolReconcileSeconds.observe(sec),
      },
      log,
    );
    const running = Promise.all([syncer.run(signal), follower.run(signal)]);
    try {
      await vi.waitFor(async () => {
        await vi.advanceTimersByTimeAsync(100);
        expect(lines.some((l) => l.startsWith('caught up'))).toBe(true);
      });
      lines.length = 0;

      state.down = true;
      await vi.advanceTimersByTimeAsync(OUTAGE_MS);
      state.down = false;
      chain.mine(1);
      // Back-off is capped at 30 s: within that both loops ask the node again and say so.
      await vi.advanceTimersByTimeAsync(31_000);
      expect(lines.some((l) => l.startsWith('new tip 4 '))).toBe(true);
      expect(lines).toContain('node answers again; mempool follow resumed');
    } finally {
      controller.abort();
      await vi.advanceTimersByTimeAsync(0);
      await running.catch(() => undefined);
      store.close();
    }
    const outageLines = lines.filter((l) => !l.startsWith('new tip'));
    expect(outageLines.length, outageLines.join('\n')).toBeLessThanOrEqual(15);
    expect(outageLines.filter((l) => /answer(s|ed) again/.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(outageLines.filter((l) => l.startsWith('mempool follow')).length).toBeLessThanOrEqual(3);
    const retries = (await metrics.retries.get()).values.find((v) => v.labels.code === 'UNREACHABLE')?.value ?? 0;
    // The sync loop's and the follower's failed attempts, each counted.
    expect(retries).toBeGreaterThanOrEqual(outageLines.filter((l) => l.includes('retrying') || l.includes('still failing')).length);
    expect(retries).toBeGreaterThan(2);
    // Reconciles ran before and after the outage, and were timed.
    expect((await metrics.mempoolReconcileSeconds.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value).toBeGreaterThan(1);
  });
});
