/**
 * src/api/live/hub.ts over an engine that answers later (the reader port's Promises): a chain's polls
 * wait for each other however often the timer fires, so the feed is never read by two polls at once
 * and the pushes go out in feed order, each position once; change listeners (the Electrum statuses) hear
 * of each poll's touched scripts; a write the feed's watch reports is read without waiting for the timer.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../../src/api/deps.js';
import type { ChainHandle, FeedSource } from '../../src/serving/chain-handle.js';
import { LiveHub, type Subscriber } from '../../src/api/live/hub.js';
import { watchOf } from '../../src/api/live/watch.js';
import { scriptToAddress } from '../../src/chain/address.js';
import { chainParams } from '../../src/chain/params.js';
import type { FeedEntry } from '../../src/store/index-model.js';
import { scriptKey } from '../../src/store/script-key.js';
import { FakeIndex } from '../support/api-world.js';

const params = chainParams('LTC', 'regtest');
const A = Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, 1)]);
/** Each feed read takes this long; the timer fires far more often. */
const READ_MS = 15;

/** A live hub of LTC over `source` (an index with its feed), polling every `pollMs`. */
function hubOver(source: object, pollMs: number): LiveHub {
  const handle = { params, configured: true, acquire: () => ({ ok: true, source }) } as unknown as ChainHandle;
  const deps = {
    chains: new Map([['LTC', handle]]),
    settings: { syncLagBlocks: 1 },
    clock: { now: () => Date.now() },
  } as unknown as AppDeps;
  return new LiveHub(deps, { pollMs }, pino({ level: 'silent' }));
}

describe('LiveHub over a feed that answers later', () => {
  it('never reads the feed in two polls at once, and pushes in feed order', async () => {
    const index = new FakeIndex();
    let head = 0;
    let reading = 0;
    let most = 0;
    const slow = <T>(answer: () => T): Promise<T> => {
      most = Math.max(most, ++reading);
      return new Promise((resolve) =>
        setTimeout(() => {
          reading--;
          resolve(answer());
        }, READ_MS),
      );
    };
    // Every look at the feed finds one more row, and the watched script's balance moved with it.
    const feed: FeedSource = {
      bounds: () =>
        slow(() => {
          head += 1;
          index.set(A.toString('hex'), head * 1000, 1);
          return { first: 1, last: head };
        }),
      since: (after, limit) =>
        slow(() =>
          Array.from({ length: Math.min(limit, head - after) }, (_, i): FeedEntry => ({
            seq: after + i + 1,
            kind: 'mempool',
            tipHeight: null,
            scripts: [scriptKey(A)],
          })),
        ),
    };
    const hub = hubOver(Object.assign(index, { feed }), 1);
    const pushed: number[] = [];
    const sub: Subscriber = {
      watch: watchOf('LTC', scriptToAddress(params, A)!, A, false),
      last: null,
      push: (_summary, seq) => pushed.push(seq),
      close: () => undefined,
    };
    try {
      await hub.attach('LTC', async () => hub.add(sub));
      await new Promise((resolve) => setTimeout(resolve, 20 * READ_MS));
    } finally {
      hub.close();
    }
    expect(most).toBe(1);
    expect(pushed.length).toBeGreaterThan(2);
    expect(pushed).toEqual([...new Set(pushed)].sort((a, b) => a - b));
  });

  it('tells change listeners the scripts each poll found touched, and "all" for a row without scripts', async () => {
    const index = new FakeIndex();
    const rows: FeedEntry[] = [];
    const feed: FeedSource = {
      bounds: async () => (rows.length === 0 ? null : { first: 1, last: rows.length }),
      since: async (after, limit) => rows.slice(after, after + limit),
    };
    const hub = hubOver(Object.assign(index, { feed }), 5);
    const changes: Array<{ all: boolean; touched: string[] }> = [];
    const row = (scripts: Buffer[] | null): void => void rows.push({ seq: rows.length + 1, kind: 'mempool', tipHeight: null, scripts });
    try {
      await hub.attach('LTC', async () => {
        hub.onChanges('LTC', async (c) => void changes.push({ all: c.all, touched: [...c.touched] }));
      });
      row([scriptKey(A)]);
      await expect.poll(() => changes.length).toBe(1);
      row(null);
      await expect.poll(() => changes.length).toBe(2);
    } finally {
      hub.close();
    }
    expect(changes).toEqual([
      { all: false, touched: [scriptKey(A).toString('latin1')] },
      { all: true, touched: [] },
    ]);
  });

  it("polls shortly after a write the feed's watch reports, without waiting for the timer, and stops the watch when nobody listens", async () => {
    const index = new FakeIndex();
    const rows: FeedEntry[] = [];
    let onWrite: (() => void) | null = null;
    let stopped = 0;
    const feed: FeedSource = {
      bounds: async () => (rows.length === 0 ? null : { first: 1, last: rows.length }),
      since: async (after, limit) => rows.slice(after, after + limit),
      watch: (fn) => {
        onWrite = fn;
        return () => void stopped++;
      },
    };
    // The timer would take a minute: only the watch can have the new row read within the wait below.
    const hub = hubOver(Object.assign(index, { feed }), 60_000);
    const changes: string[][] = [];
    try {
      let stop = (): void => undefined;
      await hub.attach('LTC', async () => {
        stop = hub.onChanges('LTC', async (c) => void changes.push([...c.touched]));
      });
      expect(onWrite).not.toBeNull();
      rows.push({ seq: 1, kind: 'mempool', tipHeight: null, scripts: [scriptKey(A)] });
      onWrite!();
      onWrite!();
      await expect.poll(() => changes.length).toBe(1);
      rows.push({ seq: 2, kind: 'mempool', tipHeight: null, scripts: [scriptKey(A)] });
      onWrite!();
      await expect.poll(() => changes.length).toBe(2);
      expect(stopped).toBe(0);
      stop();
      expect(stopped).toBe(1);
    } finally {
      hub.close();
    }
    expect(changes).toEqual([[scriptKey(A).toString('latin1')], [scriptKey(A).toString('latin1')]]);
  });
});
