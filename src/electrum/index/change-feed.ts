/**
 * What the Electrum subscriptions need of the process's feed hub (src/serving/live-hub.ts): the chain's tips and
 * the scripts each poll of the change feed found changed. The hub tails the feed once per process for
 * every listener (HTTP, WebSocket, Electrum), so a block costs one feed read however many listen.
 */
import type { ChainCode } from '../../chain/params.js';
import type { ChangeListener, TipListener } from '../../serving/feed-change.js';

export interface ChangeFeed {
  onTip(listener: TipListener): () => void;
  onChanges(chain: ChainCode, listener: ChangeListener): () => void;
  /** Runs `fn` with the chain's feed tailed and no poll running: what it reads, later changes are told after. */
  attach<T>(chain: ChainCode, fn: (seq: number) => Promise<T>): Promise<T>;
}
