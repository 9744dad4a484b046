/**
 * One writer call at a time, in the order made. The sync loop, the mempool follower and the metrics
 * scrape share one writer. While the store answered synchronously, each call ran whole before another
 * loop could run. The port answers with a Promise: an engine that answers later (another machine)
 * would let a block's commit and a mempool commit overlap, and even the SQLite engine lets the loops
 * alternate between awaits. This queue keeps the old order: a call starts once the one before it has
 * settled, and so sees its commit.
 */
import { inOrder } from '../src/in-order.js';
import type { IndexWriter, MempoolWriter } from '../src/store/ports.js';

export function serialWriter(writer: IndexWriter): IndexWriter {
  const queued = inOrder();
  const m = writer.mempool;
  const mempool: MempoolWriter = {
    size: () => queued(() => m.size()),
    // The process's own counter, not the index: nothing to wait for.
    clears: () => m.clears(),
    has: (txid) => queued(() => m.has(txid)),
    txids: () => queued(() => m.txids()),
    add: (txs) => queued(() => m.add(txs)),
    remove: (txids) => queued(() => m.remove(txids)),
    clear: () => queued(() => m.clear()),
  };
  return {
    chain: writer.chain,
    network: writer.network,
    mempool,
    tip: () => queued(() => writer.tip()),
    hashAt: (height) => queued(() => writer.hashAt(height)),
    totals: () => queued(() => writer.totals()),
    base: () => queued(() => writer.base()),
    applyBlocks: (blocks, node) => queued(() => writer.applyBlocks(blocks, node)),
    rollbackTip: () => queued(() => writer.rollbackTip()),
    setNodeHeight: (height, at) => queued(() => writer.setNodeHeight(height, at)),
    headersFrom: () => queued(() => writer.headersFrom()),
    addHeaders: (from, headers) => queued(() => writer.addHeaders(from, headers)),
    loadSnapshot: (rows, base, opts) => queued(() => writer.loadSnapshot(rows, base, opts)),
    refusePendingBootstrap: () => queued(() => writer.refusePendingBootstrap()),
    setUtxoList: (on, onEvent) => queued(() => writer.setUtxoList(on, onEvent)),
    setHistory: (on) => queued(() => writer.setHistory(on)),
    historyBuild: () => queued(() => writer.historyBuild()),
    buildHistory: (blocks) => queued(() => writer.buildHistory(blocks)),
    settle: () => queued(() => writer.settle()),
    close: () => queued(() => writer.close()),
  };
}
