/**
 * One WebSocket client of /api/v1/ws (ws-server.ts accepts it): its caller, its watches, its timers.
 *
 * Ops: `auth` {key}; `subscribe` and `unsubscribe` {id, chain, addresses, scripthashes, xpubs, mempool}
 * (ws-items.ts reads the lists), handled one at a time in the order they arrive. Each op gets one
 * reply {id, status: "success"|"fail", data}; a subscribe whose items are partly bad subscribes the
 * good ones and answers "success" with `failed`, a code per bad item; it fails only when nothing was
 * subscribed. A subscribe is checked against the caps and priced (its wallets' derivation work, on the
 * caller's token bucket as the xpub route charges it) before anything is derived. Then one {event: "summary", data} per
 * subscribed item at once (the GET route's body data), again whenever that summary changes, and
 * {event: "tip", data: {chain, blockHeight, blockHash}} on every new tip of a chain the client watches.
 */
import { stringifyWithCoins } from '../../chain/amount.js';
import type { RawData, WebSocket } from 'ws';
import type { ChainCode } from '../../chain/params.js';
import { ServingError } from '../../serving/errors.js';
import { parseChain } from '../chain-param.js';
import type { LiveHub, Subscriber } from './hub.js';
import type { Tip } from '../../serving/feed-change.js';
import { subscriptionOwner, type LiveLimits } from './limits.js';
import type { Summary, Watch } from './summaries.js';
import { failEntry, readItems, type Item, type Items } from './ws-items.js';
import { walletTokens } from '../wallet-request.js';
import { holdRefill, type Overdrawn } from '../middleware/rate-limit.js';
import { checkKey, type Caller, type KeyCheckDeps } from './ws-auth.js';
import { CLOSE, failData, keepAlive, parseMessage, rawLength } from './ws-protocol.js';

export type { Caller };

export interface ConnectionOptions extends KeyCheckDeps {
  readonly hub: LiveHub;
  readonly limits: LiveLimits;
  readonly ip: string | undefined;
  /** Authenticated by the upgrade's header; null: not yet (auth message, or anonymous). */
  readonly caller: Caller | null;
  readonly pingMs: number;
}

type Op = Record<string, unknown>;

/**
 * Bytes of ops a client may send ahead of their replies (a wallet's derivation holds the ones behind
 * it): what a connection can make the process hold, whatever its ops are.
 */
const MAX_WAITING_BYTES = 1024 * 1024;

