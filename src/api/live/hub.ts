/**
 * The HTTP door's live hub (SSE and WebSocket): the process's feed hub (src/serving/live-hub.ts) reading
 * its watches through the GET routes' read path (summaries.ts), so a push is the body a GET would answer.
 */
import type { ChainCode } from '../../chain/params.js';
import type { Logger } from '../../logger.js';
import { FeedHub, type LiveSettings, type Subscriber as FeedSubscriber } from '../../serving/live-hub.js';
import type { AppDeps } from '../deps.js';
import { DerivationCache } from '../derivation-cache.js';
import { readSummaries, type Summary, type Watch } from './summaries.js';

export type Subscriber = FeedSubscriber<Watch, Summary>;

export class LiveHub extends FeedHub<Watch, Summary> {
  /** Derived scripts of subscribed wallets: the xpub route's cache when the app has one, so neither derives twice. */
  readonly wallets: DerivationCache;

  constructor(
    private readonly deps: AppDeps,
    settings: LiveSettings,
    log: Logger,
  ) {
    super(deps.chains, settings, log);
    this.wallets = deps.derivations ?? new DerivationCache();
  }

  /** Current summaries for new watches (one read); rejects with the GET route's ServingError when the chain cannot answer. */
  current(chain: ChainCode, watches: readonly Watch[]): Promise<Summary[]> {
    return readSummaries(this.deps, chain, watches);
  }

  protected read(chain: ChainCode, watches: readonly Watch[]): Promise<Summary[]> {
    return readSummaries(this.deps, chain, watches);
  }
}
