/**
 * blockchain.outpoint.subscribe of one chain, for every session of the process (protocol 1.6): which
 * session holds which outpoint, with the status it was last told, and a notification
 * `[[tx_hash, txout_idx], status]` whenever that status changes.
 *
 * A status is read again only when something can have changed it:
 *   - a poll of the change feed touched the script the status watches (outpoint-status.ts: a funding or
 *     spending transaction appeared, was mined, replaced or evicted), or any script (a reorg);
 *   - a new tip, for a status with a mempool height (-1 turns 0 when a parent is mined) and for one whose
 *     funding transaction is unknown: that costs one index read per outpoint, never a node call, so a
 *     funding transaction seen first in the mempool is told then only when the client's spk_hint named
 *     its script, and otherwise once it is mined.
 * The protocol says the server must keep a subscription to an outpoint that does not exist yet.
 */
import type { ChainCode } from '../../chain/params.js';
import { toDisplayHex } from '../../chain/hash.js';
import type { Logger } from '../../logger.js';
import type { FeedChange, Tip } from '../../serving/feed-change.js';
import type { ElectrumSession } from '../methods/registry.js';
import { RpcError } from '../wire.js';
import type { ChangeFeed } from './change-feed.js';
import { fundingMined, readOutpoint, type OutpointSource, type OutpointStatus } from './outpoint-status.js';

export const OUTPOINT_SUBSCRIBE = 'blockchain.outpoint.subscribe';

/** Statuses read at once after a change: enough to overlap reads, few enough not to starve requests. */
const READS_AT_ONCE = 16;

interface Held {
  readonly txid: Buffer;
  readonly vout: number;
  /** The notification's first parameter. */
  readonly outpoint: readonly [string, number];
  /** The script key (latin1) whose changes can change the status: the funding output's, else the hint's. */
  watch: string | null;
  /** The hint's script key, kept for a status that loses its funding transaction (a reorg). */
  readonly hint: string | null;
  funded: boolean;
  /** The status has a mempool height, which a new block can change without touching its script. */
  inMempool: boolean;
  /** Reads started: one that finishes after a later one's is not told. */
  reads: number;
  /** Each holder and the status (as JSON) it was last told. */
  readonly sessions: Map<ElectrumSession, string>;
}

const idOf = (txid: Buffer, vout: number): string => `${txid.toString('hex')}:${vout}`;

export class OutpointSubscriptions {
  private readonly held = new Map<string, Held>();
  private readonly bySession = new Map<ElectrumSession, Set<string>>();
  private stops: (() => void)[] = [];

  constructor(
    private readonly chain: ChainCode,
    private readonly feed: ChangeFeed,
    private readonly source: OutpointSource,
    /** electrum.subscriptionsPerConnection, counted apart from the scripthashes */
    private readonly perConnection: number,
    private readonly log: Logger,
  ) {}

  /** Outpoints held over all sessions (each once). */
  get size(): number {
    return this.held.size;
  }

  /**
   * Subscribes the session and answers the status now, read with the feed tailed and no poll running
   * (hub attach), so every change after it is told. `hint`: the script key of the client's spk_hint.
   */
  subscribe(session: ElectrumSession, txid: Buffer, vout: number, hint: Buffer | null): Promise<OutpointStatus> {
    return this.feed.attach(this.chain, async () => {
      const id = idOf(txid, vout);
      const mine = this.bySession.get(session);
      if (!mine?.has(id) && (mine?.size ?? 0) >= this.perConnection) {
        throw new RpcError(
          'EXCESSIVE_RESOURCE_USAGE',
          `subscription limit reached: at most ${this.perConnection} outpoints per connection (unsubscribe some first)`,
        );
      }
      let held = this.held.get(id);
      const read = held === undefined ? null : ++held.reads;
      const { status, key } = await readOutpoint(this.source, txid, vout);
      held ??= this.hold(id, txid, vout, hint);
      if (read === null || read === held.reads) this.settle(held, status, key);
      this.add(session, id, held, JSON.stringify(status));
      return status;
    });
  }

