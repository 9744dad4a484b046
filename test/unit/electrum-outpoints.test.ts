/**
 * blockchain.outpoint.* (protocol 1.6 draft) over a chain of the test's own: the status as the draft
 * defines it ({} with no funding transaction, {height} unspent, all three once spent, 0 / -1 for a
 * mempool transaction by whether it depends on another), the errors a status can have, and when a
 * subscription reads its status again: a change touching the funding output's script (or the spk_hint's
 * while the funding is unknown), any change after a reorg, and a new tip only for a status with a mempool
 * height or an unknown funding transaction the index now holds.
 */
import { describe, expect, it } from 'vitest';
import type { IndexAccess } from '../../src/electrum/index/access.js';
import type { ChangeFeed } from '../../src/electrum/index/change-feed.js';
import { OutpointSubscriptions } from '../../src/electrum/index/outpoint-subscriptions.js';
import { readOutpoint, type OutpointSource } from '../../src/electrum/index/outpoint-status.js';
import { outpointMethods } from '../../src/electrum/methods/outpoint-methods.js';
import type { ElectrumSession } from '../../src/electrum/methods/registry.js';
import { RpcError } from '../../src/electrum/wire.js';
import { toDisplayHex } from '../../src/chain/hash.js';
import { silentLogger } from '../../src/logger.js';
import type { FeedChange, Tip } from '../../src/serving/feed-change.js';
import { ServingError } from '../../src/serving/errors.js';
import type { FoundTx, Outspend, TxSource } from '../../src/serving/tx-source.js';
import { scriptKey } from '../../src/store/script-key.js';

const FUNDING = Buffer.alloc(32, 1);
const SPENDER = Buffer.alloc(32, 2);
const SCRIPT = Buffer.from('0014' + '11'.repeat(20), 'hex');
const OTHER = Buffer.from('0014' + '22'.repeat(20), 'hex');

/** What the test's chain holds now; the source reads it each time. */
interface Chain {
  funding: { height: number | null } | null;
  spend: Outspend | null;
  /** Mempool transactions (display hex) that spend another mempool transaction's output. */
  dependent: Set<string>;
  reads: number;
  fail: boolean;
}

function sourceOver(chain: Chain): OutpointSource {
  const found = (): FoundTx | null =>
    chain.funding === null
      ? null
      : ({
          raw: Buffer.alloc(0),
          tx: { txid: FUNDING, outputs: [{ script: OTHER }, { script: SCRIPT }], inputs: [] },
          block: chain.funding.height === null ? null : { height: chain.funding.height, hash: Buffer.alloc(32), position: 1, txNum: 1 },
        } as unknown as FoundTx);
  const txs = {
    find: async (_index: unknown, txid: Buffer) => {
      chain.reads++;
      if (chain.fail) throw new ServingError('NODE_UNAVAILABLE', "the LTC node's getrawtransaction failed");
      return txid.equals(FUNDING) ? found() : null;
    },
    outspend: async () => ({ spend: chain.spend }),
  } as unknown as TxSource;
  const index = {
    txBlock: async () => (chain.funding?.height ? { height: chain.funding.height } : null),
  };
  return {
    chain: 'LTC',
    index: (() => index) as unknown as IndexAccess,
    txs,
    node: {
      call: async <T>(method: string, params: readonly unknown[] = []) => {
        expect(method).toBe('getmempoolentry');
        return { depends: chain.dependent.has(params[0] as string) ? ['ff'.repeat(32)] : [] } as T;
      },
      close: () => undefined,
    },
  };
}

const fresh = (): Chain => ({ funding: { height: 100 }, spend: null, dependent: new Set(), reads: 0, fail: false });

