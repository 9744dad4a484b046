/**
 * The kept long histories (src/electrum/index/history-cache.ts) over a fake index and feed: kept while
 * the feed names nothing of theirs, the mempool part alone read again after a mempool row, read whole
 * after a block row, a row for every script, a pruned feed or a block that lands during the mempool
 * read; short ones never kept; the byte budget; another index. Every answer equals a whole read's.
 */
import { describe, expect, it } from 'vitest';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import { HistoryCache, MIN_ENTRIES } from '../../src/electrum/index/history-cache.js';
import { electrumHistory, readScriptTxs, type ScriptHistory } from '../../src/electrum/index/script-history.js';
import type { ChangeKind, FeedEntry, UnconfirmedItem } from '../../src/store/index-model.js';
import type { ScriptTxsRead } from '../../src/store/script-txs.js';

const key = (n: number): Buffer => Buffer.alloc(16, n);
const txid = (n: number): Buffer => {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(n);
  return b;
};
const pending = (n: number): UnconfirmedItem => ({
  seq: n,
  txid: txid(1e9 + n),
  received: 1n,
  sent: 0n,
  fee: 7n,
  spendsUnconfirmed: false,
});

/** An index of a few scripts and its feed; `reads` counts whole and mempool-only reads. */
class World {
  readonly confirmed = new Map<string, number>();
  readonly pool = new Map<string, UnconfirmedItem[]>();
  rows: FeedEntry[] = [];
  reads = { whole: 0, mempool: 0 };
  /** Runs inside the next mempool-only read, before it answers (a commit landing meanwhile). */
  during: (() => void) | null = null;
  readonly index: ElectrumIndex;

  constructor() {
    this.index = this.makeIndex();
  }

  makeIndex(): ElectrumIndex {
    return {
      scriptTxs: async (k: Buffer, max: number, mempoolOnly = false): Promise<ScriptTxsRead> => {
        this.reads[mempoolOnly ? 'mempool' : 'whole']++;
        if (mempoolOnly && this.during) {
          this.during();
          this.during = null;
        }
        return this.snapshot(k, max, mempoolOnly);
      },
      feed: {
        bounds: async () => (this.rows.length === 0 ? null : { first: this.rows[0]!.seq, last: this.rows.at(-1)!.seq }),
        since: async (after: number, limit: number) => this.rows.filter((r) => r.seq > after).slice(0, limit),
      },
    } as unknown as ElectrumIndex;
  }

  snapshot(k: Buffer, _max: number, mempoolOnly: boolean): ScriptTxsRead {
    const n = this.confirmed.get(k.toString('hex')) ?? 0;
    const heights = Uint32Array.from({ length: mempoolOnly ? 0 : n }, (_, i) => 1 + Math.floor(i / 3));
    const txids = Buffer.concat(Array.from({ length: heights.length }, (_, i) => txid(i + 1000 * k[0]!)));
    const unconfirmed = this.pool.get(k.toString('hex')) ?? [];
    return {
      tipHeight: 1,
      tipHash: '00'.repeat(32),
      nodeHeight: null,
      nodeSeenAt: null,
      tipTime: null,
      txs: { tooLarge: false, confirmedCount: n, txids, heights, unconfirmed },
      feedSeq: this.rows.at(-1)?.seq ?? 0,
    };
  }

  commit(kind: ChangeKind, touched: Buffer[] | null, change: () => void = () => undefined): void {
    change();
    this.rows.push({ seq: (this.rows.at(-1)?.seq ?? 0) + 1, kind, tipHeight: 1, scripts: touched });
  }

  /** What a direct whole read answers now. */
  async whole(k: Buffer): Promise<ScriptHistory> {
    const { list } = await readScriptTxs(this.makeIndex(), k, 1e6, false);
    return electrumHistory(list);
  }
}

async function world(): Promise<{ w: World; cache: HistoryCache; get: (k: Buffer) => Promise<ScriptHistory> }> {
  const w = new World();
  w.confirmed.set(key(1).toString('hex'), MIN_ENTRIES + 5);
  w.confirmed.set(key(2).toString('hex'), MIN_ENTRIES);
  w.confirmed.set(key(3).toString('hex'), 3);
  w.commit('block', [key(1), key(2), key(3)]);
  const cache = new HistoryCache(1 << 30);
  const get = (k: Buffer) => cache.get(w.index, k, (index, at, mempoolOnly) => readScriptTxs(index, at, 1e6, mempoolOnly));
  return { w, cache, get };
}

