/**
 * The subscriptions' notification path at the load the brief sets: 10,000 scripthashes held over 100
 * connections, blocks touching 500 of them, over a real SQLite index keeping history. Each touched status
 * is read once for the process and sent to its holder; the time from the feed's news to the last
 * notification is measured per block (the hub's poll interval comes on top, api.live.pollMs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeListener, FeedChange } from '../../src/serving/feed-change.js';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import type { ChangeFeed } from '../../src/electrum/index/change-feed.js';
import { ScripthashSubscriptions } from '../../src/electrum/index/scripthash-subscriptions.js';
import { scriptHistories } from '../../src/electrum/index/script-histories.js';
import type { ElectrumSession } from '../../src/electrum/methods/registry.js';
import { scriptKey } from '../../src/store/script-key.js';
import { ChainReader } from '../../src/store/sqlite/chain-reader.js';
import { ChainStore } from '../../src/store/sqlite/chain-store.js';
import { ChainBuilder, coinbaseTx, p2wpkh, Rng, spendTx } from '../support/blocks.js';

const SCRIPTS = 10_000;
const SESSIONS = 100;
const TOUCHED = 500;
const BLOCKS = 8;

const dir = mkdtempSync(path.join(tmpdir(), 'addrsum-electrum-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scripthash notifications under load', () => {
  it(`notify ${TOUCHED} touched of ${SCRIPTS} subscriptions over ${SESSIONS} connections quickly`, async () => {
    const file = path.join(dir, 'ltc.sqlite');
    const store = ChainStore.open(file, { chain: 'LTC', network: 'mainnet' });
    store.setHistory(true);
    const rng = new Rng(7);
    const chain = new ChainBuilder(rng);
    const scripts = Array.from({ length: SCRIPTS }, () => p2wpkh(rng));
    const pay = (from: number, count: number) =>
      spendTx(
        [],
        scripts.slice(from, from + count).map((script) => ({ script, value: 1000 })),
        { txid: rng.bytes(32) },
      );
    // Every script gets two payments first, so a status hashes more than one entry.
    for (let round = 0; round < 2; round++) {
      chain.block([
        coinbaseTx([{ script: p2wpkh(rng), value: 1 }], rng.bytes(32)),
        ...Array.from({ length: 10 }, (_, i) => pay(i * 1000, 1000)),
      ]);
    }
    store.applyBlocks(chain.blocks);
    const reader = ChainReader.open(file);
    const index = {
      scriptTxs: async (key: Buffer, max: number, after?: number) => reader.scriptTxs(key, max, after),
    } as unknown as ElectrumIndex;
    const listeners = new Set<ChangeListener>();
    const feed: ChangeFeed = {
      onTip: () => () => undefined,
      onChanges: (_chain, l) => (listeners.add(l), () => listeners.delete(l)),
      attach: (_chain, fn) => fn(0),
    };
    const subs = new ScripthashSubscriptions('LTC', feed, () => index, scriptHistories(200_000, null), 1000, pino({ level: 'silent' }));
    let notes = 0;
    const sessions = Array.from(
      { length: SESSIONS },
      () => ({ notify: () => void notes++, onClose: () => undefined }) as unknown as ElectrumSession,
    );
    for (const [i, script] of scripts.entries()) await subs.subscribe(sessions[i % SESSIONS]!, `h${i}`, scriptKey(script));
    expect(subs.size).toBe(SCRIPTS);

    const times: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const from = (b * TOUCHED) % SCRIPTS;
      store.applyBlocks([chain.block([coinbaseTx([{ script: p2wpkh(rng), value: 1 }], rng.bytes(32)), pay(from, TOUCHED)])]);
      const change: FeedChange = {
        all: false,
        touched: new Set(scripts.slice(from, from + TOUCHED).map((s) => scriptKey(s).toString('latin1'))),
      };
      const before = notes;
      const started = performance.now();
      for (const l of listeners) await l(change);
      times.push(performance.now() - started);
      expect(notes - before).toBe(TOUCHED);
    }
    times.sort((a, b) => a - b);
    console.log(`electrum notify: ${TOUCHED} of ${SCRIPTS} per block, ms per block sorted: ${times.map((t) => t.toFixed(1)).join(' ')}`);
    // The target is 200 ms; the bound here leaves room for a loaded test machine.
    expect(times[times.length - 1]!).toBeLessThan(1000);
    reader.close();
    store.close();
  }, 120_000);
});