describe('outpoint status', () => {
  it('is {} without a funding transaction or output, {height} unspent, all three once spent', async () => {
    const chain = fresh();
    const source = sourceOver(chain);
    expect(await readOutpoint(source, FUNDING, 1)).toEqual({ status: { height: 100 }, key: scriptKey(SCRIPT) });
    expect((await readOutpoint(source, FUNDING, 2)).status).toEqual({});
    chain.spend = { txid: SPENDER, vin: 0, height: 105 };
    expect((await readOutpoint(source, FUNDING, 1)).status).toEqual({
      height: 100,
      spender_txhash: toDisplayHex(SPENDER),
      spender_height: 105,
    });
    chain.funding = null;
    expect(await readOutpoint(source, FUNDING, 1)).toEqual({ status: {}, key: null });
  });

  it('gives a mempool transaction height 0, or -1 while it depends on another mempool transaction', async () => {
    const chain = fresh();
    chain.funding = { height: null };
    chain.spend = { txid: SPENDER, vin: 3, height: null };
    chain.dependent.add(toDisplayHex(SPENDER));
    expect((await readOutpoint(sourceOver(chain), FUNDING, 1)).status).toEqual({
      height: 0,
      spender_txhash: toDisplayHex(SPENDER),
      spender_height: -1,
    });
  });

  it("answers a node that fails as a daemon error, and a spend older than the spend index as the index's limit", async () => {
    const chain = fresh();
    chain.fail = true;
    const failed = await readOutpoint(sourceOver(chain), FUNDING, 1).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RpcError);
    expect((failed as RpcError).code).toBe('DAEMON_ERROR');
    chain.fail = false;
    chain.spend = { txid: null, vin: null, height: null };
    const unknown = await readOutpoint(sourceOver(chain), FUNDING, 1).catch((e: unknown) => e);
    expect((unknown as RpcError).code).toBe('BAD_REQUEST');
    expect((unknown as RpcError).message).toMatch(/spent before the index kept spends/);
  });

  it('the methods exist from 1.6 only, check their parameters, and name the setting on a chain without a node', async () => {
    const methods = outpointMethods('LTC', { source: null, subscriptions: null });
    for (const spec of Object.values(methods)) expect(spec.since).toBe('1.6');
    const s = sessionRecording().session;
    const call = (name: string, params: unknown[]): Promise<unknown> => methods[name]!.handler(params, s).catch((e: unknown) => e);
    expect(((await call('blockchain.outpoint.get_status', ['zz', 0])) as RpcError).code).toBe('INVALID_PARAMS');
    expect(((await call('blockchain.outpoint.get_status', ['ab'.repeat(32), 1.5])) as RpcError).code).toBe('INVALID_PARAMS');
    expect(((await call('blockchain.outpoint.get_status', ['ab'.repeat(32), 0, 'abc'])) as RpcError).code).toBe('INVALID_PARAMS');
    const noNode = (await call('blockchain.outpoint.get_status', ['ab'.repeat(32), 0])) as RpcError;
    expect(noNode.code).toBe('DAEMON_ERROR');
    expect(noNode.message).toMatch(/ADDRSUM_LTC_RPC_URL|rpcUrl/);
    expect(await call('blockchain.outpoint.unsubscribe', ['ab'.repeat(32), 0])).toBe(false);
  });
});

function sessionRecording(): { session: ElectrumSession; told: unknown[][]; close(): void } {
  const told: unknown[][] = [];
  const closers: (() => void)[] = [];
  return {
    told,
    close: () => closers.forEach((fn) => fn()),
    session: {
      network: '127.0.0.1',
      protocol: '1.6',
      negotiated: () => undefined,
      notify: (method, params) => told.push([method, ...params]),
      closeAfterAnswer: () => undefined,
      charge: async () => undefined,
      onClose: (fn) => closers.push(fn),
    },
  };
}

