/**
 * MempoolFollower against a scripted node: the reconcile is incremental (fetches only txids it does not
 * hold, drops only what the node dropped), waits while the index is behind, retries children whose
 * parent comes in a later chunk, and ZMQ events use the rawtx stash before asking the node.
 */
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { toDisplayHex } from '../../src/chain/hash.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { SqliteIndexWriter } from '../../src/store/sqlite/engine.js';
import { MempoolFollower } from '../../indexer/mempool-follow.js';
import type { MempoolSource } from '../../indexer/mempool-source.js';
import { ChainBuilder, coinbaseTx, p2wpkh, randomHash } from '../support/blocks.js';

const silent = { info: () => undefined, warn: () => undefined };

function rawSpend(
  inputs: Array<{ txid: Buffer; vout: number }>,
  outputs: Array<{ script: Buffer; value: number }>,
): { raw: Buffer; txid: string } {
  const tx = new Transaction();
  tx.version = 2;
  for (const i of inputs) tx.addInput(i.txid, i.vout);
  for (const o of outputs) tx.addOutput(o.script, BigInt(o.value));
  return { raw: Buffer.from(tx.toBuffer()), txid: tx.getId() };
}

class ScriptedNode implements MempoolSource {
  best = '';
  pool = new Map<string, Buffer>();
  fetched: string[] = [];
  bestBlockHash(): Promise<string> {
    return Promise.resolve(this.best);
  }
  mempoolTxids(): Promise<string[]> {
    return Promise.resolve([...this.pool.keys()]);
  }
  rawTransactions(txids: readonly string[]): Promise<Array<Buffer | null>> {
    this.fetched.push(...txids);
    return Promise.resolve(txids.map((t) => this.pool.get(t) ?? null));
  }
}

function world() {
  const store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
  const chain = new ChainBuilder();
  const script = p2wpkh();
  chain.block([]);
  const cb = coinbaseTx(
    Array.from({ length: 10 }, () => ({ script, value: 1_000_000 })),
    randomHash(),
  );
  chain.block([cb]);
  store.applyBlocks(chain.blocks);
  const node = new ScriptedNode();
  node.best = toDisplayHex(store.tip()!.hash);
  const writer = new SqliteIndexWriter(store, 'BTC', 'regtest');
  const follower = new MempoolFollower(writer.mempool, () => writer.tip(), node, { pollIntervalMs: 1000, chunk: 2 }, silent);
  return { store, node, follower, cb, script };
}

describe('MempoolFollower', () => {
  it('reconciles incrementally: new txids fetched once, dropped ones removed, children across chunks resolved', async () => {
    const { store, node, follower, cb, script } = world();
    const a = rawSpend([{ txid: cb.txid, vout: 0 }], [{ script, value: 900_000 }]);
    const b = rawSpend([{ txid: Buffer.from(a.txid, 'hex').reverse(), vout: 0 }], [{ script, value: 800_000 }]);
    const c = rawSpend([{ txid: Buffer.from(b.txid, 'hex').reverse(), vout: 0 }], [{ script, value: 700_000 }]);
    // Children first: with chunks of 2, c and b wait for a, which comes in the second chunk.
    for (const t of [c, b, a]) node.pool.set(t.txid, t.raw);
    expect(await follower.reconcile()).toEqual({ skipped: false, added: 3, removed: 0, unresolved: 0 });
    expect(store.mempool.size).toBe(3);
    node.fetched = [];
    const d = rawSpend([{ txid: cb.txid, vout: 1 }], [{ script, value: 500_000 }]);
    node.pool.set(d.txid, d.raw);
    node.pool.delete(c.txid);
    expect(await follower.reconcile()).toEqual({ skipped: false, added: 1, removed: 1, unresolved: 0 });
    expect(node.fetched).toEqual([d.txid]);
    expect([...store.mempool.txids()].map(toDisplayHex).sort()).toEqual([a.txid, b.txid, d.txid].sort());
    store.close();
  });

  it('waits while the index is behind the node', async () => {
    const { store, node, follower, cb, script } = world();
    node.pool.set('x', rawSpend([{ txid: cb.txid, vout: 0 }], [{ script, value: 1 }]).raw);
    node.best = 'ff'.repeat(32);
    expect((await follower.reconcile()).skipped).toBe(true);
    expect(node.fetched).toEqual([]);
    store.close();
  });

  it('applies ZMQ A/R with bytes from the rawtx stash, fetching only what was not stashed', async () => {
    const { store, node, follower, cb, script } = world();
    const a = rawSpend([{ txid: cb.txid, vout: 2 }], [{ script, value: 900_000 }]);
    const b = rawSpend([{ txid: cb.txid, vout: 3 }], [{ script, value: 900_000 }]);
    node.pool.set(a.txid, a.raw);
    node.pool.set(b.txid, b.raw);
    follower.onRawTx(a.raw);
    follower.onSequence(a.txid, 'A');
    follower.onSequence(b.txid, 'A');
    await follower.applyAnnounced();
    expect(node.fetched).toEqual([b.txid]);
    expect(store.mempool.size).toBe(2);
    follower.onSequence(a.txid, 'R');
    await follower.applyAnnounced();
    expect([...store.mempool.txids()].map(toDisplayHex)).toEqual([b.txid]);
    store.close();
  });
});
