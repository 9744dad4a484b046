/**
 * Live pushes in one API process: who watches which script, and the tail of each chain's change feed.
 *
 * Every process tails the feed on its own (no messages between workers): while anyone listens, a timer
 * reads the feed's bounds every `pollMs` (one primary-key read), and the rows after its cursor name the
 * scripts that changed. Where the engine reports its writes (FeedReader.watch: SQLite's WAL file), a
 * write also has the feed read a few milliseconds later, without waiting for the timer. Only watches of
 * those scripts are read again, all in one snapshot through the door's read (the HTTP door's: the GET
 * routes' read path, src/api/live/summaries.ts),
 * and a summary is pushed only when its amounts differ from the last one that watch was sent. A feed
 * that went backwards (index replaced), pruned past the cursor, a row that lists no scripts, a tip that
 * moved without a block row (a bootstrap), or a read that failed all re-read every watch of the chain
 * instead. Nothing is read or timed while nobody listens.
 *
 * Reads are Promises (the reader port): a chain's polls, and the first reads of new subscribers
 * (attach), run one after another on that chain's queue, so two polls never read the feed at once, a
 * cursor only moves forward, and pushes go out in feed order.
 */
import { inOrder, type InOrder } from '../in-order.js';
import { CHAIN_CODES, type ChainCode } from '../chain/params.js';
import type { Logger } from '../logger.js';
import type { ChainHandle, FeedSource, SummarySource } from './chain-handle.js';
import { feedSince } from './feed-since.js';
import type { ChangeListener, FeedChange, Tip, TipListener } from './feed-change.js';

/** Feed rows read per query while catching up. */
const PAGE = 500;

/** What a subscriber watches: some scripts of one chain (keys as latin1 strings of their 16 bytes). */
export interface Watched {
  readonly chain: ChainCode;
  readonly keys: readonly string[];
}

/** What is pushed to a subscriber; an equal fingerprint is not pushed again. */
export interface Pushed {
  readonly fingerprint: string;
}

export interface Subscriber<Watch extends Watched, Summary extends Pushed> {
  readonly watch: Watch;
  /** Fingerprint of the last summary pushed; null before the first. */
  last: string | null;
  /** Sends a summary that changed; `seq` is the feed position it is true at (SSE's id). */
  push(summary: Summary, seq: number): void;
  /** Ends the subscriber's stream (the process is stopping). */
  close(): void;
}

export interface LiveSettings {
  /** How often the change feed is read while anyone listens. */
  readonly pollMs: number;
}

interface ChainTail<Watch extends Watched, Summary extends Pushed> {
  /** Feed seq read up to; null until the first listener arrives. */
  cursor: number | null;
  /** `height:hash` of the tip last seen; undefined until first read. */
  tip: string | null | undefined;
  /** A read failed: re-read every watch at the next poll. */
  retryAll: boolean;
  readonly watchers: Map<string, Set<Subscriber<Watch, Summary>>>;
  /** Listeners of every change of the chain, whoever watches which script (Electrum subscriptions). */
  readonly changeListeners: Set<ChangeListener>;
  /** Polls and attaches, one at a time in the order queued (src/in-order.ts). */
  readonly queued: InOrder;
  /** A timer's poll is queued or running: a tick meanwhile adds none (a slow read must not pile polls up). */
  polling: boolean;
  /** Bumped when the last listener leaves: a poll begun before then must not set the cursor the next listener starts from. */
  epoch: number;
  /** Stops the feed's watch (FeedReader.watch), while one is held. */
  unwatch: (() => void) | null;
  /** A poll the watch asked for, due shortly. */
  wakeTimer: NodeJS.Timeout | null;
  /** The watch reported a write while a poll ran: poll again after it. */
  again: boolean;
}

/**
 * From a write the feed's watch reports to the poll it asks for: the WAL write of a commit comes just
 * before SQLite makes it visible to readers, and one commit is several writes, so one poll shortly after
 * serves them all (another follows a poll that a write overlapped).
 */
const WAKE_DELAY_MS = 5;

/**
 * The hub of one process, whatever a door pushes: a door's subclass says how its watches are read
 * (`read`), every poll of the hub uses that one read.
 */
