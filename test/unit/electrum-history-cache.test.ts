/**
 * The kept long histories (src/electrum/index/history-cache.ts) over a fake index and feed: kept while
 * the feed names nothing of theirs; brought up to date from a read of what follows their newest confirmed
 * transaction after block or mempool rows (also across many blocks, and with a block landing during that
 * read); read whole after a disconnection, a row for every script, a pruned feed, or a disconnection
 * landing during that read; short ones never kept; the byte budget; another index. Every answer equals
 * a whole read's.
 */
import { describe, expect, it } from 'vitest';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import { HistoryCache, MIN_ENTRIES } from '../../src/electrum/index/history-cache.js';
import { electrumHistory, readScriptTxs, type ScriptHistory } from '../../src/electrum/index/script-history.js';
import type { ChangeKind, FeedEntry, UnconfirmedItem } from '../../src/store/index-model.js';
import type { ScriptTxsRead } from '../../src/store/script-txs.js';

const key = (n: number): Buffer => Buffer.alloc(16, n);
const hex = (k: Buffer): string => k.toString('hex');
const pending = (n: number): UnconfirmedItem => ({
  seq: n,
  txid: Buffer.alloc(32, 200 + n),
  received: 1n,
  sent: 0n,
  fee: 7n,
  spendsUnconfirmed: false,
});

/**
 * An index of a few scripts and its feed. A script's confirmed transactions are at positions 0 … n − 1
 * (what `newest` and `after` name), their txids drawn from the script, the position and the script's
 * epoch (a disconnection starts a new one: the history is another). `reads` counts whole reads and
 * reads after a position.
 */
class World {
  readonly confirmed = new Map<string, number>();
  readonly epoch = new Map<string, number>();
  readonly pool = new Map<string, UnconfirmedItem[]>();
  rows: FeedEntry[] = [];
  reads = { whole: 0, after: 0 };
  /** Runs inside the next read after a position, before it answers (a commit landing meanwhile). */
  during: (() => void) | null = null;
  readonly index: ElectrumIndex;

  constructor() {
    this.index = this.makeIndex();
  }

  makeIndex(): ElectrumIndex {
    return {
      scriptTxs: async (k: Buffer, _max: number, after?: number): Promise<ScriptTxsRead> => {
        this.reads[after === undefined ? 'whole' : 'after']++;
        if (after !== undefined && this.during) {
          this.during();
          this.during = null;
        }
        return this.snapshot(k, after);
      },
      feed: {
        bounds: async () => (this.rows.length === 0 ? null : { first: this.rows[0]!.seq, last: this.rows.at(-1)!.seq }),
        since: async (after: number, limit: number) => this.rows.filter((r) => r.seq > after).slice(0, limit),
      },
    } as unknown as ElectrumIndex;
  }

  snapshot(k: Buffer, after = -1): ScriptTxsRead {
    const n = this.confirmed.get(hex(k)) ?? 0;
    const epoch = this.epoch.get(hex(k)) ?? 0;
    const at = Array.from({ length: Math.max(0, n - after - 1) }, (_, i) => after + 1 + i);
    const txids = Buffer.concat(
      at.map((p) => {
        const t = Buffer.alloc(32);
        t.writeUInt32LE(p);
        t.writeUInt32LE(k[0]! * 1000 + epoch, 4);
        return t;
      }),
    );
    return {
      tipHeight: 1,
      tipHash: '00'.repeat(32),
      nodeHeight: null,
      nodeSeenAt: null,
      tipTime: null,
      txs: {
        tooLarge: false,
        confirmedCount: n,
        newest: n - 1,
        txids,
        heights: Uint32Array.from(at, (p) => 1 + Math.floor(p / 3)),
        unconfirmed: this.pool.get(hex(k)) ?? [],
      },
      feedSeq: this.rows.at(-1)?.seq ?? 0,
    };
  }

  commit(kind: ChangeKind, touched: Buffer[] | null, change: () => void = () => undefined): void {
    change();
    this.rows.push({ seq: (this.rows.at(-1)?.seq ?? 0) + 1, kind, tipHeight: 1, scripts: touched });
  }

  /** A block paying script `k` `more` transactions. */
  pay(k: Buffer, more = 1): void {
    this.commit('block', [k], () => this.confirmed.set(hex(k), (this.confirmed.get(hex(k)) ?? 0) + more));
  }

  /** A disconnection taking `fewer` of script `k`'s transactions: what is left is another history. */
  disconnect(k: Buffer, fewer = 1): void {
    this.commit('disconnect', [k], () => {
      this.confirmed.set(hex(k), (this.confirmed.get(hex(k)) ?? 0) - fewer);
      this.epoch.set(hex(k), (this.epoch.get(hex(k)) ?? 0) + 1);
    });
  }

  /** What a whole read answers now, not counted. */
  whole(k: Buffer): ScriptHistory {
    const read = this.snapshot(k);
    if (read.txs === null || read.txs.tooLarge) throw new Error('unreadable');
    return electrumHistory(read.txs);
  }
}

