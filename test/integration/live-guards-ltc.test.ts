/**
 * The live endpoints' guards and resumption, of the real indexer and API against a real
 * `litecoind -regtest`: SSE Last-Event-ID resume; the WebSocket auth message and its timeout; the
 * subscription caps per connection and per key by tier; the Origin check; the invalid-key throttle and
 * the connection guard on upgrades; two API workers each tailing the feed; and mempool subscribers,
 * whose confirmed + unconfirmed before mining equals what `scantxoutset` reports after.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiProcess } from '../../harness/api-process.js';
import { waitFor } from '../../harness/indexer-process.js';
import { LitecoindWorld } from '../../harness/indexer-world.js';
import type { Litecoind } from '../../harness/litecoind.js';
import { scanAddresses } from '../../harness/regtest-scan.js';
import { chainParams } from '../../src/chain/params.js';
import { KeyStore } from '../../src/store/sqlite/key-store.js';
import { SseClient, UpgradeRefused, WsClient } from '../support/live-clients.js';

const CHAIN = 'LTC';
const network = chainParams(CHAIN, 'regtest').bitcoinjs;
const ALLOWED_ORIGIN = 'http://wallet.test';
const AUTH_TIMEOUT_MS = 500;
const LIMITS = { perConnection: { default: 2, private: 4 }, perKey: { default: 3, private: 6 } };

/** An address outside the node's wallet: the wallet never spends from it, so what it is paid is its delta. */
function freshAddress(): string {
  return payments.p2wpkh({ hash: randomBytes(20), network }).address!;
}

const sats = (coins: string): number => Math.round(Number(coins) * 1e8);

/** The first of `tries` upgrades refused with `status`, and the statuses before it. */
async function upgradesUntil(
  url: string,
  headers: Record<string, string>,
  status: number,
  tries: number,
  localAddress?: string,
): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < tries && seen.at(-1) !== status; i++) {
    try {
      (await WsClient.open(url, headers, localAddress)).ws.terminate();
      seen.push(101);
    } catch (err) {
      if (!(err instanceof UpgradeRefused)) throw err;
      seen.push(err.status);
    }
  }
  return seen;
}