export abstract class FeedHub<Watch extends Watched, Summary extends Pushed> {
  private readonly tails = new Map<ChainCode, ChainTail<Watch, Summary>>();
  private readonly tipListeners = new Set<TipListener>();
  private readonly closers = new Set<() => void>();
  private readonly owners = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly chains: ReadonlyMap<ChainCode, ChainHandle>,
    private readonly settings: LiveSettings,
    private readonly log: Logger,
  ) {
    for (const chain of CHAIN_CODES) this.tails.set(chain, idleTail());
  }

  /** The watches' current summaries, in their order, from one snapshot; rejects when the chain cannot answer. */
  protected abstract read(chain: ChainCode, watches: readonly Watch[]): Promise<Summary[]>;

  /**
   * Runs `fn` with the chain's tail started and no poll running, and passes it the tail's position:
   * anything committed after it will be pushed. What `fn` reads (current()) and the subscribers it adds
   * before it settles see that one position, so no change falls between a first summary and the pushes
   * after it, and no push overtakes a first summary `fn` sends.
   */
  attach<T>(chain: ChainCode, fn: (seq: number) => Promise<T>): Promise<T> {
    const tail = this.tails.get(chain)!;
    return tail.queued(async () => {
      if (tail.cursor === null) await this.poll(chain, tail);
      return fn(tail.cursor ?? 0);
    });
  }

  /** Watches every script of the subscriber (a wallet's many): a change to any of them re-reads it. */
  add(sub: Subscriber<Watch, Summary>): void {
    const tail = this.tails.get(sub.watch.chain)!;
    for (const key of sub.watch.keys) {
      let set = tail.watchers.get(key);
      if (!set) tail.watchers.set(key, (set = new Set()));
      set.add(sub);
    }
    this.arm();
  }

  remove(sub: Subscriber<Watch, Summary>): void {
    const tail = this.tails.get(sub.watch.chain)!;
    for (const key of sub.watch.keys) {
      const set = tail.watchers.get(key);
      if (set?.delete(sub) && set.size === 0) tail.watchers.delete(key);
    }
    this.arm();
  }

  onTip(listener: TipListener): () => void {
    this.tipListeners.add(listener);
    this.arm();
    return () => {
      this.tipListeners.delete(listener);
      this.arm();
    };
  }

  /**
   * Tells `listener` of every change to the chain's scripts from the next poll on, while registered; it
   * keeps the feed tailed as a watch does. Register it inside attach() to miss nothing after a first read.
   */
  onChanges(chain: ChainCode, listener: ChangeListener): () => void {
    const tail = this.tails.get(chain)!;
    tail.changeListeners.add(listener);
    this.arm();
    return () => {
      tail.changeListeners.delete(listener);
      this.arm();
    };
  }

  /** Calls `fn` when the hub closes (the process is stopping): streams that only listen to tips end then. */
  onClose(fn: () => void): () => void {
    this.closers.add(fn);
    return () => this.closers.delete(fn);
  }

  /** Counts `n` more watches against `owner` (a key id or client network); false, and nothing counted, past `cap`. */
  reserve(owner: string, n: number, cap: number): boolean {
    const held = this.owners.get(owner) ?? 0;
    if (held + n > cap) return false;
    this.owners.set(owner, held + n);
    return true;
  }

  release(owner: string, n: number): void {
    const left = (this.owners.get(owner) ?? 0) - n;
    if (left > 0) this.owners.set(owner, left);
    else this.owners.delete(owner);
  }

  /** Whether `key` may have changed after feed position `seq` (SSE resume); true when the feed cannot tell. */
  async changedSince(chain: ChainCode, seq: number, key: string): Promise<boolean> {
    const feed = this.feedOf(chain);
    const since = feed && (await feedSince(feed, seq, Buffer.from(key, 'latin1')));
    return !since || since.named || since.rewound;
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.tipListeners.clear();
    for (const fn of [...this.closers]) fn();
    this.closers.clear();
    for (const tail of this.tails.values()) {
      this.unwatch(tail);
      const subs = new Set([...tail.watchers.values()].flatMap((set) => [...set]));
      tail.watchers.clear();
      for (const sub of subs) sub.close();
    }
  }

  /** The timer runs only while someone listens. */
  private arm(): void {
    const listening = this.tipListeners.size > 0 || [...this.tails.values()].some((t) => t.watchers.size > 0 || t.changeListeners.size > 0);
    if (listening && this.timer === null) {
      this.timer = setInterval(() => {
        for (const chain of CHAIN_CODES) this.tick(chain);
      }, this.settings.pollMs);
      this.timer.unref();
      for (const [chain, tail] of this.tails) this.watchFeed(chain, tail);
    } else if (!listening && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
      // Nobody listens: the next listener starts from the feed's head, not from here.
      for (const tail of this.tails.values()) {
        tail.cursor = null;
        tail.epoch += 1;
        this.unwatch(tail);
      }
    }
  }

  private tick(chain: ChainCode): void {
    const tail = this.tails.get(chain)!;
    this.watchFeed(chain, tail);
    if (tail.polling) return;
    tail.polling = true;
    void tail
      .queued(() => this.poll(chain, tail))
      .finally(() => {
        tail.polling = false;
        if (tail.again) {
          tail.again = false;
          this.wake(chain, tail);
        }
      });
  }

  /** The feed's watch saw a write: a poll shortly, without waiting for the timer (while anyone listens). */
  private wake(chain: ChainCode, tail: ChainTail<Watch, Summary>): void {
    if (this.timer === null || tail.wakeTimer !== null) return;
    tail.wakeTimer = setTimeout(() => {
      tail.wakeTimer = null;
      if (tail.polling) tail.again = true;
      else this.tick(chain);
    }, WAKE_DELAY_MS);
    tail.wakeTimer.unref();
  }

  /** Holds the feed's watch while polling is on; asked again at each poll while there is none (the index may only now exist). */
  private watchFeed(chain: ChainCode, tail: ChainTail<Watch, Summary>): void {
    tail.unwatch ??= this.feedOf(chain)?.watch?.(() => this.wake(chain, tail)) ?? null;
  }

  private unwatch(tail: ChainTail<Watch, Summary>): void {
    tail.unwatch?.();
    tail.unwatch = null;
    if (tail.wakeTimer !== null) clearTimeout(tail.wakeTimer);
    tail.wakeTimer = null;
  }

  private feedOf(chain: ChainCode): FeedSource | null {
    return sourceOf(this.chains, chain)?.feed ?? null;
  }

  /** One read of the feed and the pushes it calls for; never rejects (a failure re-reads every watch next time). */
  private async poll(chain: ChainCode, tail: ChainTail<Watch, Summary>): Promise<void> {
    const source = sourceOf(this.chains, chain);
    if (!source?.feed) return;
    const { feed } = source;
    const epoch = tail.epoch;
    try {
      const [status, bounds] = await Promise.all([source.status(), feed.bounds()]);
      const head = bounds?.last ?? 0;
      let all = tail.retryAll;
      let moved = false;
      let cursor = tail.cursor;
      const touched = new Set<string>();
      if (cursor === null) {
        cursor = head;
      } else if (head < cursor || (bounds !== null && bounds.first > cursor + 1)) {
        all = true;
        cursor = head;
      } else {
        while (cursor < head) {
          const rows = await feed.since(cursor, PAGE);
          if (rows.length === 0) break;
          for (const row of rows) {
            if (row.kind !== 'mempool') moved = true;
            if (row.scripts === null) all = true;
            else for (const k of row.scripts) touched.add(k.toString('latin1'));
            cursor = row.seq;
          }
        }
      }
      // The last listener left while this read: the next one starts from the head it reads then.
      if (epoch !== tail.epoch || this.stopped) return;
      tail.cursor = cursor;
      const tipKey = status ? `${status.tipHeight}:${status.tipHash}` : null;
      const tipMoved = tail.tip !== undefined && tipKey !== tail.tip;
      if (tipMoved && !moved) all = true;
      const due = all ? [...tail.watchers.values()] : [...touched].flatMap((k) => (tail.watchers.has(k) ? [tail.watchers.get(k)!] : []));
      // A wallet watches many scripts: read and push it once however many of them a row touched.
      const subs = [...new Set(due.flatMap((set) => [...set]))];
      if (subs.length > 0) await this.pushChanged(chain, tail, subs, cursor);
      if (all || touched.size > 0) {
        const change: FeedChange = { all, touched };
        for (const listener of [...tail.changeListeners]) await listener(change);
      }
      // Summaries first: they are what clients wait for, and a tip goes to every connection of the chain.
      // A failed read above leaves the tip unseen, so the next poll re-reads everything and sends it then.
      if (tipMoved && status && !this.stopped) this.emitTip({ chain, blockHeight: status.tipHeight, blockHash: status.tipHash });
      tail.tip = tipKey;
      tail.retryAll = false;
    } catch (err) {
      tail.retryAll = true;
      this.log.debug({ chain, err: err instanceof Error ? err.message : String(err) }, 'live: feed not readable now');
    }
  }

  private async pushChanged(
    chain: ChainCode,
    tail: ChainTail<Watch, Summary>,
    subs: readonly Subscriber<Watch, Summary>[],
    seq: number,
  ): Promise<void> {
    const summaries = await this.read(
      chain,
      subs.map((s) => s.watch),
    );
    subs.forEach((sub, i) => {
      // Gone while the summaries were read (unsubscribed, disconnected, the hub closed): nothing to send it.
      if (this.stopped || !tail.watchers.get(sub.watch.keys[0]!)?.has(sub)) return;
      const summary = summaries[i]!;
      if (summary.fingerprint === sub.last) return;
      sub.last = summary.fingerprint;
      sub.push(summary, seq);
    });
  }

  private emitTip(tip: Tip): void {
    for (const listener of this.tipListeners) listener(tip);
  }
}

function idleTail<Watch extends Watched, Summary extends Pushed>(): ChainTail<Watch, Summary> {
  return {
    cursor: null,
    tip: undefined,
    retryAll: false,
    watchers: new Map(),
    changeListeners: new Set(),
    queued: inOrder(),
    polling: false,
    epoch: 0,
    unwatch: null,
    wakeTimer: null,
    again: false,
  };
}

function sourceOf(chains: ReadonlyMap<ChainCode, ChainHandle>, chain: ChainCode): SummarySource | null {
  const acquired = chains.get(chain)?.acquire();
  return acquired?.ok ? acquired.source : null;
}
