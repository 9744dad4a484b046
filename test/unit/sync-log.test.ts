/**
 * What the indexer tells an operator: progress lines while catching up (weighted by transactions), one
 * "caught up" line, then one line per new tip. The Syncer runs in-process against a BtcChain (blocks
 * served from memory) into an in-memory ChainStore, with a test clock and its log lines captured.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockSource } from '../../indexer/block-source.js';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { NodeClient } from '../../src/node/node-client.js';
import { retryingSource } from '../../indexer/node-source.js';
import type { ChainTxPosition } from '../../indexer/progress.js';
import { Syncer } from '../../indexer/sync.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { silentLogger } from '../../src/logger.js';
import { BtcChain } from '../support/btc-chain.js';
import { startFakeNode, type FakeNode } from '../support/fake-node.js';

interface Line {
  level: 'info' | 'warn';
  obj: Record<string, unknown>;
  msg: string;
}

/** The chain's transaction count up to `height` (Core's nChainTx). */
const txCount = (chain: BtcChain, height: number) => chain.blocks.slice(0, height + 1).reduce((n, b) => n + b.txids.length, 0);

/** A node over `chain`: headers `headersAhead` past its blocks (its own download), `nodeProgress` as told. */
function memorySource(chain: BtcChain, opts: { nodeProgress?: number; knowsTxCounts?: boolean } = {}) {
  const state = { headersAhead: 0 };
  const source: BlockSource = {
    getTipHeights: () => Promise.resolve({ blocks: chain.tipHeight, headers: chain.tipHeight + state.headersAhead }),
    getBlockHash: (height) => Promise.resolve(chain.blocks[height]!.hash),
    isInActiveChain: (hash) => Promise.resolve(chain.lookup(hash)?.active === true),
    getBlock: (hash) => Promise.resolve(chain.lookup(hash)!.block.raw),
    chainTxPosition: (hash): Promise<ChainTxPosition | null> => {
      if (opts.knowsTxCounts === false) return Promise.resolve(null);
      const block = chain.lookup(hash)!.block;
      return Promise.resolve({
        indexedTxs: txCount(chain, block.height),
        nodeTxs: txCount(chain, chain.tipHeight),
        nodeProgress: opts.nodeProgress ?? 1,
      });
    },
  };
  return { source, state };
}

function setup(chain: BtcChain, source: BlockSource) {
  const lines: Line[] = [];
  let now = 0;
  const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest', undoDepth: 10 });
  stores.push(store);
  const syncer = new Syncer(
    new SqliteIndexWriter(store, 'BTC', 'regtest'),
    source,
    // One block per commit and a line at every commit: each step of the catch-up is visible.
    { pollIntervalMs: 10, prefetch: 4, undoDepth: 10, batchTxs: 1, progressEveryMs: 0, now: () => (now += 1000) },
    {
      info: (obj, msg) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
      warn: (obj, msg) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    },
    new IndexerMetrics('BTC', false),
  );
  /** Passes until the index is not behind (what run() does between waits). */
  const settle = async () => {
    const signal = new AbortController().signal;
    while (await syncer.syncOnce(signal));
  };
  const take = () => lines.splice(0, lines.length);
  return { syncer, settle, take, store };
}

const stores: ChainStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const kinds = (lines: Line[]) =>
  lines.map((l) =>
    l.msg.startsWith('catching up')
      ? 'progress'
      : l.msg.startsWith('caught up')
        ? 'caught up'
        : l.msg.startsWith('new tip')
          ? 'tip'
          : l.msg,
  );