function world(): { w: World; cache: HistoryCache; get: (k: Buffer) => Promise<ScriptHistory> } {
  const w = new World();
  w.confirmed.set(hex(key(1)), MIN_ENTRIES + 5);
  w.confirmed.set(hex(key(2)), MIN_ENTRIES);
  w.confirmed.set(hex(key(3)), 3);
  w.commit('block', [key(1), key(2), key(3)]);
  const cache = new HistoryCache(1 << 30);
  const get = (k: Buffer) => cache.get(w.index, k, (index, at, after) => readScriptTxs(index, at, 1e6, after));
  return { w, cache, get };
}

const text = (h: ScriptHistory): string => Buffer.concat(h.json).toString();
const same = (a: ScriptHistory, b: ScriptHistory) => expect([a.status, text(a), a.length]).toEqual([b.status, text(b), b.length]);

describe('HistoryCache', () => {
  it('keeps a long history while the feed names nothing of it, and reads a short one each time', async () => {
    const { w, get } = world();
    same(await get(key(1)), w.whole(key(1)));
    w.commit('block', [key(9)]);
    w.commit('mempool', [key(8)]);
    w.reads = { whole: 0, after: 0 };
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 0, after: 0 });
    await get(key(3));
    await get(key(3));
    expect(w.reads.whole).toBe(2);
  });

  it('reads only what follows its newest transaction after mempool and block rows name the script', async () => {
    const { w, get } = world();
    await get(key(1));
    w.commit('mempool', [key(1)], () => w.pool.set(hex(key(1)), [pending(1), pending(2)]));
    w.reads = { whole: 0, after: 0 };
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 0, after: 1 });
    // Blocks, one after another and several at once, past the pieces a confirmed part is kept in.
    for (let i = 0; i < 40; i++) {
      w.pay(key(1), 1 + (i % 3));
      if (i % 2 === 0) w.pay(key(1));
      same(await get(key(1)), w.whole(key(1)));
    }
    w.commit('block', [key(1)], () => w.pool.set(hex(key(1)), []));
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 0, after: 42 });
    // Kept as brought up to date: the next use reads nothing.
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 0, after: 42 });
  });

  it('reads whole after a disconnection, a row for every script, or a pruned feed', async () => {
    const { w, get } = world();
    const cases: Array<() => void> = [
      () => w.disconnect(key(1)),
      () => w.commit('mempool', null, () => w.pool.set(hex(key(1)), [pending(3)])),
      () => {
        w.pay(key(7));
        w.pay(key(7));
        w.rows = w.rows.slice(-1);
      },
    ];
    for (const happen of cases) {
      await get(key(1));
      happen();
      w.reads = { whole: 0, after: 0 };
      same(await get(key(1)), w.whole(key(1)));
      expect(w.reads).toEqual({ whole: 1, after: 0 });
    }
  });

  it('takes a block that lands during the read, and reads whole when a disconnection does', async () => {
    const { w, get } = world();
    await get(key(1));
    w.pay(key(1));
    w.during = () => w.pay(key(1), 2);
    w.reads = { whole: 0, after: 0 };
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 0, after: 1 });
    w.pay(key(1));
    w.during = () => w.disconnect(key(1), 2);
    same(await get(key(1)), w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 1, after: 2 });
  });

  it('keeps within its byte budget, least recently used out first, and starts over for another index', async () => {
    const { w } = world();
    w.confirmed.set(hex(key(4)), MIN_ENTRIES);
    const bytes = (k: Buffer) => text(w.whole(k)).length;
    const budget = bytes(key(1)) + bytes(key(2));
    const cache = new HistoryCache(budget);
    const get = (index: ElectrumIndex, k: Buffer) => cache.get(index, k, (i, at, after) => readScriptTxs(i, at, 1e6, after));
    const reads = async (index: ElectrumIndex, ks: Buffer[]) => {
      w.reads = { whole: 0, after: 0 };
      for (const k of ks) await get(index, k);
      return w.reads.whole;
    };
    expect(await reads(w.index, [key(2), key(1)])).toBe(2);
    expect(cache.size).toBe(budget);
    expect(await reads(w.index, [key(2), key(1)])).toBe(0);
    // Key 2 is the least recently used: key 4 takes its place; then key 1 is used, and key 2 takes key 4's.
    expect(await reads(w.index, [key(4)])).toBe(1);
    expect(await reads(w.index, [key(1), key(2)])).toBe(1);
    expect(await reads(w.index, [key(1), key(2)])).toBe(0);
    expect(cache.size).toBeLessThanOrEqual(budget);
    // A history bigger than the whole budget is not kept.
    const small = new HistoryCache(bytes(key(1)) - 1);
    for (let i = 0; i < 2; i++) await small.get(w.index, key(1), (x, at, after) => readScriptTxs(x, at, 1e6, after));
    expect(small.size).toBe(0);
    // Another index object: nothing kept from the first is used.
    expect(await reads(w.makeIndex(), [key(2)])).toBe(1);
  });
});
