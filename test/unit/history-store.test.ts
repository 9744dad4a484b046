/**
 * The SQLite history store's own mechanisms (src/store/sqlite/history-store.ts): the heads kept in memory
 * across commits (history-head-cache.ts) can never outlive a transaction that rolled back or a block
 * rolled back, and two scripts whose history keys collide share one history without breaking anything.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HistoryCollector } from '../../src/store/history-change.js';
import { HISTORY_KEY_BYTES } from '../../src/store/history-chunk.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { HistoryHeadCache } from '../../src/store/sqlite/history-head-cache.js';
import { HistoryPager } from '../../src/store/sqlite/history-page.js';
import { HistoryStore } from '../../src/store/sqlite/history-store.js';
import { verifyHistory } from '../../src/store/sqlite/history-verify.js';
import { ChainBuilder, Rng, p2wpkh, randomHash } from '../support/blocks.js';

let store: ChainStore | null = null;
afterEach(() => {
  store?.close();
  store = null;
});

function open(): ChainStore {
  store = ChainStore.open(':memory:', { chain: 'BTC', network: 'regtest' });
  store.setHistory(true);
  return store;
}

/** What the index says of `script`'s history: each transaction's received amount, newest first. */
function received(s: ChainStore, script: Buffer): bigint[] {
  const page = new HistoryPager(s.db).page({ keys: [scriptKey(script)], after: null, limit: 100 });
  return page.items.map((i) => i.received);
}

describe('history heads kept across commits', () => {
  it('a batch whose transaction rolled back leaves nothing of it in the heads the next batch extends', () => {
    const s = open();
    const rng = new Rng(33);
    const c = new ChainBuilder(rng);
    const a = p2wpkh(rng);
    for (const value of [1000, 2000, 3000]) s.applyBlocks([c.blockPaying(a, value)]);
    // Block 3 fails after its history is written (the blocks row is the last write): nothing of it stays.
    const failing = c.blockPaying(a, 4000);
    s.db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON blocks WHEN NEW.height = 3 BEGIN SELECT RAISE(ABORT, 'refused'); END");
    expect(() => s.applyBlocks([failing])).toThrow(/refused/);
    s.db.exec('DROP TRIGGER refuse');
    c.blocks.pop();
    // The same number of transactions at the same height: only the cache's check can tell them apart.
    for (const value of [5000, 6000]) s.applyBlocks([c.blockPaying(a, value)]);
    expect(received(s, a)).toEqual([6000n, 5000n, 3000n, 2000n]);
    expect(verifyHistory(s.db)).toEqual([]);
  });

  it('a rolled-back block leaves nothing of it in the heads the next block extends', () => {
    const s = open();
    const rng = new Rng(34);
    const c = new ChainBuilder(rng);
    const a = p2wpkh(rng);
    for (const value of [1000, 2000, 3000, 4000]) s.applyBlocks([c.blockPaying(a, value)]);
    s.rollbackTip();
    s.rollbackTip();
    c.blocks.splice(2);
    for (const value of [5000, 6000, 7000]) s.applyBlocks([c.blockPaying(a, value)]);
    expect(received(s, a)).toEqual([7000n, 6000n, 5000n, 2000n]);
    expect(verifyHistory(s.db)).toEqual([]);
  });

  it('publishes a commit only when meta says it landed, and keeps the most recently written heads', () => {
    const cache = new HistoryHeadCache(2);
    const head = (n: number) => ({ bytes: Buffer.from([n]), count: 1, last: n });
    cache.stage(10, new Map([['a', head(1)]]));
    cache.settle(9); // the staging transaction rolled back: meta still says 9
    expect(cache.get('a')).toBeUndefined();
    cache.stage(10, new Map([['a', head(1)]]));
    cache.settle(10);
    expect(cache.get('a')).toEqual(head(1));
    cache.stage(12, new Map([['b', head(2)]]));
    cache.settle(12);
    cache.stage(13, new Map([['a', head(3)]]));
    cache.settle(13);
    cache.stage(14, new Map([['c', head(4)]]));
    cache.settle(14);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([head(3), undefined, head(4)]);
    cache.stage(15, new Map([['d', head(5)]]));
    cache.settle(11);
    expect(cache.size).toBe(0);
  });
});

describe('two scripts whose history keys collide', () => {
  it('share one history: each reads both, a wallet of both counts each transaction once, and a rollback undoes it', () => {
    const s = open();
    const history = new HistoryStore(s.db);
    const k1 = Buffer.alloc(16, 0xab);
    const k2 = Buffer.from(k1);
    k2[HISTORY_KEY_BYTES] = 0x01;
    const coin = (key: Buffer, value: bigint) => ({ outpoint: randomHash(), scriptKey: key, value, height: 1 });
    const collect = new HistoryCollector(history.nextTx());
    collect.startBlock(1, [randomHash(), randomHash()]);
    collect.startTx(0);
    collect.received(coin(k1, 500n));
    collect.startTx(1);
    collect.received(coin(k2, 700n));
    collect.sent(coin(k1, 500n));
    const change = collect.result();
    // One entry per transaction and history key, with both scripts' figures.
    expect(change.blocks[0]!.entries.map(({ txNum, received, sent, funded, spent }) => ({ txNum, received, sent, funded, spent }))).toEqual(
      [
        { txNum: 0, received: 500n, sent: 0n, funded: 1, spent: 0 },
        { txNum: 1, received: 700n, sent: 500n, funded: 1, spent: 1 },
      ],
    );
    s.db.transaction(() => history.commit(change, 0))();
    const pager = new HistoryPager(s.db);
    for (const keys of [[k1], [k2], [k1, k2]]) {
      const page = pager.page({ keys, after: null, limit: 10 });
      expect(page.items.map((i) => [i.txNum, i.received, i.sent])).toEqual([
        [1, 700n, 500n],
        [0, 500n, 0n],
      ]);
    }
    const touched = s.db.transaction(() => history.rollback(1, []))();
    expect(touched).toEqual([k1]);
    expect(s.db.prepare('SELECT COUNT(*) FROM history').pluck().get()).toBe(0);
  });
});