describe('indexer log lines', () => {
  it('catches up with transaction-weighted progress, says "caught up" once, then one line per new tip', async () => {
    const chain = new BtcChain('sync-log');
    // Before height 101 blocks hold only their coinbase; after it several transactions each, so shares
    // of heights and of transactions differ widely.
    chain.mine(130);
    const { source } = memorySource(chain, { nodeProgress: 0.8 });
    const { settle, take } = setup(chain, source);
    await settle();
    const catchUp = take();
    const progress = catchUp.filter((l) => l.msg.startsWith('catching up'));
    expect(progress.length).toBeGreaterThan(100);
    expect(kinds(catchUp).at(-1)).toBe('caught up');
    expect(kinds(catchUp).filter((k) => k === 'caught up')).toHaveLength(1);
    expect(catchUp.at(-1)!.obj).toEqual({ height: 130, hash: chain.tip.hash });

    const total = txCount(chain, 130);
    for (const line of progress) {
      const height = line.obj.height as number;
      const byTxs = (100 * txCount(chain, height) * 0.8) / total;
      expect(line.obj).toMatchObject({ basis: 'transactions', nodePercent: 80, nodeHeight: 130 });
      expect(line.obj.percent).toBeCloseTo(byTxs, 2);
      expect(line.msg).toMatch(/^catching up: \d+\/130 \(\d+\.\d\d% of transactions; node 80\.00% verified\), .* ETA (\d+:\d\d:\d\d|\?)$/);
    }
    const at100 = progress.find((l) => l.obj.height === 100)!;
    // By heights this would read 76.9%; by transactions it is far less.
    expect(at100.obj.percent as number).toBeLessThan(40);

    chain.mine(3);
    await settle();
    const tips = take();
    expect(kinds(tips)).toEqual(['tip', 'tip', 'tip']);
    tips.forEach((line, i) => {
      const block = chain.blocks[131 + i]!;
      expect(line.obj).toEqual({ height: block.height, hash: block.hash, txs: block.txids.length, ms: expect.any(Number) as number });
      expect(line.msg).toBe(`new tip ${block.height} ${block.hash}: ${block.txids.length} txs, ${line.obj.ms as number} ms`);
    });

    // Nothing new: silence.
    await settle();
    expect(take()).toEqual([]);

    // A long gap (the node was away) is a catch-up again, ending in a new "caught up".
    chain.mine(15);
    await settle();
    const again = kinds(take());
    expect(again.filter((k) => k === 'tip')).toEqual([]);
    expect(again.filter((k) => k === 'progress').length).toBeGreaterThan(10);
    expect(again.at(-1)).toBe('caught up');
  });

  it('is not caught up while the node itself is still downloading (headers ahead of blocks)', async () => {
    const chain = new BtcChain('sync-log-ibd');
    chain.mine(20);
    const { source, state } = memorySource(chain);
    state.headersAhead = 50;
    const { settle, take } = setup(chain, source);
    await settle();
    expect(kinds(take())).not.toContain('caught up');
    state.headersAhead = 0;
    await settle();
    expect(kinds(take())).toEqual(['caught up']);
  });

  it('falls back to heights when the node cannot count transactions', async () => {
    const chain = new BtcChain('sync-log-heights');
    chain.mine(12);
    const { settle, take } = setup(chain, memorySource(chain, { knowsTxCounts: false }).source);
    await settle();
    const progress = take().filter((l) => l.msg.startsWith('catching up'));
    expect(progress.length).toBeGreaterThan(5);
    for (const line of progress) {
      expect(line.obj).toMatchObject({ basis: 'blocks', percent: Number(((100 * (line.obj.height as number)) / 12).toFixed(2)) });
      expect(line.obj).not.toHaveProperty('nodePercent');
    }
  });
});

describe('chainTxPosition through the node client', () => {
  let node: FakeNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  it('asks getchaintxstats for both tips, and gives null rather than failing when the node cannot tell', async () => {
    const chain = new BtcChain('sync-log-rpc');
    chain.mine(110);
    node = await startFakeNode(chain);
    const client = new NodeClient({ url: node.url, log: silentLogger() });
    try {
      const source = retryingSource(client, silentLogger(), new IndexerMetrics('BTC', false), new AbortController().signal);
      expect(await source.chainTxPosition(chain.blocks[105]!.hash)).toEqual({
        indexedTxs: txCount(chain, 105),
        nodeTxs: txCount(chain, 110),
        nodeProgress: 1,
      });
      // A block the node does not have: RPC error, no retry, no throw.
      expect(await source.chainTxPosition('11'.repeat(32))).toBeNull();
      expect(node.calls.get('getchaintxstats')).toBe(3);
    } finally {
      client.close();
    }
  });
});
