/**
 * The pure parts of the index-backed Electrum methods: a history read put in the protocol's order with
 * its mempool fees (and a kept confirmed part finished with another mempool part), the UTXO listing's rows as listunspent entries, headers refused below a backfill, the
 * price of a long list, and the subscriptions' flow (one read per touched script for every session,
 * notifications only where a status changed, the cap, the close hook) over a fake feed and index.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChangeListener, FeedChange, TipListener } from '../../src/serving/feed-change.js';
import type { ChainCode } from '../../src/chain/params.js';
import { pino } from 'pino';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import type { ChangeFeed } from '../../src/electrum/index/change-feed.js';
import { headerAt, headerRun } from '../../src/electrum/index/headers.js';
import { ScripthashSubscriptions } from '../../src/electrum/index/scripthash-subscriptions.js';
import { electrumHistory, mempoolFacts, withMempool } from '../../src/electrum/index/script-history.js';
import { scriptHistories } from '../../src/electrum/index/script-histories.js';
import { historyStatus } from '../../src/electrum/status.js';
import { unspentOf } from '../../src/electrum/index/unspent.js';
import { extraTokens } from '../../src/electrum/methods/index-methods.js';
import type { ElectrumSession } from '../../src/electrum/methods/registry.js';
import type { HistoryItem, UnconfirmedItem } from '../../src/store/index-model.js';
import type { ScriptTxList } from '../../src/store/script-txs.js';
import { outpointKey } from '../../src/store/outpoint.js';

const txid = (n: number): Buffer => Buffer.alloc(32, n);
const display = (n: number): string => Buffer.from(txid(n)).reverse().toString('hex');
const item = (n: number, height: number, position: number): HistoryItem => ({
  txNum: n,
  txid: txid(n),
  height,
  position,
  received: 1n,
  sent: 0n,
});
const pending = (n: number, extra: Partial<UnconfirmedItem> = {}): UnconfirmedItem => ({
  seq: n,
  txid: txid(n),
  received: 1n,
  sent: 0n,
  fee: 0n,
  spendsUnconfirmed: false,
  ...extra,
});
/** A whole-history read of `items` (blockchain order) and `unconfirmed`. */
const list = (items: HistoryItem[], unconfirmed: UnconfirmedItem[] = []): ScriptTxList => ({
  confirmedCount: items.length,
  newest: items.at(-1)?.txNum ?? -1,
  txids: Buffer.concat(items.map((i) => i.txid)),
  heights: Uint32Array.from(items.map((i) => i.height)),
  unconfirmed,
});
const log = pino({ level: 'silent' });
/** A JSON answer written in pieces, as one string. */
const text = (pieces: readonly Buffer[]): string => Buffer.concat(pieces).toString();

describe('electrumHistory', () => {
  it('lists confirmed transactions in blockchain order, then the mempool by (−height, tx_hash) with fees', () => {
    const h = electrumHistory(
      list(
        [item(2, 3, 1), item(4, 7, 0), item(5, 7, 2)],
        [
          pending(9, { fee: 300n, spendsUnconfirmed: true }),
          pending(8, { fee: 200n, spendsUnconfirmed: false }),
          pending(1, { fee: 100n }),
        ],
      ),
    );
    const entries = [
      { tx_hash: display(2), height: 3 },
      { tx_hash: display(4), height: 7 },
      { tx_hash: display(5), height: 7 },
      { tx_hash: display(1), height: 0, fee: 100 },
      { tx_hash: display(8), height: 0, fee: 200 },
      { tx_hash: display(9), height: -1, fee: 300 },
    ];
    expect(JSON.parse(text(h.json))).toEqual(entries);
    expect(h.length).toBe(6);
    expect(h.status).toBe(historyStatus(entries.map((e) => ({ txHash: e.tx_hash, height: e.height }))));
    expect(h.mempool.map((e) => e.txHash)).toEqual([display(1), display(8), display(9)]);
  });

  it('finishes a kept confirmed part with another mempool part as a whole read would', () => {
    const confirmed = [item(2, 3, 1), item(4, 7, 0)];
    const kept = electrumHistory(list(confirmed, [pending(1)]));
    for (const pool of [[], [pending(6, { fee: 5n })], [pending(7), pending(8, { spendsUnconfirmed: true })]]) {
      const again = withMempool(kept.confirmed, pool);
      const whole = electrumHistory(list(confirmed, pool));
      expect([again.status, text(again.json), again.length]).toEqual([whole.status, text(whole.json), whole.length]);
    }
    expect(electrumHistory(list([], []))).toMatchObject({ length: 0, status: null });
    expect(text(electrumHistory(list([], [])).json)).toBe('[]');
    expect(JSON.parse(text(electrumHistory(list([], [pending(3)])).json))).toEqual([{ tx_hash: display(3), height: 0, fee: 0 }]);
  });

  it('answers an unknown fee (MWEB) as 0, and height −1 for a child of a mempool transaction', () => {
    expect(mempoolFacts(pending(1, { fee: 250n }))).toEqual({ fee: 250, height: 0 });
    expect(mempoolFacts(pending(1, { fee: null, spendsUnconfirmed: true }))).toEqual({ fee: 0, height: -1 });
  });
});

