/**
 * What one chain's index-backed methods are built from: its index (the API's chain handle) and its
 * subscriptions, fed by the process's feed hub. One per chain per process, whatever its listeners (TCP,
 * TLS): a touched script's status is read once for every session of the process.
 */
import type { ChainHandle } from '../../serving/chain-handle.js';
import type { ChainCode } from '../../chain/params.js';
import type { Logger } from '../../logger.js';
import type { IndexMethodDeps } from '../methods/index-methods.js';
import { indexAccess } from './access.js';
import { CheckpointProofs } from './checkpoint.js';
import { HistoryCache } from './history-cache.js';
import { scriptHistories } from './script-histories.js';
import type { ChangeFeed } from './change-feed.js';
import { ScripthashSubscriptions } from './scripthash-subscriptions.js';
import { TipSubscriptions } from './tip-subscriptions.js';
import { heavyReads } from './unspent.js';

/** The long histories one chain's methods keep, per process (history-cache.ts). */
const HISTORY_CACHE_BYTES = 64 * 1024 * 1024;

export interface IndexDeps {
  readonly chains: ReadonlyMap<ChainCode, ChainHandle>;
  /** The process's feed hub (src/serving/live-hub.ts). */
  readonly feed: ChangeFeed;
}

export function indexGroup(
  chain: ChainCode,
  settings: { readonly subscriptionsPerConnection: number; readonly maxHistory: number; readonly undoDepth: number },
  deps: IndexDeps,
  log: Logger,
): IndexMethodDeps {
  const index = indexAccess(deps.chains.get(chain));
  const histories = scriptHistories(settings.maxHistory, new HistoryCache(HISTORY_CACHE_BYTES));
  return {
    chain,
    index,
    histories,
    maxHistory: settings.maxHistory,
    heavy: heavyReads(),
    checkpoints: new CheckpointProofs(settings.undoDepth),
    tips: new TipSubscriptions(chain, deps.feed, index, log),
    scripthashes: new ScripthashSubscriptions(chain, deps.feed, index, histories, settings.subscriptionsPerConnection, log),
  };
}
