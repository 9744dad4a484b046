/**
 * Whether a chain can answer now. The index answers while it is within `syncLagBlocks` of the node's
 * height as last recorded by the indexer. When the indexer could never reach the node (nodeHeight
 * null) the index is still consistent at its own tip, so it keeps answering from there.
 */
import type { ChainHandle, IndexStatus, SummarySource } from './deps.js';

export type ChainState =
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** The database exists but holds no block yet (the indexer has just started). */
  | { readonly kind: 'empty'; readonly source: SummarySource }
  | { readonly kind: 'syncing'; readonly source: SummarySource; readonly status: IndexStatus; readonly lag: number }
  | { readonly kind: 'ready'; readonly source: SummarySource; readonly status: IndexStatus; readonly lag: number | null };

/** Blocks the node is ahead of the index; 0 when the index is level or ahead (a node resyncing after a reorg). */
export function lagOf(status: Pick<IndexStatus, 'tipHeight' | 'nodeHeight'>): number | null {
  return status.nodeHeight === null ? null : Math.max(0, status.nodeHeight - status.tipHeight);
}

export function chainState(handle: ChainHandle, syncLagBlocks: number): ChainState {
  const acquired = handle.acquire();
  if (!acquired.ok) return { kind: 'unavailable', reason: acquired.reason };
  const { source } = acquired;
  const status = source.status();
  if (status === null) return { kind: 'empty', source };
  const lag = lagOf(status);
  if (lag !== null && lag > syncLagBlocks) return { kind: 'syncing', source, status, lag };
  return { kind: 'ready', source, status, lag };
}
