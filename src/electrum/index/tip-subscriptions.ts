/**
 * blockchain.headers.subscribe of one chain: the sessions that subscribed, and one notification to each
 * on every new tip (a reorg's too), `[{height, hex}]`. The header is read once per tip for all of them.
 */
import type { ChainCode } from '../../chain/params.js';
import type { Logger } from '../../logger.js';
import type { Tip } from '../../serving/feed-change.js';
import type { ElectrumSession } from '../methods/registry.js';
import type { IndexAccess } from './access.js';
import type { ChangeFeed } from './change-feed.js';
import { tipHeader, type TipHeader } from './headers.js';

export const HEADERS_SUBSCRIBE = 'blockchain.headers.subscribe';

export class TipSubscriptions {
  private readonly sessions = new Set<ElectrumSession>();
  private stop: (() => void) | null = null;
  /** The tip last sent, `height:hex`: a poll that sees the same tip again sends nothing. */
  private sent: string | null = null;
  /** Tips seen: a header read for an older tip that finishes after a newer one's is not sent. */
  private seen = 0;

  constructor(
    private readonly chain: ChainCode,
    private readonly feed: ChangeFeed,
    private readonly index: IndexAccess,
    private readonly log: Logger,
  ) {}

  /** Subscribes the session (again: a no-op) and answers the tip now. */
  async subscribe(session: ElectrumSession): Promise<TipHeader> {
    if (!this.sessions.has(session)) {
      this.sessions.add(session);
      session.onClose(() => this.drop(session));
      this.stop ??= this.feed.onTip((tip) => void this.onTip(tip));
    }
    return tipHeader(this.index());
  }

  get size(): number {
    return this.sessions.size;
  }

  private drop(session: ElectrumSession): void {
    this.sessions.delete(session);
    if (this.sessions.size === 0 && this.stop !== null) {
      this.stop();
      this.stop = null;
      this.sent = null;
    }
  }

  private async onTip(tip: Tip): Promise<void> {
    if (tip.chain !== this.chain || this.sessions.size === 0) return;
    const mine = ++this.seen;
    let header: TipHeader;
    try {
      header = await tipHeader(this.index());
    } catch (err) {
      this.log.debug({ err: err instanceof Error ? err.message : String(err) }, 'electrum: the new tip header cannot be read now');
      return;
    }
    const key = `${header.height}:${header.hex}`;
    if (mine !== this.seen || key === this.sent) return;
    this.sent = key;
    const params = [header];
    for (const session of this.sessions) session.notify(HEADERS_SUBSCRIBE, params);
  }
}