describe('live guards and resumption against a real litecoind', () => {
  let lw: LitecoindWorld;
  let node: Litecoind;
  let miner: string;
  /** Anonymous callers served, small caps, one origin allowed, at most 16 connections. */
  let capped: ApiProcess;
  /** ADDRSUM_API_WORKERS=2, keys required, a short auth timeout, a small invalid-key burst. */
  let workers: ApiProcess;
  let privateKey: string;
  let defaultKey: string;
  const open: WsClient[] = [];
  const streams: SseClient[] = [];

  const ws = async (api: ApiProcess, headers: Record<string, string> = {}): Promise<WsClient> => {
    const client = await WsClient.open(api.url, headers);
    open.push(client);
    return client;
  };
  const sse = async (api: ApiProcess, address: string, headers: Record<string, string>, query = ''): Promise<SseClient> => {
    const stream = await SseClient.open(api.url, CHAIN, address, headers, query);
    streams.push(stream);
    return stream;
  };
  const mine = (): Promise<void> => lw.mineBlock(miner);

  beforeAll(async () => {
    lw = await LitecoindWorld.start();
    node = lw.node;
    miner = await node.cli<string>('getnewaddress', '', 'bech32');
    await node.cli('generatetoaddress', 101, miner);
    privateKey = lw.world.createKey('live-private');
    const keys = KeyStore.open(path.join(lw.world.dataDir, 'keys.sqlite'));
    defaultKey = keys.create('default', 'live-default').key;
    keys.close();
    await lw.world.startIndexer({ toml: 'mempoolPollMs = 100' });
    await lw.world.waitForTip('initial catch-up', 120_000);
    const caps = (kind: keyof typeof LIMITS) => `default = ${LIMITS[kind].default}\nprivate = ${LIMITS[kind].private}\n`;
    const unlimited = '[api.tiers.default]\nrate = 100000\nburst = 100000\n[api.tiers.private]\nrate = 100000\nburst = 100000\n';
    capped = await lw.world.startApi(
      `[api]\nallowAnonymous = true\ncorsOrigins = ["${ALLOWED_ORIGIN}"]\nmaxConnections = 16\n${unlimited}` +
        `[api.live]\npollMs = 100\n[api.live.subscriptionsPerConnection]\n${caps('perConnection')}` +
        `[api.live.subscriptionsPerKey]\n${caps('perKey')}`,
    );
    workers = await lw.world.startApi(
      `${unlimited}[api.invalidKeys]\nrate = 1\nburst = 2\n[api.live]\npollMs = 100\nauthTimeoutMs = ${AUTH_TIMEOUT_MS}\n`,
      { ADDRSUM_API_WORKERS: '2' },
    );
    // The start waits for the first worker only; the supervisor hands connections to listening ones.
    await waitFor(
      'both workers listening',
      () =>
        workers
          .output()
          .split('\n')
          .filter((l) => /"worker":\d+.*"msg":"listening"/.test(l)).length >= 2,
    );
  }, 300_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    for (const c of open) c.ws.terminate();
    await workers?.stop();
    await lw?.close();
  });

  describe('Server-Sent Events resume with Last-Event-ID', () => {
    it('skips the first frame for an address untouched since, and sends it for one that changed', async () => {
      const moving = freshAddress();
      const quiet = freshAddress();
      const key = { 'x-api-key': privateKey };
      const first = await Promise.all([sse(workers, moving, key), sse(workers, quiet, key)]);
      await waitFor('the first frames', () => first.every((s) => s.ids.length > 0 && s.last !== null));
      const [movingId, quietId] = first.map((s) => s.ids[0]!);
      first.forEach((s) => s.close());

      const again = await sse(workers, quiet, { ...key, 'last-event-id': quietId! });
      await waitFor('the resumed stream', () => again.text.length > 0);
      expect(again.text).toBe(`: resumed at ${quietId}\n\n`);
      again.close();

      await node.cli('sendtoaddress', moving, '0.5');
      await mine();
      const [changed, untouched, unknown] = await Promise.all([
        sse(workers, moving, { ...key, 'last-event-id': movingId! }),
        sse(workers, quiet, { ...key, 'last-event-id': quietId! }),
        sse(workers, quiet, { ...key, 'last-event-id': '999999999' }),
      ]);
      await waitFor('the resumed streams', () => changed.last !== null && untouched.text.length > 0 && unknown.last !== null);
      expect(changed.last!.balanceSatoshi).toBe(sats('0.5'));
      expect(Number(changed.ids[0])).toBeGreaterThan(Number(movingId));
      expect(untouched.text).toBe(`: resumed at ${quietId}\n\n`);
      // A position the feed does not know cannot prove anything unchanged: the summary is sent.
      expect(unknown.last!.balanceSatoshi).toBe(0);
    }, 120_000);
  });

  describe('WebSocket authentication', () => {
    it('serves a keyless connection after its auth message, and not before', async () => {
      const client = await ws(workers);
      const early = await client.op({ op: 'subscribe', chain: CHAIN, addresses: [freshAddress()] });
      expect(early).toMatchObject({ status: 'fail', data: { code: 'MISSING_API_KEY' } });
      expect(await client.op({ op: 'auth', key: privateKey })).toEqual(
        expect.objectContaining({ status: 'success', data: { tier: 'private' } }),
      );
      const address = freshAddress();
      expect((await client.op({ op: 'subscribe', chain: CHAIN, addresses: [address] })).status).toBe('success');
      await waitFor('its first summary', () => client.last.has(address));
    }, 60_000);

    it(`closes a keyless connection that sends no auth message in time with 4408`, async () => {
      const client = await ws(workers);
      expect(await client.whenClosed()).toBe(4408);
    }, 30_000);

    it('closes a connection whose auth message has a wrong key with 4401', async () => {
      const client = await ws(workers);
      const reply = await client.op({ op: 'auth', key: `asum_${'0'.repeat(43)}` });
      expect(reply).toMatchObject({ status: 'fail', data: { code: 'INVALID_API_KEY' } });
      expect(await client.whenClosed()).toBe(4401);
    }, 30_000);
  });

  describe('subscription caps by tier', () => {
    const subscribe = (client: WsClient, n: number) =>
      client.op({ op: 'subscribe', chain: CHAIN, addresses: Array.from({ length: n }, freshAddress) });

    it('caps one connection: default tier (anonymous) and private keys', async () => {
      const anon = await ws(capped);
      expect(await subscribe(anon, LIMITS.perConnection.default + 1)).toMatchObject({
        status: 'fail',
        data: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      });
      expect((await subscribe(anon, LIMITS.perConnection.default)).status).toBe('success');
      const keyed = await ws(capped, { 'x-api-key': privateKey });
      expect(await subscribe(keyed, LIMITS.perConnection.private + 1)).toMatchObject({
        status: 'fail',
        data: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      });
      expect((await subscribe(keyed, LIMITS.perConnection.private)).status).toBe('success');
    }, 60_000);

    it('caps one key over its connections and event streams, per tier; closing one frees its share', async () => {
      // Held now: anonymous 2 (of 3 per client network), private key 4 (of 6).
      const anon = await ws(capped);
      expect(await subscribe(anon, 2)).toMatchObject({ status: 'fail', data: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
      expect((await subscribe(anon, 1)).status).toBe('success');
      const anonStream = await sse(capped, freshAddress(), {});
      expect(anonStream.status).toBe(429);
      expect(anonStream.text).toContain('TOO_MANY_SUBSCRIPTIONS');

      const keyed = await ws(capped, { 'x-api-key': privateKey });
      expect(await subscribe(keyed, 3)).toMatchObject({ status: 'fail', data: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
      expect((await subscribe(keyed, 2)).status).toBe('success');
      expect((await sse(capped, freshAddress(), { 'x-api-key': privateKey })).status).toBe(429);

      // A default-tier key has its own count, at the default tier's caps.
      const small = await ws(capped, { 'x-api-key': defaultKey });
      expect(await subscribe(small, LIMITS.perConnection.default + 1)).toMatchObject({
        status: 'fail',
        data: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      });
      expect((await subscribe(small, 2)).status).toBe('success');
      const small2 = await ws(capped, { 'x-api-key': defaultKey });
      expect(await subscribe(small2, 2)).toMatchObject({ status: 'fail', data: { code: 'TOO_MANY_SUBSCRIPTIONS' } });

      keyed.ws.close();
      await keyed.whenClosed();
      let stream: SseClient | null = null;
      await waitFor('a stream once the closed connection released its subscriptions', async () => {
        stream?.close();
        stream = await sse(capped, freshAddress(), { 'x-api-key': privateKey });
        return stream.status === 200;
      });
    }, 60_000);
  });

  describe('upgrade checks', () => {
    it('refuses an Origin outside api.corsOrigins and the service itself', async () => {
      const refused = await WsClient.open(capped.url, { origin: 'http://elsewhere.test' }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(UpgradeRefused);
      expect((refused as UpgradeRefused).status).toBe(403);
      expect((refused as UpgradeRefused).body).toContain('ORIGIN_NOT_ALLOWED');
      (await ws(capped, { origin: ALLOWED_ORIGIN })).ws.close();
      (await ws(capped, { origin: capped.url })).ws.close();
    }, 30_000);

    it('throttles wrong keys on upgrades as on requests: 401, then 429', async () => {
      // From a client network of its own: the throttle it trips would otherwise still hold 127.0.0.1
      // (each worker has its own bucket) when the next tests connect with a good key.
      const statuses = await upgradesUntil(workers.url, { 'x-api-key': `asum_${'1'.repeat(43)}` }, 429, 20, '127.0.0.3');
      expect(statuses[0]).toBe(401);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    }, 60_000);

    it('counts WebSockets against maxConnections as busy: at the cap the next connection is refused until one closes', async () => {
      for (const c of open) c.ws.terminate();
      for (const s of streams) s.close();
      // Connections of earlier tests may still be closing: open until refused, at most the cap.
      const held: WsClient[] = [];
      const refused = async (): Promise<boolean> => {
        try {
          held.push(await ws(capped));
          return false;
        } catch (err) {
          if (err instanceof UpgradeRefused) throw err;
          return true;
        }
      };
      await waitFor('a WebSocket refused at the cap', refused);
      expect(held.length).toBeGreaterThan(0);
      expect(held.length).toBeLessThanOrEqual(16);
      await expect(fetch(`${capped.url}/health`)).rejects.toThrow();
      held[0]!.ws.close();
      await waitFor(
        'a request once a WebSocket closed',
        async () => (await fetch(`${capped.url}/health`).catch(() => null))?.status === 200,
      );
    }, 60_000);
  });

  describe('two API workers and mempool subscribers', () => {
    it('pushes to clients of either worker; confirmed + unconfirmed before mining equals what is mined', async () => {
      const paid = Array.from({ length: 4 }, freshAddress);
      const amounts = ['0.1', '0.2', '0.3', '0.4'];
      const key = { 'x-api-key': privateKey };
      const clients = await Promise.all(Array.from({ length: 4 }, () => ws(workers, key)));
      for (const c of clients)
        expect((await c.op({ op: 'subscribe', chain: CHAIN, addresses: paid, mempool: true })).status).toBe('success');
      const events = await Promise.all(paid.map((a) => sse(workers, a, key, '?mempool=true')));
      await waitFor('first summaries', () => clients.every((c) => c.last.size === paid.length) && events.every((s) => s.last !== null));

      for (const [i, a] of paid.entries()) await node.cli('sendtoaddress', a, amounts[i]);
      const views = () => [...clients.map((c) => paid.map((a) => c.last.get(a))), events.map((s) => s.last)];
      await waitFor('every payment pushed as unconfirmed', () =>
        views().every((view) => view.every((d, i) => d?.unconfirmed?.balanceSatoshi === sats(amounts[i]!) && d.unconfirmed.txCount === 1)),
      );
      const before = views().map((view) => view.map((d) => d!.balanceSatoshi + d!.unconfirmed!.balanceSatoshi));

      await mine();
      const scan = await scanAddresses(node, paid);
      await waitFor('the mined summaries', () =>
        views().every((view) =>
          view.every((d, i) => d!.balanceSatoshi === scan.get(paid[i]!)!.sats && d!.unconfirmed!.balanceSatoshi === 0),
        ),
      );
      for (const sums of before) expect(sums).toEqual(paid.map((a) => scan.get(a)!.sats));

      // Which worker served each stream: its request's log line, written when the stream ends.
      events.forEach((s) => s.close());
      const workerOf = (id: string): string | undefined =>
        workers
          .output()
          .split('\n')
          .find((l) => l.includes(`"reqId":"${id}"`))
          ?.match(/"worker":(\d+)/)?.[1];
      await waitFor('the streams logged', () => events.every((s) => workerOf(s.requestId!) !== undefined));
      expect(new Set(events.map((s) => workerOf(s.requestId!))).size).toBe(2);
    }, 180_000);
  });
});
