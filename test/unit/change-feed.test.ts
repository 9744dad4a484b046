import { describe, expect, it } from 'vitest';
import { FEED_KEEP, FEED_MAX_SCRIPTS, FeedReader } from '../../src/store/sqlite/change-feed.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainBuilder, coinbaseTx, p2pkh, p2wpkh, randomHash, spendTx } from '../support/blocks.js';

const OPTS = { chain: 'LTC', network: 'regtest' } as const;

const hex = (keys: readonly Buffer[] | null): string[] | null => (keys === null ? null : keys.map((k) => k.toString('hex')).sort());
const keysOf = (...scripts: Buffer[]): string[] => scripts.map((s) => scriptKey(s).toString('hex')).sort();

describe('change feed', () => {
  it('records the scripts of each block, mempool update and disconnection in their own commit', () => {
    const store = ChainStore.open(':memory:', OPTS);
    const feed = new FeedReader(store.db);
    const chain = new ChainBuilder();
    const [a, b, c] = [p2pkh(), p2wpkh(), p2pkh()];
    const genesis = chain.blockPaying(a, 50);
    store.applyBlocks([genesis]);
    const pay = chain.blockPaying(b, 50);
    store.applyBlocks([pay]);
    let rows = feed.since(0, 10);
    expect(rows.map((r) => [r.kind, r.tipHeight, hex(r.scripts)])).toEqual([
      // The genesis coinbase is not spendable: no script.
      ['block', 0, []],
      ['block', 1, keysOf(b)],
    ]);

    // A mempool transaction moving b's coin to c touches both; adding it again touches nothing.
    const move = spendTx([{ txid: pay.txs[0]!.txid, vout: 0 }], [{ script: c, value: 40 }]);
    store.mempool.add([move]);
    store.mempool.add([move]);
    rows = feed.since(rows[1]!.seq, 10);
    expect(rows.map((r) => [r.kind, hex(r.scripts)])).toEqual([['mempool', keysOf(b, c)]]);

    // Mining it: confirmed b and c change, and the mempool rows it leaves are in the same entry.
    const mined = chain.block([coinbaseTx([{ script: a, value: 50 }], randomHash()), move]);
    store.applyBlocks([mined]);
    rows = feed.since(rows[0]!.seq, 10);
    expect(rows.map((r) => [r.kind, r.tipHeight, hex(r.scripts)])).toEqual([['block', 2, keysOf(a, b, c)]]);

    // A held transaction, then a rollback: the block's scripts and the emptied mempool's.
    const d = p2wpkh();
    store.mempool.add([spendTx([{ txid: mined.txs[0]!.txid, vout: 0 }], [{ script: d, value: 49 }])]);
    const before = feed.bounds()!.last;
    store.rollbackTip();
    rows = feed.since(before, 10);
    expect(rows.map((r) => [r.kind, r.tipHeight, hex(r.scripts)])).toEqual([['disconnect', 1, keysOf(a, b, c, d)]]);
    store.close();
  });

  it('writes nothing for a transaction that rolls back, and keeps nothing of it for the next entry', () => {
    const store = ChainStore.open(':memory:', OPTS);
    const feed = new FeedReader(store.db);
    const chain = new ChainBuilder();
    const a = p2pkh();
    store.applyBlocks([chain.blockPaying(a, 50)]);
    const bad = new ChainBuilder();
    bad.blocks.push(...chain.blocks);
    const stray = p2wpkh();
    const missing = bad.block([
      coinbaseTx([{ script: stray, value: 1 }]),
      spendTx([{ txid: randomHash(), vout: 0 }], [{ script: stray, value: 1 }]),
    ]);
    expect(() => store.applyBlocks([missing])).toThrow();
    expect(feed.bounds()).toEqual({ first: 1, last: 1 });
    const b = p2pkh();
    store.applyBlocks([chain.blockPaying(b, 50)]);
    expect(hex(feed.since(1, 10)[0]!.scripts)).toEqual(keysOf(b));
    store.close();
  });

  it('is bounded: a change too wide to list says "every script", and only the newest rows are kept', () => {
    const store = ChainStore.open(':memory:', OPTS);
    const feed = new FeedReader(store.db);
    const chain = new ChainBuilder();
    const wide = Array.from({ length: FEED_MAX_SCRIPTS + 1 }, () => ({ script: p2pkh(), value: 1 }));
    store.applyBlocks([chain.blockPaying(p2pkh(), 1)]);
    store.applyBlocks([chain.block([coinbaseTx(wide)])]);
    expect(feed.since(1, 1)[0]!.scripts).toBeNull();
    for (let i = 0; i < FEED_KEEP + 5; i++) store.applyBlocks([chain.blockPaying(p2pkh(), 1)]);
    const bounds = feed.bounds()!;
    expect(bounds.last).toBe(FEED_KEEP + 7);
    expect(bounds.last - bounds.first + 1).toBe(FEED_KEEP);
    expect(store.db.prepare('SELECT COUNT(*) FROM changes').pluck().get()).toBe(FEED_KEEP);
    store.close();
  });
});
