/**
 * The real indexer process on the BTC network, following a chain this test builds with bitcoinjs-lib
 * (signed spends of every address kind) and serves through a bitcoind stand-in. Expected balances come
 * from the builder's own UTXO model, never from our code.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToScript } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import { chainDbPath } from '../../src/store/paths.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { BtcChain } from '../support/btc-chain.js';
import { startFakeNode, type FakeNode } from '../support/fake-node.js';
import { FakeNodeWorld } from '../support/fake-node-world.js';
import { HashBlockPublisher } from '../../harness/hashblock-publisher.js';
import { checkIndex, indexedTip, type Expected } from '../../harness/index-check.js';
import { runVerifyCli, makeDataDir, startIndexer, waitFor } from '../../harness/indexer-process.js';
import type { IndexerWorld } from '../../harness/indexer-world.js';

const params = chainParams('BTC', 'regtest');

function expectations(chain: BtcChain): Expected[] {
  const out: Expected[] = [];
  for (const a of chain.addresses()) {
    const decoded = addressToScript(params, a.address);
    if (!decoded.ok) throw new Error(`builder address ${a.address} does not decode: ${decoded.error.message}`);
    const b = chain.balanceOf(decoded.script.toString('hex'));
    out.push({ label: `${a.kind} ${a.address}`, script: decoded.script, sats: b.sats, utxos: b.utxos });
  }
  for (const s of chain.scripts()) {
    const b = chain.balanceOf(s.script);
    out.push({ label: `${s.kind} script ${s.script.slice(0, 40)}`, script: Buffer.from(s.script, 'hex'), sats: b.sats, utxos: b.utxos });
  }
  return out;
}

function expectIndexEquals(dbPath: string, chain: BtcChain): void {
  const report = checkIndex(dbPath, expectations(chain));
  expect(report.tipHash).toBe(chain.tip.hash);
  expect(report.tipHeight).toBe(chain.tipHeight);
  expect(report.mismatches).toEqual([]);
  expect(report.totals).toEqual(chain.totals());
  expect(report.aggregateDifferences).toBe(0);
  expect(report.chainProblems).toEqual([]);
}

const runVerify = (dataDir: string) => runVerifyCli('BTC', dataDir);

describe('BTC indexer against a built chain', () => {
  const chain = new BtcChain('indexer-btc');
  let fw: FakeNodeWorld;
  let w: IndexerWorld;
  let node: FakeNode;
  let dataDir: string;
  let dbPath: string;

  beforeAll(async () => {
    chain.mine(260, { txsPerBlock: 4 });
    // Slow enough block reads that catch-up outlasts five kill-and-restart rounds on a fast machine.
    fw = await FakeNodeWorld.start(chain, { blockDelayMs: 10 });
    ({ node, world: w } = fw);
    ({ dataDir, dbPath } = w);
  });

  afterAll(async () => {
    await fw?.close();
  });

  const atTip = () => indexedTip(dbPath)?.hash === chain.tip.hash;

  it('catches up despite being SIGKILLed at random moments, then matches the chain to the satoshi', async () => {
    // Kill at random points while it catches up, at least five times, then let it finish.
    const kills = await w.killDuringCatchUp(5, () => expect(runVerify(dataDir)).toMatchObject({ status: 0 }));
    expect(kills).toBeGreaterThanOrEqual(5);
    await w.startIndexer();
    await w.waitForTip('initial catch-up', 90_000);
    expectIndexEquals(dbPath, chain);
    // The stand-in serves REST like `bitcoind -rest=1`, so blocks must have come as raw bytes over it.
    expect(node.calls.get('rest:block') ?? 0).toBeGreaterThanOrEqual(chain.tip.height);
  });

  it('follows new blocks at the tip', async () => {
    chain.mine(6, { txsPerBlock: 5 });
    await w.waitForTip('tip following', 30_000);
    expectIndexEquals(dbPath, chain);
  });

  it('rolls back a reorg and applies the competing branch', async () => {
    for (const depth of [3, 6]) {
      chain.reorg(depth, { txsPerBlock: 5 });
      await w.waitForTip(`reorg of ${depth}`, 30_000);
      expectIndexEquals(dbPath, chain);
    }
    expect(runVerify(dataDir)).toMatchObject({ status: 0 });
  });

  it('wakes on a ZMQ hashblock from a real zeromq socket, and polling still catches a lost one', async () => {
    const publisher = await HashBlockPublisher.bind();
    try {
      // A poll interval far longer than the wait below: reaching the new tip within that wait can only
      // be the ZMQ message's doing.
      await w.startIndexer({ pollIntervalMs: 600_000, env: { ADDRSUM_BTC_ZMQ: publisher.endpoint } });
      // The index is already at the tip: wait for the first pass to end (it logs that it follows new
      // blocks just before it waits), or that pass could find the block mined below.
      await waitFor('the first pass', () => /caught up at \d+; following new blocks/.test(w.indexer!.output()), 30_000, w.indexer);
      await publisher.subscribed('hashblock');

      chain.mine(1, { txsPerBlock: 3 });
      expect(atTip(), 'the new block is not indexed before the message').toBe(false);
      await publisher.publish(chain.tip.hash);
      await w.waitForTip('the ZMQ wake-up', 10_000);
      expectIndexEquals(dbPath, chain);
    } finally {
      publisher.close();
    }
    // ZMQ configured, but the message is lost (here: never sent): the poll timer still finds the block.
    const silent = await HashBlockPublisher.bind();
    try {
      await w.startIndexer({ pollIntervalMs: 300, env: { ADDRSUM_BTC_ZMQ: silent.endpoint } });
      await w.waitForTip('start-up sync', 30_000);
      chain.mine(1, { txsPerBlock: 3 });
      await w.waitForTip('the poll to find the block', 10_000);
      expectIndexEquals(dbPath, chain);
    } finally {
      silent.close();
    }
  });

  it("publishes the node's header height while the node is still downloading blocks", async () => {
    const nodeHeight = () => {
      const reader = ChainReader.open(dbPath);
      try {
        return reader.status()?.nodeHeight;
      } finally {
        reader.close();
      }
    };
    node.setHeadersAhead(50);
    chain.mine(1, { txsPerBlock: 2 });
    // The indexer follows the blocks the node has, and records the header height for the API's lag check.
    // (The height is recorded when a pass starts, the block committed later in it: wait for both.)
    await w.waitForTip('the new block', 30_000);
    await waitFor('the header height', () => nodeHeight() === chain.tipHeight + 50, 30_000, w.indexer);
    node.setHeadersAhead(0);
    await waitFor('the block height again', () => nodeHeight() === chain.tipHeight, 30_000, w.indexer);
  });

  it('refuses a second indexer on the same database with a clear message', async () => {
    const second = await startIndexer({ chain: 'BTC', dataDir, rpcUrl: node.url });
    const code = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toMatch(/already|lock/i);
    expect(second.output()).not.toMatch(/\n\s+at .*\(/); // no stack trace
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await w.stopIndexer()).toBe(0);
    expect(runVerify(dataDir)).toMatchObject({ status: 0 });
  });

  // The header backfill (and a history build) wait for the first catch-up; a stop before it must end them.
  it('stops cleanly on SIGTERM during its first catch-up, with history on', async () => {
    // Each block a second late: the catch-up of the 260 blocks is under way when the stop comes.
    const slow = await startFakeNode(chain, { blockDelayMs: 1000 });
    const dir = await makeDataDir();
    const first = await startIndexer({ chain: 'BTC', dataDir: dir, rpcUrl: slow.url, env: { ADDRSUM_HISTORY: 'true' } });
    try {
      const fetched = () => (slow.calls.get('getblock') ?? 0) + (slow.calls.get('rest:block') ?? 0);
      await waitFor('a first block fetch', () => fetched() > 0, 30_000, first);
      first.kill('SIGTERM');
      const exit = await Promise.race([first.exited, new Promise((resolve) => setTimeout(resolve, 30_000, 'still running'))]);
      expect(exit).toBe(0);
      expect(first.output()).toContain('indexer stopped cleanly');
      expect(indexedTip(chainDbPath(dir, 'BTC'))?.height ?? -1).toBeLessThan(chain.tipHeight);
    } finally {
      first.kill('SIGKILL');
      await slow.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps retrying with a clear message when the RPC password is wrong', async () => {
    const badUrl = node.url.replace(/:[^:@/]+@/, ':wrong@');
    const dir = await makeDataDir();
    const bad = await startIndexer({ chain: 'BTC', dataDir: dir, rpcUrl: badUrl });
    try {
      await waitFor('an AUTH retry line', () => /AUTH/.test(bad.output()), 20_000, bad);
      expect(bad.child.exitCode).toBeNull();
      expect(bad.output()).not.toContain('wrong@');
      expect(bad.output()).not.toMatch(/\n\s+at .*\(/);
    } finally {
      bad.kill('SIGTERM');
      expect(await bad.exited).toBe(0);
      // Through the shutdown path (index closed), not an event loop that ran dry on a pending wait.
      expect(bad.output()).toContain('indexer stopped cleanly');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
