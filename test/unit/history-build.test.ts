/**
 * The indexer's history build (indexer/history-build.ts) in-process against a BtcChain served from memory:
 * history built for an index synced without it is the history an index kept from genesis holds, byte for
 * byte, also when the node's chain moved under the build; a pruned node stops it by the first missing height.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockSource } from '../../indexer/block-source.js';
import { checkNotPruned, HistoryBlocksPruned, HistoryBuilder } from '../../indexer/history-build.js';
import { IndexerMetrics } from '../../indexer/metrics.js';
import { Syncer } from '../../indexer/sync.js';
import type { LogSink } from '../../src/logger.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { BtcChain } from '../support/btc-chain.js';

const UNDO_DEPTH = 10;

/** A node over `chain`'s active blocks; `getBlock` may be replaced to inject failures. */
function memorySource(chain: BtcChain): BlockSource {
  return {
    getTipHeights: () => Promise.resolve({ blocks: chain.tipHeight, headers: chain.tipHeight }),
    getBlockHash: (height) => Promise.resolve(chain.blocks[height]!.hash),
    isInActiveChain: (hash) => Promise.resolve(chain.lookup(hash)?.active === true),
    getBlock: (hash) => Promise.resolve(chain.lookup(hash)!.block.raw),
    chainTxPosition: () => Promise.resolve(null),
  };
}

const stores: ChainStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function index(source: BlockSource, log: LogSink = { info: () => undefined, warn: () => undefined }) {
  const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest', undoDepth: UNDO_DEPTH });
  stores.push(store);
  const writer = new SqliteIndexWriter(store, 'BTC', 'regtest');
  const metrics = new IndexerMetrics('BTC', false);
  const syncer = new Syncer(writer, source, { pollIntervalMs: 10, prefetch: 4, undoDepth: UNDO_DEPTH, batchTxs: 7 }, log, metrics);
  const builder = new HistoryBuilder(
    writer,
    source,
    // Small batches and a line per commit: every step of the build is its own commit.
    { prefetch: 3, batchTxs: 5, commitIntervalMs: 0, pollIntervalMs: 5, progressEveryMs: 0 },
    log,
    metrics,
  );
  const settle = async (): Promise<void> => {
    const signal = new AbortController().signal;
    while (await syncer.syncOnce(signal));
  };
  return { store, writer, builder, settle };
}

/** Every history row but the before-images (which depend on where the tip stood at each commit). */
function historyRows(store: ChainStore): unknown[] {
  const all = (sql: string) => store.db.prepare(sql).all();
  return [
    all('SELECT hex(script_key) AS k, chunk, hex(data) AS d FROM history ORDER BY script_key, chunk'),
    all('SELECT grp, hex(txids) AS t FROM history_txids ORDER BY grp'),
    all('SELECT first_tx, height FROM history_blocks ORDER BY first_tx'),
    all("SELECT key, value FROM meta WHERE key IN ('history', 'history_next_tx') ORDER BY key"),
  ];
}

function capture(): { log: LogSink; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: { info: (_, msg) => lines.push(msg), warn: (_, msg) => lines.push(msg) } };
}

describe('building history for an index that had none', () => {
  it('equals history kept from genesis, row for row, and says where it stands as it goes', async () => {
    const chain = new BtcChain('history-build');
    chain.mine(60);
    const { log, lines } = capture();
    const later = index(memorySource(chain), log);
    await later.settle();
    await later.writer.setHistory(true);
    expect(await later.writer.historyBuild()).toEqual({ height: -1, tipHeight: 60 });
    await later.builder.run(new AbortController().signal);
    expect(await later.writer.historyBuild()).toBeNull();

    const kept = index(memorySource(chain));
    await kept.writer.setHistory(true);
    await kept.settle();
    expect(historyRows(later.store)).toEqual(historyRows(kept.store));
    expect(historyRows(kept.store)[0]).not.toEqual([]);
    expect(lines.find((l) => l.startsWith('building history from'))).toMatch(/^building history from block 0 to the tip 60/);
    expect(lines.filter((l) => l.startsWith('building history: ')).length).toBeGreaterThan(3);
    expect(lines.at(-1)).toMatch(/^history built/);
  });

  it('fetches again when the node switched branches under the build, and ends on the new chain', async () => {
    const chain = new BtcChain('history-build-reorg');
    chain.mine(40);
    const { log, lines } = capture();
    const later = index(memorySource(chain), log);
    await later.settle();
    await later.writer.setHistory(true);
    // The node moves to another branch the index has not followed yet: the build's blocks stop matching.
    chain.reorg(4);
    const built = later.builder.run(new AbortController().signal);
    await expect.poll(() => lines.some((l) => l.includes('the chain moved under the batch')), { timeout: 30_000 }).toBe(true);
    await later.settle();
    await built;

    const kept = index(memorySource(chain));
    await kept.writer.setHistory(true);
    await kept.settle();
    expect(historyRows(later.store)).toEqual(historyRows(kept.store));
  });

  it('stops on a pruned node, naming the first height it lacks', async () => {
    const chain = new BtcChain('history-build-pruned');
    chain.mine(30);
    const source = memorySource(chain);
    const later = index(source);
    await later.settle();
    await later.writer.setHistory(true);
    // The node serves blocks 0–4, then has lost those below 12 (requests go out in height order).
    const getBlock = source.getBlock;
    let served = 0;
    source.getBlock = (hash) =>
      chain.lookup(hash)!.block.height < 12 && served++ >= 5
        ? Promise.reject(new Error('Block not available (pruned data)'))
        : getBlock(hash);
    const stopped = await later.builder.run(new AbortController().signal).then(
      () => null,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(HistoryBlocksPruned);
    expect((stopped as HistoryBlocksPruned).message).toMatch(/block 5 \(the first missing height\)/);
    // What was built before stays, and a node with the blocks again resumes from there.
    expect((await later.writer.historyBuild())!.height).toBeLessThan(5);
    source.getBlock = getBlock;
    await later.builder.run(new AbortController().signal);
    expect(await later.writer.historyBuild()).toBeNull();
  });

  it('refuses up front when getblockchaininfo says the blocks it needs are pruned', () => {
    expect(() => checkNotPruned({ height: 3, tipHeight: 90 }, null)).not.toThrow();
    expect(() => checkNotPruned({ height: 3, tipHeight: 90 }, 4)).not.toThrow();
    expect(() => checkNotPruned({ height: 3, tipHeight: 90 }, 5)).toThrow(/block 4 \(the first missing height\)/);
    expect(() => checkNotPruned({ height: -1, tipHeight: 90 }, 1)).toThrow(/block 0 \(the first missing height\)/);
  });
});