describe('unspentOf', () => {
  it('leaves out outputs spent in the mempool and puts unconfirmed ones at height 0', () => {
    const rows = [
      { script: 0, outpoint: outpointKey(txid(1), 0), valueSats: 5n, height: 4, coinbase: false, spentInMempool: false },
      { script: 0, outpoint: outpointKey(txid(2), 300), valueSats: 6n, height: 5, coinbase: false, spentInMempool: true },
      { script: 0, outpoint: outpointKey(txid(3), 1), valueSats: 7n, height: null, coinbase: null, spentInMempool: false },
    ];
    expect(unspentOf(rows)).toEqual([
      { tx_hash: display(1), tx_pos: 0, height: 4, value: 5 },
      { tx_hash: display(3), tx_pos: 1, height: 0, value: 7 },
    ]);
  });
});

describe('extraTokens', () => {
  it('is free up to a thousand entries, then a token per thousand', () => {
    expect([extraTokens(0), extraTokens(1000), extraTokens(3000)]).toEqual([0, 0, 2]);
  });
});

function headerIndex(tipHeight: number, headersFrom: number): ElectrumIndex {
  const header = (h: number): Buffer => Buffer.alloc(80, h);
  return {
    headers: async (from: number, count: number) => ({
      tipHeight,
      tipHash: Buffer.alloc(32),
      headersFrom,
      headers:
        from < headersFrom || from > tipHeight
          ? []
          : Array.from({ length: Math.min(count, tipHeight - from + 1) }, (_, i) => header(from + i)),
    }),
  } as unknown as ElectrumIndex;
}

describe('headers', () => {
  it('answers stored heights, refuses those below a backfill and above the tip', async () => {
    const index = headerIndex(20, 10);
    expect(await headerAt(index, 12)).toBe(Buffer.alloc(80, 12).toString('hex'));
    await expect(headerAt(index, 9)).rejects.toThrow(/below 10 are still being backfilled/);
    await expect(headerAt(index, 21)).rejects.toThrow(/above the tip/);
    expect(await headerRun(index, 19, 5, false)).toEqual({
      count: 2,
      hex: Buffer.concat([Buffer.alloc(80, 19), Buffer.alloc(80, 20)]).toString('hex'),
      max: 2016,
    });
    expect(await headerRun(index, 25, 5, false)).toEqual({ count: 0, hex: '', max: 2016 });
    await expect(headerRun(index, 3, 5, false)).rejects.toThrow(/backfilled/);
  });

  it('lists a run one header a string from protocol 1.6', async () => {
    const index = headerIndex(20, 10);
    expect(await headerRun(index, 19, 5, true)).toEqual({
      count: 2,
      headers: [Buffer.alloc(80, 19).toString('hex'), Buffer.alloc(80, 20).toString('hex')],
      max: 2016,
    });
    expect(await headerRun(index, 25, 5, true)).toEqual({ count: 0, headers: [], max: 2016 });
    expect(await headerRun(index, 19, 0, true)).toEqual({ count: 0, headers: [], max: 2016 });
    await expect(headerRun(index, 3, 5, true)).rejects.toThrow(/backfilled/);
  });
});