  /** True when the session held the outpoint. */
  unsubscribe(session: ElectrumSession, txid: Buffer, vout: number): boolean {
    const id = idOf(txid, vout);
    if (!this.bySession.get(session)?.delete(id)) return false;
    this.release(session, id);
    return true;
  }

  private hold(id: string, txid: Buffer, vout: number, hint: Buffer | null): Held {
    const k = hint?.toString('latin1') ?? null;
    const held: Held = {
      txid,
      vout,
      outpoint: [toDisplayHex(txid), vout],
      watch: k,
      hint: k,
      funded: false,
      inMempool: false,
      reads: 0,
      sessions: new Map(),
    };
    this.held.set(id, held);
    return held;
  }

  /** Records what a read found: what to watch from now on. */
  private settle(held: Held, status: OutpointStatus, key: Buffer | null): void {
    held.funded = status.height !== undefined;
    held.watch = key?.toString('latin1') ?? held.hint;
    held.inMempool = (status.height ?? 1) <= 0 || (status.spender_height ?? 1) <= 0;
  }

  private add(session: ElectrumSession, id: string, held: Held, told: string): void {
    let mine = this.bySession.get(session);
    const first = mine === undefined;
    if (mine === undefined) this.bySession.set(session, (mine = new Set()));
    mine.add(id);
    held.sessions.set(session, told);
    if (this.stops.length === 0) {
      this.stops = [this.feed.onChanges(this.chain, (change) => this.onChange(change)), this.feed.onTip((tip) => void this.onTip(tip))];
    }
    // Last: a session that closed while its status was read is dropped at once, with what was just added.
    if (first) session.onClose(() => this.dropSession(session));
  }

  private release(session: ElectrumSession, id: string): void {
    const held = this.held.get(id);
    if (held?.sessions.delete(session) && held.sessions.size === 0) this.held.delete(id);
    if (this.held.size === 0) {
      for (const stop of this.stops) stop();
      this.stops = [];
    }
  }

  private dropSession(session: ElectrumSession): void {
    const mine = this.bySession.get(session);
    if (mine === undefined) return;
    this.bySession.delete(session);
    for (const id of mine) this.release(session, id);
  }

  private onChange(change: FeedChange): Promise<void> {
    const due = [...this.held.values()].filter((h) => change.all || (h.watch !== null && change.touched.has(h.watch)));
    return this.refreshAll(due);
  }

  private async onTip(tip: Tip): Promise<void> {
    if (tip.chain !== this.chain) return;
    const due: Held[] = [];
    const unfunded: Held[] = [];
    for (const held of this.held.values()) {
      if (held.inMempool) due.push(held);
      else if (!held.funded) unfunded.push(held);
    }
    for (let i = 0; i < unfunded.length; i += READS_AT_ONCE) {
      const mined = await Promise.all(
        unfunded.slice(i, i + READS_AT_ONCE).map((h) => fundingMined(this.source, h.txid).catch(() => false)),
      );
      due.push(...unfunded.slice(i, i + READS_AT_ONCE).filter((_, j) => mined[j]));
    }
    await this.refreshAll(due);
  }

  /** Never rejects: a status that cannot be read now is left as the holders know it. */
  private async refreshAll(due: readonly Held[]): Promise<void> {
    for (let i = 0; i < due.length; i += READS_AT_ONCE) {
      await Promise.all(due.slice(i, i + READS_AT_ONCE).map((held) => this.refresh(held)));
    }
  }

  private async refresh(held: Held): Promise<void> {
    const read = ++held.reads;
    let got: Awaited<ReturnType<typeof readOutpoint>>;
    try {
      got = await readOutpoint(this.source, held.txid, held.vout);
    } catch (err) {
      this.log.debug(
        { outpoint: held.outpoint.join(':'), err: err instanceof Error ? err.message : String(err) },
        'electrum: an outpoint status cannot be read now',
      );
      return;
    }
    if (read !== held.reads) return;
    this.settle(held, got.status, got.key);
    const told = JSON.stringify(got.status);
    let params: readonly unknown[] | undefined;
    for (const [session, last] of held.sessions) {
      if (last === told) continue;
      held.sessions.set(session, told);
      session.notify(OUTPOINT_SUBSCRIBE, (params ??= [held.outpoint, got.status]));
    }
  }
}
