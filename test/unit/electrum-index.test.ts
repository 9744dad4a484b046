/**
 * The pure parts of the index-backed Electrum methods: a history page put in the protocol's order with
 * its mempool fees, the UTXO listing's rows as listunspent entries, headers refused below a backfill, the
 * price of a long list, and the subscriptions' flow (one read per touched script for every session,
 * notifications only where a status changed, the cap, the close hook) over a fake feed and index.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChangeListener, FeedChange, TipListener } from '../../src/api/live/hub.js';
import type { ChainCode } from '../../src/chain/params.js';
import { pino } from 'pino';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import type { ChangeFeed } from '../../src/electrum/index/change-feed.js';
import { headerAt, headerRun } from '../../src/electrum/index/headers.js';
import { ScripthashSubscriptions } from '../../src/electrum/index/scripthash-subscriptions.js';
import { electrumHistory, mempoolFacts } from '../../src/electrum/index/script-history.js';
import { unspentOf } from '../../src/electrum/index/unspent.js';
import { extraTokens } from '../../src/electrum/methods/index-methods.js';
import type { ElectrumSession } from '../../src/electrum/methods/registry.js';
import type { HistoryItem, HistoryPage, UnconfirmedItem } from '../../src/store/index-model.js';
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
const page = (items: HistoryItem[], unconfirmed: UnconfirmedItem[] = []): NonNullable<HistoryPage['page']> => ({
  unconfirmed,
  items,
  next: null,
  tipHeight: 10,
  tipHash: Buffer.alloc(32),
  secret: Buffer.alloc(32),
});
const log = pino({ level: 'silent' });

describe('electrumHistory', () => {
  it('turns a newest-first page into blockchain order, then the mempool by (−height, tx_hash) with fees', () => {
    const h = electrumHistory(
      page(
        [item(5, 7, 2), item(4, 7, 0), item(2, 3, 1)],
        [
          pending(9, { fee: 300n, spendsUnconfirmed: true }),
          pending(8, { fee: 200n, spendsUnconfirmed: false }),
          pending(1, { fee: 100n }),
        ],
      ),
    );
    expect(h.entries).toEqual([
      { txHash: display(2), height: 3 },
      { txHash: display(4), height: 7 },
      { txHash: display(5), height: 7 },
      { txHash: display(1), height: 0, fee: 100 },
      { txHash: display(8), height: 0, fee: 200 },
      { txHash: display(9), height: -1, fee: 300 },
    ]);
    expect(h.mempool.map((e) => e.txHash)).toEqual([display(1), display(8), display(9)]);
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
    expect(await headerRun(index, 19, 5)).toEqual({
      count: 2,
      hex: Buffer.concat([Buffer.alloc(80, 19), Buffer.alloc(80, 20)]).toString('hex'),
      max: 2016,
    });
    expect(await headerRun(index, 25, 5)).toEqual({ count: 0, hex: '', max: 2016 });
    await expect(headerRun(index, 3, 5)).rejects.toThrow(/backfilled/);
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
      historyPage: async (req: { key: Buffer }) => {
        reads++;
        return { page: page([...(histories.get(req.key.toString('hex')) ?? [])].reverse()) };
      },
    } as unknown as ElectrumIndex;
    const feed = new FakeFeed();
    const subs = new ScripthashSubscriptions('LTC', feed, () => index, { perConnection: cap, maxHistory: 100 }, log);
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