const text = (h: ScriptHistory): string => Buffer.concat(h.json).toString();
const same = (a: ScriptHistory, b: ScriptHistory) => expect([a.status, text(a), a.length]).toEqual([b.status, text(b), b.length]);

describe('HistoryCache', () => {
  it('keeps a long history while the feed names nothing of it, and reads a short one each time', async () => {
    const { w, get } = await world();
    same(await get(key(1)), await w.whole(key(1)));
    w.commit('block', [key(9)]);
    w.commit('mempool', [key(8)]);
    w.reads = { whole: 0, mempool: 0 };
    same(await get(key(1)), await w.whole(key(1)));
    expect(w.reads).toEqual({ whole: 1, mempool: 0 }); // the direct read of `whole` alone
    await get(key(3));
    await get(key(3));
    expect(w.reads.whole).toBe(3);
  });

  it('reads only the mempool part again after a mempool row names the script', async () => {
    const { w, get } = await world();
    await get(key(1));
    w.commit('mempool', [key(1)], () => w.pool.set(key(1).toString('hex'), [pending(1), pending(2)]));
    w.reads = { whole: 0, mempool: 0 };
    const got = await get(key(1));
    expect(w.reads).toEqual({ whole: 0, mempool: 1 });
    same(got, await w.whole(key(1)));
    expect(got.length).toBe(MIN_ENTRIES + 7);
    // Kept with its new mempool part: the next use reads nothing.
    w.reads = { whole: 0, mempool: 0 };
    same(await get(key(1)), got);
    expect(w.reads).toEqual({ whole: 0, mempool: 0 });
  });

  it('reads whole after a block row names the script, a row for every script, or a pruned feed', async () => {
    const { w, get } = await world();
    const cases: Array<() => void> = [
      () => w.commit('block', [key(1)], () => w.confirmed.set(key(1).toString('hex'), MIN_ENTRIES + 6)),
      () => w.commit('disconnect', [key(1)], () => w.confirmed.set(key(1).toString('hex'), MIN_ENTRIES + 5)),
      () => w.commit('mempool', null, () => w.pool.set(key(1).toString('hex'), [pending(3)])),
      () => {
        w.commit('block', [key(7)]);
        w.commit('block', [key(7)]);
        w.rows = w.rows.slice(-1);
      },
    ];
    for (const happen of cases) {
      await get(key(1));
      happen();
      w.reads = { whole: 0, mempool: 0 };
      same(await get(key(1)), await w.whole(key(1)));
      expect(w.reads).toEqual({ whole: 2, mempool: 0 });
    }
  });

  it('reads whole when a block naming the script lands while its mempool part is read', async () => {
    const { w, get } = await world();
    await get(key(1));
    w.commit('mempool', [key(1)], () => w.pool.set(key(1).toString('hex'), [pending(4)]));
    w.during = () => w.commit('block', [key(1)], () => w.confirmed.set(key(1).toString('hex'), MIN_ENTRIES + 9));
    w.reads = { whole: 0, mempool: 0 };
    const got = await get(key(1));
    expect(w.reads).toEqual({ whole: 1, mempool: 1 });
    same(got, await w.whole(key(1)));
    expect(got.length).toBe(MIN_ENTRIES + 10);
  });

  it('keeps within its byte budget, least recently used out first, and starts over for another index', async () => {
    const { w } = await world();
    w.confirmed.set(key(4).toString('hex'), MIN_ENTRIES);
    const bytes = async (k: Buffer) => text(electrumHistory((await readScriptTxs(w.index, k, 1e6, false)).list)).length;
    const budget = (await bytes(key(1))) + (await bytes(key(2)));
    const cache = new HistoryCache(budget);
    const get = (index: ElectrumIndex, k: Buffer) => cache.get(index, k, (i, at, m) => readScriptTxs(i, at, 1e6, m));
    const reads = async (index: ElectrumIndex, ks: Buffer[]) => {
      w.reads = { whole: 0, mempool: 0 };
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
    const small = new HistoryCache((await bytes(key(1))) - 1);
    for (let i = 0; i < 2; i++) await small.get(w.index, key(1), (x, at, m) => readScriptTxs(x, at, 1e6, m));
    expect(small.size).toBe(0);
    // Another index object: nothing kept from the first is used.
    expect(await reads(w.makeIndex(), [key(2)])).toBe(1);
  });
});
