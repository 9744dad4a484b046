/**
 * blockchain.scripthash.subscribe of one chain, for every session of the process: which session holds
 * which scripthash, with the status that session was last told. Each poll of the change feed (hub.ts)
 * names the scripts a commit touched (every one for a row without scripts); the status of each touched
 * script that someone holds is read once for the whole process, then sent to the holders it differs
 * for. A poll covers whatever committed since the last, so a session gets at most one notification per
 * scripthash per poll, `[scripthash, status]`.
 */
import type { ChainCode } from '../../chain/params.js';
import type { Logger } from '../../logger.js';
import type { FeedChange } from '../../serving/feed-change.js';
import type { ElectrumSession } from '../methods/registry.js';
import { RpcError } from '../wire.js';
import type { IndexAccess } from './access.js';
import type { ChangeFeed } from './change-feed.js';
import type { ScriptHistories } from './script-histories.js';

export const SCRIPTHASH_SUBSCRIBE = 'blockchain.scripthash.subscribe';

/** Statuses read at once after a commit: enough to overlap reads, few enough not to starve requests. */
const READS_AT_ONCE = 16;

interface Held {
  readonly hash: string;
  readonly key: Buffer;
  /** Each holder and the status it was last told (null: empty history). */
  readonly sessions: Map<ElectrumSession, string | null>;
}

export class ScripthashSubscriptions {
  /** By script key as latin1 (the feed's touched keys are too). */
  private readonly held = new Map<string, Held>();
  private readonly bySession = new Map<ElectrumSession, Set<string>>();
  private stop: (() => void) | null = null;

  constructor(
    private readonly chain: ChainCode,
    private readonly feed: ChangeFeed,
    private readonly index: IndexAccess,
    private readonly histories: ScriptHistories,
    /** electrum.subscriptionsPerConnection */
    private readonly perConnection: number,
    private readonly log: Logger,
  ) {}

  /** Scripthashes held over all sessions (each once). */
  get size(): number {
    return this.held.size;
  }

  /**
   * Subscribes the session to the script and answers its status now. Read with the feed tailed and no
   * poll running (hub attach), so every commit after this status is told to the session.
   */
  subscribe(session: ElectrumSession, hash: string, key: Buffer): Promise<{ status: string | null; length: number }> {
    return this.feed.attach(this.chain, async () => {
      const k = key.toString('latin1');
      const mine = this.bySession.get(session);
      if (!mine?.has(k) && (mine?.size ?? 0) >= this.perConnection) {
        throw new RpcError(
          'EXCESSIVE_RESOURCE_USAGE',
          `subscription limit reached: at most ${this.perConnection} scripthashes per connection (unsubscribe some first)`,
        );
      }
      const { status, length } = await this.histories(this.index(), key);
      this.add(session, hash, key, k, status);
      return { status, length };
    });
  }

  /** True when the session held the script. */
  unsubscribe(session: ElectrumSession, key: Buffer): boolean {
    const k = key.toString('latin1');
    const mine = this.bySession.get(session);
    if (!mine?.delete(k)) return false;
    this.release(session, k);
    return true;
  }

  private add(session: ElectrumSession, hash: string, key: Buffer, k: string, status: string | null): void {
    let mine = this.bySession.get(session);
    const first = mine === undefined;
    if (mine === undefined) this.bySession.set(session, (mine = new Set()));
    mine.add(k);
    let held = this.held.get(k);
    if (held === undefined) this.held.set(k, (held = { hash, key, sessions: new Map() }));
    held.sessions.set(session, status);
    this.stop ??= this.feed.onChanges(this.chain, (change) => this.onChange(change));
    // Last: a session that closed while its status was read is dropped at once, with what was just added.
    if (first) session.onClose(() => this.dropSession(session));
  }

  private release(session: ElectrumSession, k: string): void {
    const held = this.held.get(k);
    if (held?.sessions.delete(session) && held.sessions.size === 0) this.held.delete(k);
    if (this.held.size === 0 && this.stop !== null) {
      this.stop();
      this.stop = null;
    }
  }

  private dropSession(session: ElectrumSession): void {
    const mine = this.bySession.get(session);
    if (mine === undefined) return;
    this.bySession.delete(session);
    for (const k of mine) this.release(session, k);
  }

  /** Never rejects: a status that cannot be read now is left as the holders know it. */
  private async onChange(change: FeedChange): Promise<void> {
    const due: Held[] = [];
    if (change.all) due.push(...this.held.values());
    else
      for (const k of change.touched) {
        const held = this.held.get(k);
        if (held !== undefined) due.push(held);
      }
    for (let i = 0; i < due.length; i += READS_AT_ONCE) {
      await Promise.all(due.slice(i, i + READS_AT_ONCE).map((held) => this.refresh(held)));
    }
  }

  private async refresh(held: Held): Promise<void> {
    let status: string | null;
    try {
      ({ status } = await this.histories(this.index(), held.key));
    } catch (err) {
      this.log.debug(
        { scripthash: held.hash, err: err instanceof Error ? err.message : String(err) },
        'electrum: a status cannot be read now',
      );
      return;
    }
    // One params array for every holder: nothing per notification grows with the history.
    let params: readonly unknown[] | undefined;
    for (const [session, last] of held.sessions) {
      if (last === status) continue;
      held.sessions.set(session, status);
      session.notify(SCRIPTHASH_SUBSCRIBE, (params ??= [held.hash, status]));
    }
  }
}