export class LiveConnection {
  private caller: Caller | null;
  private readonly subs = new Map<string, Subscriber>();
  private readonly chains = new Set<ChainCode>();
  private owner: string;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly stopTips: () => void;
  /** The op being handled: the next waits for it, so a reply never overtakes an earlier one. */
  private ops: Promise<void> = Promise.resolve();
  /** Bytes of ops received and not yet answered. */
  private waiting = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: ConnectionOptions,
  ) {
    const anonymous = opts.deps.settings.allowAnonymous ? { tier: 'default' as const, keyId: null } : null;
    this.caller = opts.caller ?? anonymous;
    this.owner = this.ownerOf(this.caller);
    if (opts.caller === null) {
      const t = setTimeout(() => {
        if (this.caller === null) this.close(CLOSE.authTimeout, 'no auth message in time');
      }, opts.limits.authTimeoutMs);
      t.unref();
      this.timers.push(t);
    }
    this.timers.push(keepAlive(ws, opts.pingMs));
    this.stopTips = opts.hub.onTip((tip: Tip) => {
      if (this.chains.has(tip.chain)) this.send({ event: 'tip', data: tip });
    });
    ws.on('message', (data: RawData) => {
      const bytes = rawLength(data);
      this.waiting += bytes;
      if (this.waiting > MAX_WAITING_BYTES) return this.close(CLOSE.throttled, 'too many ops sent ahead of their replies');
      this.ops = this.ops
        .then(() => this.onMessage(data))
        .catch((err: unknown) => {
          opts.deps.logger.error({ err, keyId: this.caller?.keyId ?? null }, 'live: an op failed');
          this.close(CLOSE.internal, 'internal error');
        })
        .finally(() => (this.waiting -= bytes));
    });
    ws.once('close', () => this.cleanup());
    ws.on('error', () => ws.terminate());
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    // The peer may never read the close frame (a slow consumer): the log says why it was cut.
    if (code !== CLOSE.goingAway)
      this.opts.deps.logger.info({ keyId: this.caller?.keyId ?? null, code, reason }, 'live: connection closed');
    this.ws.close(code, reason);
    // A peer that reads nothing never sees the close frame: do not wait for it.
    const t = setTimeout(() => this.ws.terminate(), 1000);
    t.unref();
    this.cleanup();
  }

  private ownerOf(caller: Caller | null): string {
    return subscriptionOwner(caller?.keyId ?? null, this.opts.ip);
  }

  private send(message: object): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > this.opts.limits.maxBufferedBytes) {
      this.close(CLOSE.slowConsumer, 'slow consumer: messages are not being read');
      return;
    }
    // Coins as number literals with 8 decimals, as the GET routes write them (respond.ts).
    this.ws.send(stringifyWithCoins(message));
  }

  private reply(id: unknown, status: 'success' | 'fail', data: object): void {
    this.send({ id: id ?? null, status, data });
  }

  private async onMessage(raw: RawData): Promise<void> {
    const op = parseMessage(raw);
    if (op === null) return this.reply(null, 'fail', failData(new ServingError('BAD_REQUEST', 'messages are JSON objects with an op')));
    try {
      if (op.op === 'auth') return await this.auth(op);
      if (this.caller === null) throw new ServingError('MISSING_API_KEY', 'send {"op":"auth","key":…} first');
      if (op.op === 'subscribe') return await this.subscribe(op);
      if (op.op === 'unsubscribe') return this.unsubscribe(op);
      throw new ServingError('BAD_REQUEST', 'op must be auth, subscribe or unsubscribe');
    } catch (err) {
      if (!(err instanceof ServingError)) throw err;
      this.reply(op.id, 'fail', failData(err));
    }
  }

  private async auth(op: Op): Promise<void> {
    if (typeof op.key !== 'string' || op.key === '') throw new ServingError('MISSING_API_KEY', 'auth needs a key');
    if (this.subs.size > 0) throw new ServingError('BAD_REQUEST', 'authenticate before subscribing');
    try {
      this.caller = await checkKey(this.opts, op.key, this.opts.ip);
    } catch (err) {
      if (err instanceof ServingError) {
        this.reply(op.id, 'fail', failData(err));
        this.close(err.code === 'RATE_LIMITED' ? CLOSE.throttled : CLOSE.authFailed, err.code);
        return;
      }
      throw err;
    }
    this.owner = this.ownerOf(this.caller);
    this.reply(op.id, 'success', { tier: this.caller.tier });
  }

  private options(op: Op): { chain: ChainCode; mempool: boolean } {
    const chain = parseChain(typeof op.chain === 'string' ? op.chain : '');
    if (op.mempool !== undefined && typeof op.mempool !== 'boolean') throw new ServingError('BAD_REQUEST', 'mempool must be true or false');
    return { chain, mempool: op.mempool === true };
  }

  private items(op: Op, chain: ChainCode, mempool: boolean): Items {
    const handle = this.opts.deps.chains.get(chain);
    if (!handle) throw new ServingError('CHAIN_UNAVAILABLE', `${chain} is not served here`);
    return readItems(op, chain, handle, mempool, this.opts.deps.settings.xpubMaxRange, this.opts.hub.wallets);
  }

  /** Subscriptions held, as the caps count them (a wallet counts by its scripts, watch.ts). */
  private held(subs: Iterable<Subscriber>): number {
    let n = 0;
    for (const sub of subs) n += sub.watch.cost;
    return n;
  }

  private async subscribe(op: Op): Promise<void> {
    const { chain, mempool } = this.options(op);
    const { good, bad } = this.items(op, chain, mempool);
    const caller = this.caller!;
    const fresh = new Map(good.filter((item) => !this.subs.has(item.id)).map((item) => [item.id, item]));
    const items = [...fresh.values()];
    // Everything that can refuse the op is asked before anything is derived: the caps, the queue, the price.
    const cost = items.reduce((n, item) => n + item.cost, 0);
    const perConnection = this.opts.limits.perConnection[caller.tier];
    if (this.held(this.subs.values()) + cost > perConnection) {
      throw new ServingError('TOO_MANY_SUBSCRIPTIONS', `at most ${perConnection} subscriptions per connection for the ${caller.tier} tier`);
    }
    for (const item of items) {
      const refusal = item.admit(this.owner);
      if (refusal) throw refusal;
    }
    if (!this.opts.hub.reserve(this.owner, cost, this.opts.limits.perKey[caller.tier])) {
      throw new ServingError(
        'TOO_MANY_SUBSCRIPTIONS',
        `at most ${this.opts.limits.perKey[caller.tier]} subscriptions per key for the ${caller.tier} tier`,
      );
    }
    let made: { item: Item; watch: Watch }[];
    try {
      const overdrawn = await this.charge(
        caller,
        items.reduce((n, item) => n + item.work, 0),
      );
      const started = performance.now();
      made = await this.make(items, bad);
      holdRefill(this.opts.limiter, overdrawn, (performance.now() - started) / 1000);
    } catch (err) {
      this.opts.hub.release(this.owner, cost);
      throw err;
    }
    const unused = cost - made.reduce((n, m) => n + m.item.cost, 0);
    this.opts.hub.release(this.owner, unused);
    if (this.closed) return this.opts.hub.release(this.owner, cost - unused);
    const subs = made.map(({ item, watch }) => ({
      id: item.id,
      sub: { watch, last: null, push: (s: Summary) => this.send({ event: 'summary', data: s.data }), close: () => undefined } as Subscriber,
    }));
    const answer = (summaries: readonly Summary[]): void => {
      for (const { id, sub } of subs) {
        this.subs.set(id, sub);
        this.opts.hub.add(sub);
      }
      this.chains.add(chain);
      const data = { chain, mempool, subscribed: subs.map((f, i) => nameOf(f.sub.watch, summaries[i]!)) };
      if (subs.length === 0 && bad.length > 0) this.reply(op.id, 'fail', { ...data, code: 'INVALID_ITEMS', items: bad });
      else this.reply(op.id, 'success', bad.length > 0 ? { ...data, failed: bad } : data);
      subs.forEach(({ sub }, i) => {
        sub.last = summaries[i]!.fingerprint;
        sub.push(summaries[i]!, 0);
      });
    };
    if (subs.length === 0) return answer([]);
    const reserved = cost - unused;
    try {
      // Read, watched, answered and first pushed with no poll of the chain between (hub.attach): no change
      // falls between a first summary and the pushes after it, and none overtakes it.
      await this.opts.hub.attach(chain, async () => {
        const summaries = await this.opts.hub.current(
          chain,
          subs.map((f) => f.sub.watch),
        );
        if (this.closed) return this.opts.hub.release(this.owner, reserved);
        answer(summaries);
      });
    } catch (err) {
      this.opts.hub.release(this.owner, reserved);
      throw err;
    }
  }

  /**
   * Takes the wallets' price from the caller's bucket, as the xpub route does (a full bucket may
   * overdraw); what an overdraw took, for holdRefill once the wallets are derived.
   */
  private async charge(caller: Caller, work: number): Promise<Overdrawn | undefined> {
    if (work === 0) return undefined;
    const tokens = walletTokens(work);
    const limits = this.opts.deps.settings.tiers[caller.tier];
    const decision = await this.opts.limiter.consume(this.owner, limits, tokens, 'overdraw');
    if (!decision.allowed) {
      this.opts.metrics.rateLimited.inc({ tier: caller.tier });
      throw new ServingError('RATE_LIMITED', `the wallets cost ${tokens} tokens; retry in ${decision.retryAfterSeconds} s`, {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
    return tokens > limits.burst ? { caller: this.owner, limits, tokens } : undefined;
  }

  /** The items' watches; an item that cannot be made joins `bad`. */
  private async make(items: readonly Item[], bad: object[]): Promise<{ item: Item; watch: Watch }[]> {
    const settled = await Promise.allSettled(items.map((item) => item.make(this.owner)));
    const made: { item: Item; watch: Watch }[] = [];
    settled.forEach((result, i) => {
      const item = items[i]!;
      if (result.status === 'fulfilled') made.push({ item, watch: result.value });
      else bad.push(failEntry(item.label, result.reason));
    });
    return made;
  }

  private unsubscribe(op: Op): void {
    const { chain, mempool } = this.options(op);
    // Bad items name nothing subscribed: nothing to remove, and no fail for them.
    const { good } = this.items(op, chain, mempool);
    let removed = 0;
    let released = 0;
    for (const item of good) {
      const sub = this.subs.get(item.id);
      if (!sub) continue;
      this.subs.delete(item.id);
      this.opts.hub.remove(sub);
      removed++;
      released += sub.watch.cost;
    }
    this.opts.hub.release(this.owner, released);
    this.reply(op.id, 'success', { chain, unsubscribed: removed });
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.stopTips();
    for (const sub of this.subs.values()) this.opts.hub.remove(sub);
    this.opts.hub.release(this.owner, this.held(this.subs.values()));
    this.subs.clear();
  }
}

/** How the subscribe reply lists a watch: the address as the GET route writes it, the scripthash, or the wallet's fingerprint. */
function nameOf(watch: Watch, summary: Summary): string {
  if (watch.kind === 'address') return (summary.data as { address: string }).address;
  return watch.kind === 'scripthash' ? watch.scripthash : watch.fingerprint;
}
