/**
 * listunspent's read (src/electrum/index/unspent.ts) over an index of the test's own that lists a
 * script's rows page by page: refused from the script's count before any row is read, paid before the
 * read, read in slices through the chain's queue one at a time, started again when a block comes between
 * its slices, and the same list as one read would give.
 */
import { describe, expect, it } from 'vitest';
import {
  heavyReads,
  readUnspent,
  UNSPENT_ROWS_PER_UNIT,
  UNSPENT_SLICE,
  type Unspent,
  type UnspentRead,
} from '../../src/electrum/index/unspent.js';
import type { ElectrumIndex } from '../../src/electrum/index/access.js';
import { outpointKey } from '../../src/store/outpoint.js';
import type { UtxoPageRequest, UtxoRow } from '../../src/store/index-model.js';
import { RpcError } from '../../src/electrum/wire.js';

const KEY = Buffer.alloc(20, 7);

function rowsOf(n: number): UtxoRow[] {
  return Array.from({ length: n }, (_, i) => ({
    script: 0,
    outpoint: outpointKey(Buffer.alloc(32, i % 251), i),
    valueSats: BigInt(1000 + i),
    height: 100 + Math.floor(i / 10),
    coinbase: false,
    spentInMempool: i % 97 === 0,
  }));
}

interface Fake {
  readonly index: ElectrumIndex;
  readonly pages: UtxoPageRequest[];
  /** Most utxoPage calls running at once. */
  readonly busiest: () => number;
  /** Changes the tip the next pages are read at. */
  tip: Buffer;
}

/** An index holding `rows` confirmed rows for KEY (its summary says `count`, by default their number). */
function fakeIndex(rows: readonly UtxoRow[], count = rows.length): Fake {
  const pages: UtxoPageRequest[] = [];
  let running = 0;
  let most = 0;
  const fake: Fake = {
    pages,
    busiest: () => most,
    tip: Buffer.alloc(32, 1),
    index: {
      keyViews: async () => ({ items: [{ balanceSats: 0n, utxoCount: count }] }),
      utxoPage: async (req: UtxoPageRequest) => {
        pages.push(req);
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        const tipHash = fake.tip;
        req.check({ tipHeight: 200, tipHash, secret: Buffer.alloc(32) });
        const start = req.after === null ? 0 : rows.findIndex((r) => r.outpoint.equals(req.after!.outpoint)) + 1;
        const slice = rows.slice(start, start + req.limit);
        const last = slice.at(-1);
        const more = start + req.limit < rows.length;
        return {
          listing: {
            kind: 'page',
            tipHeight: 200,
            tipHash,
            secret: Buffer.alloc(32),
            rows: slice,
            next: more && last !== undefined ? { phase: 'confirmed', height: last.height!, outpoint: last.outpoint } : null,
          },
        };
      },
    } as unknown as ElectrumIndex,
  };
  return fake;
}

function read(fake: Fake, max: number, paid: number[] = [], queue = heavyReads()): Promise<Unspent[]> {
  const req: UnspentRead = {
    index: fake.index,
    chain: 'LTC',
    key: KEY,
    max,
    queue,
    pay: async (cost) => {
      paid.push(cost);
    },
  };
  return readUnspent(req);
}

describe('listunspent read', () => {
  it('refuses a script over the limit from its count, before any row is read or paid for', async () => {
    const fake = fakeIndex(rowsOf(10), 1_000_001);
    const paid: number[] = [];
    await expect(read(fake, 1_000_000, paid)).rejects.toMatchObject({ code: 'HISTORY_TOO_LARGE' });
    expect(fake.pages).toEqual([]);
    expect(paid).toEqual([]);
  });

  it('pays by the count before reading, then reads in slices the same list one read would give', async () => {
    const n = UNSPENT_SLICE * 2 + 123;
    const rows = rowsOf(n);
    const fake = fakeIndex(rows);
    const paid: number[] = [];
    const got = await read(fake, 200_000, paid);
    expect(paid).toEqual([n / UNSPENT_ROWS_PER_UNIT]);
    expect(fake.pages.map((p) => p.limit)).toEqual([UNSPENT_SLICE, UNSPENT_SLICE, UNSPENT_SLICE]);
    const whole = rows.filter((r) => r.spentInMempool !== true);
    expect(got).toHaveLength(whole.length);
    expect(got.map((u) => u.value)).toEqual(whole.map((r) => Number(r.valueSats)));
    expect(got[0]).toEqual({ tx_hash: expect.stringMatching(/^[0-9a-f]{64}$/), tx_pos: 1, height: 100, value: 1001 });
  });

  it('refuses a list that grows past the limit while read (its mempool part), having read at most one row more', async () => {
    const fake = fakeIndex(rowsOf(50), 10);
    await expect(read(fake, 40)).rejects.toMatchObject({ code: 'HISTORY_TOO_LARGE' });
    expect(fake.pages.map((p) => p.limit)).toEqual([41]);
  });

  it('reads one slice at a time over every read of the chain', async () => {
    const queue = heavyReads();
    const shared = fakeIndex(rowsOf(UNSPENT_SLICE * 3));
    const both = await Promise.all([read(shared, 200_000, [], queue), read(shared, 200_000, [], queue)]);
    expect(both[0]).toEqual(both[1]);
    expect(shared.busiest()).toBe(1);
    // Each with a queue of its own, they would overlap.
    const apart = fakeIndex(rowsOf(UNSPENT_SLICE * 3));
    await Promise.all([read(apart, 200_000), read(apart, 200_000)]);
    expect(apart.busiest()).toBe(2);
  });

  it('starts again when a block comes between its slices, and asks the client to retry when blocks keep coming', async () => {
    const fake = fakeIndex(rowsOf(UNSPENT_SLICE + 5));
    let calls = 0;
    const moving: ElectrumIndex = {
      ...fake.index,
      utxoPage: async (req) => {
        // The tip moves after every first slice of a read: the second slice sees another tip.
        if (calls++ % 2 === 1) fake.tip = Buffer.alloc(32, calls);
        return fake.index.utxoPage(req);
      },
    };
    const err = await read({ ...fake, index: moving }, 200_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe('SERVER_BUSY');
    // Four reads of two slices each, every one started again.
    expect(calls).toBe(8);

    const steady = fakeIndex(rowsOf(UNSPENT_SLICE + 5));
    let once = 0;
    const movesOnce: ElectrumIndex = {
      ...steady.index,
      utxoPage: async (req) => {
        if (once++ === 1) steady.tip = Buffer.alloc(32, 9);
        return steady.index.utxoPage(req);
      },
    };
    expect(await read({ ...steady, index: movesOnce }, 200_000)).toHaveLength(
      rowsOf(UNSPENT_SLICE + 5).filter((r) => r.spentInMempool !== true).length,
    );
    expect(once).toBe(4);
  });
});