/** A feed the test drives: its change and tip listeners, called by hand. */
function drivenFeed(): ChangeFeed & { change(c: FeedChange): Promise<void>; tip(height: number): Promise<void>; listeners(): number } {
  const changes = new Set<(c: FeedChange) => Promise<void>>();
  const tips = new Set<(t: Tip) => void>();
  return {
    attach: (_chain, fn) => fn(0),
    onChanges: (_chain, l) => (changes.add(l), () => changes.delete(l)),
    onTip: (l) => (tips.add(l), () => tips.delete(l)),
    change: async (c) => {
      for (const l of changes) await l(c);
    },
    tip: async (height) => {
      for (const l of tips) l({ chain: 'LTC', blockHeight: height, blockHash: '00'.repeat(32) });
      // The listeners run their reads without being awaited: let them finish.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    },
    listeners: () => changes.size + tips.size,
  };
}

const touching = (...scripts: Buffer[]): FeedChange => ({
  all: false,
  touched: new Set(scripts.map((s) => scriptKey(s).toString('latin1'))),
});

describe('outpoint subscriptions', () => {
  const log = silentLogger();

  it('reads again on a change to the funding script or any reorg, not on others; tells only a changed status', async () => {
    const chain = fresh();
    const feed = drivenFeed();
    const subs = new OutpointSubscriptions('LTC', feed, sourceOver(chain), 10, log);
    const { session, told, close } = sessionRecording();
    expect(await subs.subscribe(session, FUNDING, 1, null)).toEqual({ height: 100 });
    const reads = chain.reads;
    chain.spend = { txid: SPENDER, vin: 0, height: null };
    await feed.change(touching(OTHER));
    expect(chain.reads).toBe(reads);
    await feed.change(touching(SCRIPT));
    const spent = { height: 100, spender_txhash: toDisplayHex(SPENDER), spender_height: 0 };
    expect(told).toEqual([['blockchain.outpoint.subscribe', [toDisplayHex(FUNDING), 1], spent]]);
    // The same status again tells nothing; a reorg (all) reads it anyway.
    await feed.change({ all: true, touched: new Set() });
    expect(chain.reads).toBe(reads + 2);
    expect(told).toHaveLength(1);
    // A new tip reads a status with a mempool height (its -1 / 0 can change without its script).
    chain.spend = { txid: SPENDER, vin: 0, height: 101 };
    await feed.tip(101);
    expect(told.at(-1)).toEqual(['blockchain.outpoint.subscribe', [toDisplayHex(FUNDING), 1], { ...spent, spender_height: 101 }]);
    // Once confirmed, tips read nothing.
    const after = chain.reads;
    await feed.tip(102);
    expect(chain.reads).toBe(after);
    close();
    expect(subs.size).toBe(0);
    expect(feed.listeners()).toBe(0);
  });

  it('keeps an outpoint not funded yet: watches the hinted script, and checks the index (not the node) at each tip', async () => {
    const chain = fresh();
    chain.funding = null;
    const feed = drivenFeed();
    const subs = new OutpointSubscriptions('LTC', feed, sourceOver(chain), 10, log);
    const hinted = sessionRecording();
    const bare = sessionRecording();
    expect(await subs.subscribe(hinted.session, FUNDING, 1, scriptKey(SCRIPT))).toEqual({});
    const reads = chain.reads;
    await feed.tip(101);
    expect(chain.reads).toBe(reads);
    chain.funding = { height: null };
    await feed.change(touching(SCRIPT));
    expect(hinted.told).toEqual([['blockchain.outpoint.subscribe', [toDisplayHex(FUNDING), 1], { height: 0 }]]);

    const other = Buffer.alloc(32, 9);
    expect(await subs.subscribe(bare.session, other, 0, null)).toEqual({});
    expect(await subs.unsubscribe(bare.session, other, 0)).toBe(true);
    expect(await subs.unsubscribe(bare.session, other, 0)).toBe(false);
  });

  it('refuses more outpoints than a connection may hold', async () => {
    const subs = new OutpointSubscriptions('LTC', drivenFeed(), sourceOver(fresh()), 2, log);
    const { session } = sessionRecording();
    await subs.subscribe(session, FUNDING, 0, null);
    await subs.subscribe(session, FUNDING, 1, null);
    await subs.subscribe(session, FUNDING, 1, null);
    const refused = await subs.subscribe(session, FUNDING, 2, null).catch((e: unknown) => e);
    expect((refused as RpcError).code).toBe('EXCESSIVE_RESOURCE_USAGE');
  });
});
