/**
 * Blockbook's WebSocket API at /blockbook/{chain}/websocket when api.blockbook is on: what
 * `@trezor/blockchain-link`'s Blockbook worker (Trezor Suite) speaks. A request `{id, method, params}` is
 * answered `{id, data}`, a failure `{id, data: {error: {message}}}`, and a subscription's notifications
 * carry the id of the request that made it, as Blockbook does. Requests run a few at a time and their
 * answers go out as each is ready (the client matches them by id).
 *
 * The request methods are the REST routes' own answers (blockbook-methods.ts). Subscriptions:
 * subscribeNewBlock (`{height, hash}` on each new tip of the index), subscribeAddresses (`{address,
 * tx}`, blockbook-address-feed.ts; a new call replaces the addresses), and their unsubscribes. A method
 * Blockbook has and this server does not serve answers an error naming it; the socket stays open.
 *
 * Limits are the HTTP dialect's: the caller is the upgrade's key or, without one, its client network at
 * the default tier; each request takes a token (but those that read nothing, FREE), its extra work
 * more, and a refused one answers the 429's text as its error. Watched addresses count against the caller's subscriptions
 * (api.live.subscriptionsPerKey) as the native live API's do.
 */
import PQueue from 'p-queue';
import type { RawData, WebSocket } from 'ws';
import { addressToScript } from '../../chain/address.js';
import type { ChainCode } from '../../chain/params.js';
import { CHAIN_CODES } from '../../chain/params.js';
import { ServingError } from '../../serving/errors.js';
import type { FeedChange, Tip } from '../../serving/feed-change.js';
import { scriptKey } from '../../store/script-key.js';
import { subscriptionOwner } from '../live/limits.js';
import { CLOSE, keepAlive, PING_MS, rawLength } from '../live/ws-protocol.js';
import type { SocketDeps, SocketDoor, SocketPeer } from '../live/ws-server.js';
import { chainRoute } from '../node-read.js';
import type { Tier } from '../../store/keys/tier.js';
import { blockbookFailure } from './blockbook-answers.js';
import type { BlockbookAsk } from './blockbook-ask.js';
import { AddressFeed, type WatchedAddress } from './blockbook-address-feed.js';
import { METHODS } from './blockbook-methods.js';

/** Room for a sendTransaction of Core's largest transaction (under 8 MB of hex) and its envelope. */
const MAX_PAYLOAD = 9 * 1024 * 1024;
/** Requests of one connection served at once; more wait their turn. */
const CONCURRENT = 4;
/** Bytes of requests a client may send ahead of their answers. */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;
/** Blockbook's caps on one subscribeAddresses (with newBlockTxs, fewer). */
const MAX_ADDRESSES = 1000;
const MAX_ADDRESSES_NEW_BLOCK_TXS = 100;
/** Addresses whose first read one token pays for. */
const ADDRESSES_PER_TOKEN = 25;

/** Blockbook methods this server does not serve: an error names them (any other name is unknown). */
const NOT_SERVED = [
  'getContractInfo',
  'getCurrentFiatRates',
  'getFiatRatesForTimestamps',
  'getFiatRatesTickersList',
  'subscribeFiatRates',
  'unsubscribeFiatRates',
  'getMempoolFilters',
  'getBlockFilter',
  'getBlockFiltersBatch',
  'longTermFeeRate',
  'rpcCall',
];

/**
 * Requests that read nothing take no token. A refused subscribeNewBlock would be lost for good:
 * blockchain-link records a subscription before its request is answered, and asked again answers
 * itself without asking the server.
 */
const FREE = new Set([
  'ping',
  'subscribeNewBlock',
  'unsubscribeNewBlock',
  'unsubscribeAddresses',
  'subscribeNewTransaction',
  'unsubscribeNewTransaction',
]);

const NEW_TX_REFUSAL = 'subscribeNewTransaction is not served by this server: subscribe to addresses instead (docs/blockbook.md)';

/** A WebSocket message carries no headers. */
const NO_HEADERS = { setHeader: (): void => undefined };

export type BlockbookSocketOptions = SocketDeps;

/** The chain of a Blockbook WebSocket path, `/blockbook/{chain}/websocket`; null for any other path. */
function chainOfPath(path: string): ChainCode | null {
  const m = /^\/blockbook\/([A-Za-z]{3})\/websocket$/.exec(path);
  const code = m?.[1]?.toUpperCase();
  return (CHAIN_CODES as readonly string[]).includes(code ?? '') ? (code as ChainCode) : null;
}

