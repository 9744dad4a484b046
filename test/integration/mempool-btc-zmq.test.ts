/**
 * The BTC indexer's mempool follow over ZMQ: a real zeromq PUB socket publishing bitcoind's `rawtx` and
 * `sequence` messages, the BTC stand-in answering getrawmempool / getrawtransaction. With the reconcile
 * timer far longer than the test, only the messages can move the view: additions (bytes from `rawtx`,
 * or fetched over RPC when only `A` came), a chain of unconfirmed spends, removals with descendants,
 * and a `C` block event that wakes the sync loop. Then, ZMQ silent, the timer reconcile repairs what the
 * messages never said.
 */
import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { BtcChain, type Coin } from '../support/btc-chain.js';
import type { FakeNode } from '../support/fake-node.js';
import { FakeNodeWorld } from '../support/fake-node-world.js';
import { indexedTip } from '../../harness/index-check.js';
import { waitFor } from '../../harness/indexer-process.js';
import type { IndexerWorld } from '../../harness/indexer-world.js';
import { MempoolPublisher } from '../../harness/mempool-publisher.js';
import type { ScriptView } from '../../src/store/index-model.js';

interface MempoolTx {
  txid: string;
  raw: Buffer;
  inputs: Array<{ txid: string; vout: number }>;
  outputs: Array<{ script: string; value: number }>;
}

/** An (unsigned: the indexer does not validate) transaction spending `inputs` to `outputs`. */
function makeTx(inputs: Array<{ txid: string; vout: number }>, outputs: Array<{ script: string; value: number }>): MempoolTx {
  const tx = new Transaction();
  tx.version = 2;
  for (const i of inputs) tx.addInput(Buffer.from(i.txid, 'hex').reverse(), i.vout);
  for (const o of outputs) tx.addOutput(Buffer.from(o.script, 'hex'), BigInt(o.value));
  return { txid: tx.getId(), raw: Buffer.from(tx.toBuffer()), inputs, outputs };
}

/** What the node's mempool implies per script: Δ balance, Δ UTXO count and transactions touching it. */
function expectedDeltas(
  confirmed: ReadonlyMap<string, Coin>,
  pool: readonly MempoolTx[],
): Map<string, { balanceSats: number; utxoCount: number; txCount: number }> {
  const made = new Map<string, { script: string; value: number }>();
  for (const tx of pool) tx.outputs.forEach((o, v) => made.set(`${tx.txid}:${v}`, o));
  const out = new Map<string, { balanceSats: number; utxoCount: number; txCount: number }>();
  const at = (s: string) => out.get(s) ?? (out.set(s, { balanceSats: 0, utxoCount: 0, txCount: 0 }), out.get(s)!);
  for (const tx of pool) {
    const touched = new Set<string>();
    for (const i of tx.inputs) {
      const coin = made.get(`${i.txid}:${i.vout}`) ?? confirmed.get(`${i.txid}:${i.vout}`)!;
      at(coin.script).balanceSats -= coin.value;
      at(coin.script).utxoCount -= 1;
      touched.add(coin.script);
    }
    for (const o of tx.outputs) {
      at(o.script).balanceSats += o.value;
      at(o.script).utxoCount += 1;
      touched.add(o.script);
    }
    for (const s of touched) at(s).txCount += 1;
  }
  return out;
}