class FakeFeed implements ChangeFeed {
  listeners = new Set<ChangeListener>();
  onTip(_l: TipListener): () => void {
    return () => undefined;
  }
  onChanges(_chain: ChainCode, l: ChangeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  attach<T>(_chain: ChainCode, fn: (seq: number) => Promise<T>): Promise<T> {
    return fn(0);
  }
  async emit(change: FeedChange): Promise<void> {
    for (const l of this.listeners) await l(change);
  }
}

class FakeSession {
  notes: unknown[][] = [];
  private hooks: Array<() => void> = [];
  notify(_method: string, params: readonly unknown[]): void {
    this.notes.push([...params]);
  }
  closed = false;
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.hooks.push(fn);
  }
  close(): void {
    for (const h of this.hooks) h();
  }
}

describe('ScripthashSubscriptions', () => {
  const key = (n: number): Buffer => Buffer.alloc(16, n);
  function world(cap = 10) {
    const histories = new Map<string, HistoryItem[]>();
    let reads = 0;
    const index = {
      scriptTxs: async (key: Buffer) => {
        reads++;
        return { txs: { tooLarge: false, ...list(histories.get(key.toString('hex')) ?? []) }, feedSeq: 1 };
      },
    } as unknown as ElectrumIndex;
    const feed = new FakeFeed();
    const subs = new ScripthashSubscriptions('LTC', feed, () => index, scriptHistories(100, null), cap, log);
    const set = (n: number, items: HistoryItem[]): void => void histories.set(key(n).toString('hex'), items);
    return { subs, feed, set, reads: () => reads };
  }
  const session = (): FakeSession & ElectrumSession => new FakeSession() as unknown as FakeSession & ElectrumSession;
  const status = (entries: Array<[number, number]>): string =>
    createHash('sha256')
      .update(entries.map(([n, h]) => `${display(n)}:${h}:`).join(''))
      .digest('hex');

  it('reads a touched status once for every session and notifies only where it changed', async () => {
    const w = world();
    const [a, b] = [session(), session()];
    expect((await w.subs.subscribe(a, 'h1', key(1))).status).toBeNull();
    w.set(2, [item(1, 1, 0)]);
    expect((await w.subs.subscribe(b, 'h1', key(1))).status).toBeNull();
    expect((await w.subs.subscribe(b, 'h2', key(2))).status).toBe(status([[1, 1]]));
    w.set(1, [item(3, 2, 0)]);
    const before = w.reads();
    await w.feed.emit({ all: false, touched: new Set([key(1).toString('latin1'), key(2).toString('latin1'), key(9).toString('latin1')]) });
    // Keys 1 and 2 read once each however many hold them; key 9 is held by nobody.
    expect(w.reads() - before).toBe(2);
    expect(a.notes).toEqual([['h1', status([[3, 2]])]]);
    expect(b.notes).toEqual([['h1', status([[3, 2]])]]);
    // Everything may have changed, nothing did: no notification.
    await w.feed.emit({ all: true, touched: new Set() });
    expect(a.notes.length + b.notes.length).toBe(2);
  });

  it('refuses a subscription past the cap, unsubscribes, and drops a closed session', async () => {
    const w = world(2);
    const a = session();
    await w.subs.subscribe(a, 'h1', key(1));
    await w.subs.subscribe(a, 'h2', key(2));
    await w.subs.subscribe(a, 'h2', key(2));
    await expect(w.subs.subscribe(a, 'h3', key(3))).rejects.toThrow(/at most 2 scripthashes/);
    expect(w.subs.unsubscribe(a, key(2))).toBe(true);
    expect(w.subs.unsubscribe(a, key(2))).toBe(false);
    await w.subs.subscribe(a, 'h3', key(3));
    expect(w.subs.size).toBe(2);
    a.close();
    expect(w.subs.size).toBe(0);
    expect(w.feed.listeners.size).toBe(0);
  });

  it('holds nothing for a session that closed while its status was read', async () => {
    const w = world();
    const gone = session();
    gone.closed = true;
    await w.subs.subscribe(gone, 'h1', key(1));
    expect(w.subs.size).toBe(0);
    expect(w.feed.listeners.size).toBe(0);
  });
});