export function blockbookDoor(opts: BlockbookSocketOptions): SocketDoor {
  return {
    serves: (path) => opts.deps.settings.blockbook === true && chainOfPath(path) !== null,
    maxPayload: MAX_PAYLOAD,
    anyOrigin: true,
    open: (ws, peer) => {
      const conn = new BlockbookConnection(ws, chainOfPath(peer.path)!, opts, peer);
      return { close: () => conn.close(CLOSE.goingAway, 'server stopping') };
    },
  };
}

interface Request {
  readonly id: string;
  readonly method: string;
  readonly params: unknown;
}

function parseRequest(data: RawData): Request | string {
  let value: unknown;
  try {
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    value = JSON.parse(text);
  } catch (err) {
    return `the message is not JSON: ${(err as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a request is a JSON object {id, method, params}';
  const { id, method, params } = value as Record<string, unknown>;
  if (typeof method !== 'string') return 'a request names its method: {id, method, params}';
  return { id: typeof id === 'string' || typeof id === 'number' ? String(id) : '', method, params };
}

class BlockbookConnection {
  private readonly owner: string;
  private readonly tier: Tier;
  private readonly requests = new PQueue({ concurrency: CONCURRENT });
  private waiting = 0;
  private closed = false;
  private readonly ping: NodeJS.Timeout;
  private block: { id: string; stop: () => void } | null = null;
  private addresses: { feed: AddressFeed; stop: () => void } | null = null;
  private changes: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WebSocket,
    private readonly chain: ChainCode,
    private readonly opts: BlockbookSocketOptions,
    peer: SocketPeer,
  ) {
    this.owner = subscriptionOwner(peer.caller?.keyId ?? null, peer.ip);
    this.tier = peer.caller?.tier ?? 'default';
    this.ping = keepAlive(ws, opts.pingMs ?? PING_MS);
    ws.on('message', (data: RawData) => {
      const bytes = rawLength(data);
      this.waiting += bytes;
      if (this.waiting > MAX_WAITING_BYTES) return this.close(CLOSE.throttled, 'too many requests sent ahead of their answers');
      void this.requests.add(() => this.onMessage(data)).finally(() => (this.waiting -= bytes));
    });
    ws.once('close', () => this.cleanup());
    ws.on('error', () => ws.terminate());
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    const t = setTimeout(() => this.ws.terminate(), 1000);
    t.unref();
    this.cleanup();
  }

  private send(id: string, data: unknown): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.opts.limits.maxBufferedBytes)
      return this.close(CLOSE.slowConsumer, 'slow consumer: messages are not being read');
    this.ws.send(JSON.stringify({ id, data }));
  }

  private sendError(id: string, message: string): void {
    this.send(id, { error: { message } });
  }

  /** Takes `n` tokens from the caller's bucket (`overdraw`: a price past the burst may be taken at once). */
  private async pay(n: number, overdraw: boolean): Promise<void> {
    if (n <= 0) return;
    const decision = await this.opts.limiter.consume(
      this.owner,
      this.opts.deps.settings.tiers[this.tier],
      n,
      overdraw ? 'overdraw' : 'within',
    );
    if (decision.allowed) return;
    this.opts.metrics.rateLimited.inc({ tier: this.tier });
    const { rate } = this.opts.deps.settings.tiers[this.tier];
    throw new ServingError(
      'RATE_LIMITED',
      `too many requests for the ${this.tier} tier (${rate}/s, burst ${decision.limit}); retry in ${decision.retryAfterSeconds} s`,
    );
  }

  private ask(): BlockbookAsk {
    return { deps: this.opts.deps, route: chainRoute(this.opts.deps, this.chain), headers: NO_HEADERS, charge: (n) => this.pay(n, true) };
  }

  private async onMessage(data: RawData): Promise<void> {
    const req = parseRequest(data);
    if (typeof req === 'string') return this.sendError('', req);
    try {
      if (!FREE.has(req.method)) await this.pay(1, false);
      this.send(req.id, await this.answer(req));
    } catch (err) {
      const failure = blockbookFailure(err);
      if (failure.unexpected) this.opts.deps.logger.error({ err, method: req.method }, 'blockbook: a request failed');
      this.sendError(req.id, failure.text);
    }
  }

  /** Runs a subscription's change after the ones before it: a connection's subscriptions change one at a time. */
  private inTurn<T>(fn: () => T | Promise<T>): Promise<T> {
    const done = this.changes.then(fn);
    this.changes = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  private answer(req: Request): Promise<unknown> | unknown {
    switch (req.method) {
      case 'subscribeNewBlock':
        return this.inTurn(() => this.subscribeBlock(req.id));
      case 'unsubscribeNewBlock':
        return this.inTurn(() => this.unsubscribeBlock());
      case 'subscribeAddresses':
        return this.inTurn(() => this.subscribeAddresses(req));
      case 'unsubscribeAddresses':
        return this.inTurn(() => {
          this.unsubscribeAddresses();
          return { subscribed: false };
        });
      case 'subscribeNewTransaction':
      case 'unsubscribeNewTransaction':
        return { subscribed: false, message: NEW_TX_REFUSAL };
    }
    const method = Object.hasOwn(METHODS, req.method) ? METHODS[req.method] : undefined;
    if (method !== undefined) return method(this.ask(), req.params);
    if (NOT_SERVED.includes(req.method))
      throw new ServingError('NOT_FOUND', `${req.method} is not served by this server (docs/blockbook.md)`);
    throw new ServingError('NOT_FOUND', `unknown method ${JSON.stringify(req.method.slice(0, 100))}`);
  }

  private async subscribeBlock(id: string): Promise<{ subscribed: true }> {
    this.block?.stop();
    this.block = null;
    // Listening from a poll of the chain on: every block after the answer is notified.
    await this.opts.hub.attach(this.chain, () => {
      if (this.closed) return Promise.resolve();
      const stop = this.opts.hub.onTip((tip: Tip) => {
        if (tip.chain === this.chain && this.block !== null) this.send(this.block.id, { height: tip.blockHeight, hash: tip.blockHash });
      });
      this.block = { id, stop };
      return Promise.resolve();
    });
    return { subscribed: true };
  }

  private unsubscribeBlock(): { subscribed: false } {
    this.block?.stop();
    this.block = null;
    return { subscribed: false };
  }

  private watched(params: unknown): { addresses: WatchedAddress[]; newBlockTxs: boolean } {
    const p = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : null;
    const list = p?.addresses ?? [];
    if (p === null || !Array.isArray(list) || (p.newBlockTxs !== undefined && typeof p.newBlockTxs !== 'boolean'))
      throw new ServingError('BAD_REQUEST', 'Invalid subscribeAddresses params');
    const newBlockTxs = p.newBlockTxs === true;
    const max = newBlockTxs ? MAX_ADDRESSES_NEW_BLOCK_TXS : MAX_ADDRESSES;
    if (list.length > max) throw new ServingError('BAD_REQUEST', `addresses max ${max}`);
    const params_ = this.ask().route.handle.params;
    const byKey = new Map<string, WatchedAddress>();
    for (const address of list) {
      if (typeof address !== 'string') throw new ServingError('BAD_REQUEST', 'Invalid subscribeAddresses params');
      const decoded = addressToScript(params_, address);
      if (!decoded.ok)
        throw new ServingError('BAD_REQUEST', `Invalid address ${JSON.stringify(address.slice(0, 100))}, ${decoded.error.message}`);
      const key = scriptKey(decoded.script);
      byKey.set(key.toString('latin1'), { address, key });
    }
    return { addresses: [...byKey.values()], newBlockTxs };
  }

  private async subscribeAddresses(req: Request): Promise<{ subscribed: boolean }> {
    const { addresses, newBlockTxs } = this.watched(req.params);
    // Blockbook's subscribeAddresses replaces the connection's addresses.
    this.unsubscribeAddresses();
    if (addresses.length === 0) return { subscribed: true };
    const cap = this.opts.limits.perKey[this.tier];
    if (!this.opts.hub.reserve(this.owner, addresses.length, cap))
      throw new ServingError('TOO_MANY_SUBSCRIPTIONS', `at most ${cap} subscriptions per key for the ${this.tier} tier`);
    try {
      await this.pay(Math.ceil(addresses.length / ADDRESSES_PER_TOKEN) - 1, true);
      const feed = new AddressFeed(
        this.ask(),
        addresses,
        newBlockTxs,
        (address, tx) => this.send(req.id, { address, tx }),
        this.opts.deps.logger,
      );
      // The first read and the listener start with no poll of the chain between: no change is missed.
      await this.opts.hub.attach(this.chain, async () => {
        await feed.start();
        if (this.closed) return;
        const stop = this.opts.hub.onChanges(this.chain, (change: FeedChange) => {
          feed.changed(change);
          return Promise.resolve();
        });
        this.addresses = { feed, stop };
      });
    } catch (err) {
      this.opts.hub.release(this.owner, addresses.length);
      throw err;
    }
    if (this.addresses === null) this.opts.hub.release(this.owner, addresses.length);
    return { subscribed: true };
  }

  private unsubscribeAddresses(): void {
    if (this.addresses === null) return;
    this.addresses.stop();
    this.addresses.feed.stop();
    this.opts.hub.release(this.owner, this.addresses.feed.size);
    this.addresses = null;
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.ping);
    this.requests.clear();
    this.unsubscribeBlock();
    this.unsubscribeAddresses();
  }
}