describe('BTC mempool follow over ZMQ rawtx/sequence', () => {
  const chain = new BtcChain('mempool-zmq');
  const mempool = new Map<string, Buffer>();
  let fw: FakeNodeWorld;
  let w: IndexerWorld;
  let node: FakeNode;
  let dbPath: string;
  let confirmed: Map<string, Coin>;
  const pool: MempoolTx[] = [];
  /** Left in the mempool by the first test, withdrawn silently by the second. */
  let kept: MempoolTx | undefined;

  beforeAll(async () => {
    chain.mine(120, { txsPerBlock: 3 });
    fw = await FakeNodeWorld.start(chain, { mempool });
    ({ node, world: w } = fw);
    dbPath = w.dbPath;
    confirmed = chain.utxos();
  });

  afterAll(async () => {
    await fw?.close();
  });

  const atTip = () => indexedTip(dbPath)?.hash === chain.tip.hash;

  function views(scripts: readonly string[]): ScriptView[] {
    const reader = ChainReader.open(dbPath);
    try {
      return reader.views(
        scripts.map((s) => Buffer.from(s, 'hex')),
        true,
      )!.items;
    } finally {
      reader.close();
    }
  }

  /** Every script the pool touches shows exactly the deltas the pool implies (others show zeros). */
  function viewMatches(scripts: readonly string[]): boolean {
    const want = expectedDeltas(confirmed, pool);
    return views(scripts).every((v, i) => {
      const w = want.get(scripts[i]!) ?? { balanceSats: 0, utxoCount: 0, txCount: 0 };
      // Regtest deltas are small: compared as numbers (JSON.stringify refuses the view's bigint).
      const u = v.unconfirmed && { ...v.unconfirmed, balanceSats: Number(v.unconfirmed.balanceSats) };
      return JSON.stringify(u) === JSON.stringify(w);
    });
  }

  function add(tx: MempoolTx): MempoolTx {
    mempool.set(tx.txid, tx.raw);
    pool.push(tx);
    return tx;
  }

  function drop(tx: MempoolTx): void {
    mempool.delete(tx.txid);
    pool.splice(pool.indexOf(tx), 1);
  }

  it('applies A/R events, with bytes from rawtx or from getrawtransaction, chains and descendants included', async () => {
    const publisher = await MempoolPublisher.bind();
    try {
      // Reconcile and block polls far longer than the test: only ZMQ messages can change anything now.
      const indexer = await w.startIndexer({
        pollIntervalMs: 600_000,
        toml: 'mempoolPollMs = 600000',
        env: { ADDRSUM_BTC_ZMQ_MEMPOOL: publisher.endpoint },
      });
      await w.waitForTip('start-up sync', 60_000);
      await waitFor('the first reconcile', () => node.calls.has('getrawmempool'), 30_000, indexer);
      await publisher.subscribed('rawtx', 'sequence');

      const coins = [...confirmed].filter(([, c]) => !c.coinbase && c.value > 100_000).slice(0, 3);
      const scripts = [...new Set(chain.addresses().map((a) => a.script))].slice(0, 6);
      const coinScripts = coins.map(([, c]) => c.script);
      const watched = [...new Set([...scripts, ...coinScripts])];
      const [k0, k1, k2] = coins.map(([k]) => ({ txid: k.split(':')[0]!, vout: Number(k.split(':')[1]) }));
      const [c0, c1, c2] = coins.map(([, c]) => c);

      // A chain: t1 spends a confirmed coin, t2 spends t1's output; rawtx then sequence A for each.
      const t1 = add(
        makeTx(
          [k0!],
          [
            { script: scripts[0]!, value: c0!.value - 1_000 },
            { script: scripts[1]!, value: 0 },
          ],
        ),
      );
      const t2 = add(makeTx([{ txid: t1.txid, vout: 0 }], [{ script: scripts[2]!, value: c0!.value - 2_000 }]));
      // t3 arrives as a bare A: the follower fetches its bytes over RPC.
      const t3 = add(
        makeTx(
          [k1!, k2!],
          [
            { script: scripts[3]!, value: c1!.value + c2!.value - 5_000 },
            { script: scripts[0]!, value: 700 },
          ],
        ),
      );
      for (const t of [t1, t2]) {
        await publisher.rawtx(t.raw);
        await publisher.sequence(t.txid, 'A');
      }
      await publisher.sequence(t3.txid, 'A');
      await waitFor('the view to show t1, t2, t3', () => viewMatches(watched), 10_000, indexer);
      expect(views([scripts[3]!])[0]!.unconfirmed!.txCount).toBe(1);
      expect(views([c0!.script])[0]!.unconfirmed!.balanceSats).toBeLessThan(0);
      expect(node.calls.get('getrawtransaction') ?? 0, 'only t3 was fetched').toBe(1);
      expect(node.calls.get('getrawmempool'), 'no reconcile since start').toBe(1);

      // t1 leaves the node's mempool (evicted): Core also drops t2; one R for t1 must take both.
      drop(t1);
      drop(t2);
      await publisher.sequence(t1.txid, 'R');
      await waitFor('the view to drop t1 and its child t2', () => viewMatches(watched), 10_000, indexer);

      // A block event wakes the sync loop: block polling is 600 s, far longer than the wait below.
      chain.mine(1, { txsPerBlock: 0 });
      expect(atTip(), 'the new block is not indexed before the event').toBe(false);
      await publisher.sequence(chain.tip.hash, 'C');
      await w.waitForTip('the C event to wake the sync loop', 10_000);
      expect(viewMatches(watched)).toBe(true);
      kept = t3;
    } finally {
      publisher.close();
    }
  }, 120_000);

  it('repairs by the timer reconcile what ZMQ never said', async () => {
    const silent = await MempoolPublisher.bind();
    try {
      const indexer = await w.startIndexer({ toml: 'mempoolPollMs = 200', env: { ADDRSUM_BTC_ZMQ_MEMPOOL: silent.endpoint } });
      await w.waitForTip('start-up sync', 60_000);
      confirmed = chain.utxos();
      const scripts = [...new Set(chain.addresses().map((a) => a.script))].slice(0, 6);
      const [key, coin] = [...confirmed].find(
        ([k, c]) => !c.coinbase && c.value > 100_000 && !pool.some((t) => t.inputs.some((i) => `${i.txid}:${i.vout}` === k)),
      )!;
      const t4 = add(
        makeTx([{ txid: key.split(':')[0]!, vout: Number(key.split(':')[1]) }], [{ script: scripts[5]!, value: coin.value - 1_000 }]),
      );
      const t3 = kept!;
      drop(t3);
      const watched = [...new Set([...scripts, coin.script, ...t3.outputs.map((o) => o.script)])];
      await waitFor('the reconcile to add t4 and drop t3', () => viewMatches(watched), 10_000, indexer);
      expect(views([scripts[5]!])[0]!.unconfirmed!.txCount).toBeGreaterThanOrEqual(1);
      expect(pool).toEqual([t4]);
    } finally {
      silent.close();
    }
  }, 120_000);
});
